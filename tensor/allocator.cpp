// allocator.cpp — see allocator.hpp.
#include "tensor/allocator.hpp"

#include <atomic>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace attnlab {

namespace {

// Sizes are rounded so that near-equal requests share a bucket.
std::size_t rounded(std::size_t bytes) {
    if (bytes < kCacheFromBytes) return (bytes + kAlignment - 1) / kAlignment * kAlignment;
    return (bytes + 4095) / 4096 * 4096;
}

struct Cache {
    std::mutex mutex;
    std::unordered_map<std::size_t, std::vector<void*>> free_blocks;
    std::size_t bytes = 0;
    ~Cache() {
        for (auto& [size, blocks] : free_blocks)
            for (void* p : blocks) ::operator delete(p, std::align_val_t(kAlignment));
    }
};

Cache& cache() {
    static Cache c;
    return c;
}

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
    count_allocation(size);
    if (size >= kCacheFromBytes) {
        Cache& c = cache();
        std::lock_guard<std::mutex> lock(c.mutex);
        auto it = c.free_blocks.find(size);
        if (it != c.free_blocks.end() && !it->second.empty()) {
            void* p = it->second.back();
            it->second.pop_back();
            c.bytes -= size;
            return p;
        }
    }
    return ::operator new(size, std::align_val_t(kAlignment));
}

void release_storage(void* p, std::size_t bytes) {
    const std::size_t size = rounded(bytes ? bytes : 1);
    in_use.fetch_sub(size, std::memory_order_relaxed);
    if (size >= kCacheFromBytes) {
        Cache& c = cache();
        std::lock_guard<std::mutex> lock(c.mutex);
        if (c.bytes + size <= kMaxCachedBytes) {
            c.free_blocks[size].push_back(p);
            c.bytes += size;
            return;
        }
    }
    ::operator delete(p, std::align_val_t(kAlignment));
}

std::size_t cached_storage_bytes() {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.bytes;
}

std::size_t storage_bytes_in_use() { return in_use.load(std::memory_order_relaxed); }
std::size_t peak_storage_bytes_in_use() { return peak.load(std::memory_order_relaxed); }
void reset_peak_storage_bytes() { peak.store(in_use.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace attnlab
