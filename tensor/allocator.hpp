// allocator.hpp — where tensor storage comes from.
//
// Blocks come from the aligned operator new and are recycled. Large ones (≥ 64 KiB):
// glibc returns big freed blocks to the kernel, which must then fault in and zero
// pages for the next tensor of the same size — measured at ~20% of a toy training
// step (perf: clear_page_erms). Freed large blocks are kept per thread and per size,
// up to kMaxCachedBytes for each thread, and handed out again; when the cap is
// reached, the blocks freed longest ago go back to the kernel first, so what a
// program allocated earlier (a sweep's smaller sizes) cannot crowd out what it
// allocates now. Contents of a recycled block are unspecified, exactly as for
// fresh memory (empty() promises nothing). Small blocks are recycled too, per thread
// (up to kMaxSmallCachedBytes each): an op's temporaries come back at the same sizes
// every step, and glibc's aligned allocation of them was ~7% of W6. No cache takes a
// lock (allocator.cpp says what one shared cache cost two threads).
#pragma once
#include <cstddef>

namespace attnlab {

inline constexpr std::size_t kAlignment = 64;                 // a cache line; one AVX-512 register
inline constexpr std::size_t kCacheFromBytes = 64 << 10;      // recycle blocks at least this big
inline constexpr std::size_t kMaxCachedBytes = std::size_t(512) << 20;         // per thread
inline constexpr std::size_t kMaxSmallCachedBytes = std::size_t(16) << 20;  // per thread

// Under AddressSanitizer (make asan, make fuzz) every block is exactly the size
// asked for and is freed at once: the rounding and the recycling above would let
// an overflow land in slack or in a recycled block, where ASan cannot see it.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kExactAllocation = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kExactAllocation = true;
#else
inline constexpr bool kExactAllocation = false;
#endif
#else
inline constexpr bool kExactAllocation = false;
#endif

void* allocate_storage(std::size_t bytes);
void release_storage(void* p, std::size_t bytes);
std::size_t cached_storage_bytes();        // large blocks held for reuse by this thread (for tests)
std::size_t cached_small_storage_bytes();  // small blocks held for reuse by this thread (for tests)

// Read-only counters for benchmarks that report the memory an op needed: bytes of
// tensor storage handed out and not yet released (rounded sizes; blocks held in
// the cache are not in use), and the most there has been since the last reset.
std::size_t storage_bytes_in_use();
std::size_t peak_storage_bytes_in_use();
void reset_peak_storage_bytes();  // peak := in use now

// Peak bytes of tensor storage fn() allocates beyond what was in use before it.
template <typename F>
double peak_extra_storage_bytes(F&& fn) {
    const std::size_t before = storage_bytes_in_use();
    reset_peak_storage_bytes();
    fn();
    return static_cast<double>(peak_storage_bytes_in_use() - before);
}

// The small objects every op makes besides its storage: a TensorImpl and a Storage, each
// in one block with its shared_ptr's control block (std::allocate_shared). Freed blocks
// are kept per thread and per size in a free list and handed out again: a forward frees
// dozens of them at once, more than glibc's per-thread cache holds (7 of a size), and
// the rest went through its slower paths (perf on W6: _int_malloc and _int_free).
// Blocks of up to kMaxObjectBytes; larger ones, and every block under AddressSanitizer,
// go straight to operator new and delete.
inline constexpr std::size_t kMaxObjectBytes = 512;
void* allocate_object(std::size_t bytes);
void release_object(void* p, std::size_t bytes);

// allocate_object as a standard allocator, for std::allocate_shared.
template <typename T>
struct ObjectAllocator {
    using value_type = T;
    ObjectAllocator() = default;
    template <typename U>
    ObjectAllocator(const ObjectAllocator<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(allocate_object(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) { release_object(p, n * sizeof(T)); }
    friend bool operator==(const ObjectAllocator&, const ObjectAllocator&) { return true; }
};

}  // namespace attnlab
