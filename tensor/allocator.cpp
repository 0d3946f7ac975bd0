// allocator.cpp — see allocator.hpp.
//
// A thread's cache of large blocks is a list of free blocks ordered by when they were
// released (newest first), indexed by size. allocate_storage takes the newest block of its size;
// release_storage files a block at the front and, when the cache is over its cap,
// evicts from the back: the blocks that have waited longest for a taker. So a size
// a program stopped using (the T = 1024 scores, once a sweep reaches T = 2048)
// makes room for the sizes it uses now, instead of pushing them out to the kernel.
#include "tensor/allocator.hpp"

#include <array>
#include <atomic>
#include <deque>
#include <list>
#include <new>
#include <unordered_map>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attnlab {

namespace {

// Sizes are rounded so that near-equal requests share a bucket.
std::size_t rounded(std::size_t bytes) {
    if (bytes < kCacheFromBytes) return (bytes + kAlignment - 1) / kAlignment * kAlignment;
    return (bytes + 4095) / 4096 * 4096;
}

void free_block(void* p) { ::operator delete(p, std::align_val_t(kAlignment)); }

struct Block {
    std::size_t size;
    void* p;
};

struct Cache {
    std::list<Block> by_age;  // front: released most recently
    // For each size, its blocks in by_age, oldest first (release order).
    std::unordered_map<std::size_t, std::deque<std::list<Block>::iterator>> by_size;
    std::size_t bytes = 0;

    void* take(std::size_t size) {
        auto it = by_size.find(size);
        if (it == by_size.end() || it->second.empty()) return nullptr;
        const auto block = it->second.back();  // the newest: likeliest still in cache
        it->second.pop_back();
        void* p = block->p;
        by_age.erase(block);
        bytes -= size;
        return p;
    }
    void put(std::size_t size, void* p) {
        by_age.push_front({size, p});
        by_size[size].push_back(by_age.begin());
        bytes += size;
        while (bytes > kMaxCachedBytes) {  // evict the longest-waiting blocks
            const Block old = by_age.back();
            by_size[old.size].pop_front();  // the oldest of its size is the one at the back
            by_age.pop_back();
            bytes -= old.size;
            free_block(old.p);
        }
    }
    ~Cache();
};

// Set when this thread's caches are destroyed (thread exit; at program exit, tensors in
// static storage may still be freed afterwards): from then on blocks go straight back.
thread_local bool t_caches_gone = false;

Cache::~Cache() {
    t_caches_gone = true;
    for (const Block& b : by_age) free_block(b.p);
}

// Per thread, without a lock. One cache for the whole process behind a mutex would make
// two threads training two halves of a batch at once (nn/data_parallel.hpp) wait on each
// other (bench_sharded_step measures that step); one thread gains and loses nothing. A block freed on another thread than the one that
// allocated it joins the freeing thread's cache, so a thread that keeps freeing what another
// allocates starves that one's cache: DataParallel frees each replica's gradients on the
// thread that computes its next ones.
Cache* cache() {
    if (t_caches_gone) return nullptr;
    thread_local Cache c;
    return &c;
}

// Small blocks, per thread: a LIFO list of free blocks for each rounded size (64-byte
// steps below kCacheFromBytes). A training step or a generated token frees and asks
// again for the same small sizes every time; glibc's aligned path for them (memalign,
// and malloc_consolidate when a bigger request meets freed small chunks) took ~7% of
// W6. No lock, as for the large blocks. Each thread keeps at most kMaxSmallCachedBytes.
struct SmallCache {
    std::array<std::vector<void*>, kCacheFromBytes / kAlignment> free;  // [size / 64 - 1]
    std::size_t bytes = 0;

    void* take(std::size_t size) {
        std::vector<void*>& list = free[size / kAlignment - 1];
        if (list.empty()) return nullptr;
        void* p = list.back();
        list.pop_back();
        bytes -= size;
        return p;
    }
    bool put(std::size_t size, void* p) {
        if (bytes + size > kMaxSmallCachedBytes) return false;
        free[size / kAlignment - 1].push_back(p);
        bytes += size;
        return true;
    }
    ~SmallCache();
};

SmallCache::~SmallCache() {
    t_caches_gone = true;
    for (std::vector<void*>& list : free)
        for (void* p : list) free_block(p);
}

SmallCache* small_cache() {
    if (t_caches_gone) return nullptr;
    thread_local SmallCache c;
    return &c;
}

// Object blocks (allocate_object), per thread: for each size in steps of 16 bytes, a
// LIFO list threaded through the free blocks themselves (the first word of a free block
// points to the next), at most kMaxFree blocks long.
struct ObjectCache {
    static constexpr std::size_t kStep = 16, kMaxFree = 4096;
    struct Free {
        Free* next;
    };
    std::array<Free*, kMaxObjectBytes / kStep> head{};
    std::array<std::size_t, kMaxObjectBytes / kStep> count{};

    static std::size_t slot(std::size_t bytes) { return (bytes - 1) / kStep; }
    void* take(std::size_t bytes) {
        Free*& h = head[slot(bytes)];
        if (!h) return nullptr;
        Free* p = h;
        h = p->next;
        --count[slot(bytes)];
        return p;
    }
    bool put(std::size_t bytes, void* p) {
        if (count[slot(bytes)] == kMaxFree) return false;
        head[slot(bytes)] = ::new (p) Free{head[slot(bytes)]};
        ++count[slot(bytes)];
        return true;
    }
    ~ObjectCache();
};

ObjectCache::~ObjectCache() {
    t_caches_gone = true;
    for (Free* h : head)
        while (h) {
            Free* next = h->next;
            ::operator delete(h);
            h = next;
        }
}

// Unused where kExactAllocation (the sanitizer builds), so clang would warn there.
[[maybe_unused]] ObjectCache* object_cache() {
    if (t_caches_gone) return nullptr;
    thread_local ObjectCache c;
    return &c;
}

#if defined(__GLIBC__)
// Small blocks come from glibc's heap, which hands its free top back to the kernel
// (brk) once it exceeds 128 KiB, and takes it back, faulting the pages in again, on
// the next op: a small workload (W1) spent 20% of its time in those faults. Keep
// up to 64 MiB of free heap instead. Set once, before main().
const bool g_heap_kept = mallopt(M_TRIM_THRESHOLD, 64 << 20) == 1;
#endif

std::atomic<std::size_t> in_use{0}, peak{0};

void count_allocation(std::size_t size) {
    const std::size_t now = in_use.fetch_add(size, std::memory_order_relaxed) + size;
    std::size_t p = peak.load(std::memory_order_relaxed);
    while (now > p && !peak.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
    }
}

}  // namespace

void* allocate_storage(std::size_t bytes) {
    const std::size_t size = rounded(bytes ? bytes : 1);
    count_allocation(size);  // the rounded size in every build, so the figures match
    if constexpr (kExactAllocation) return ::operator new(bytes ? bytes : 1, std::align_val_t(kAlignment));
    if (size >= kCacheFromBytes) {
        if (Cache* c = cache())
            if (void* p = c->take(size)) return p;
    } else if (SmallCache* c = small_cache()) {
        if (void* p = c->take(size)) return p;
    }
    return ::operator new(size, std::align_val_t(kAlignment));
}

void release_storage(void* p, std::size_t bytes) {
    const std::size_t size = rounded(bytes ? bytes : 1);
    in_use.fetch_sub(size, std::memory_order_relaxed);
    if constexpr (kExactAllocation) return free_block(p);
    if (size >= kCacheFromBytes && size <= kMaxCachedBytes) {
        if (Cache* c = cache()) return c->put(size, p);
        return free_block(p);
    }
    if (size < kCacheFromBytes)
        if (SmallCache* c = small_cache(); c && c->put(size, p)) return;
    free_block(p);
}

void* allocate_object(std::size_t bytes) {
    if constexpr (!kExactAllocation)
        if (bytes && bytes <= kMaxObjectBytes)
            if (ObjectCache* c = object_cache())
                if (void* p = c->take(bytes)) return p;
    if constexpr (kExactAllocation) return ::operator new(bytes);
    return ::operator new((bytes + ObjectCache::kStep - 1) / ObjectCache::kStep * ObjectCache::kStep);  // fits any size of its slot
}

void release_object(void* p, std::size_t bytes) {
    if constexpr (!kExactAllocation)
        if (bytes && bytes <= kMaxObjectBytes)
            if (ObjectCache* c = object_cache(); c && c->put(bytes, p)) return;
    ::operator delete(p);
}

std::size_t cached_storage_bytes() {
    const Cache* c = cache();
    return c ? c->bytes : 0;
}

std::size_t cached_small_storage_bytes() {
    const SmallCache* c = small_cache();
    return c ? c->bytes : 0;
}

std::size_t storage_bytes_in_use() { return in_use.load(std::memory_order_relaxed); }
std::size_t peak_storage_bytes_in_use() { return peak.load(std::memory_order_relaxed); }
void reset_peak_storage_bytes() { peak.store(in_use.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace attnlab
