// allocator.hpp — where tensor storage comes from.
//
// Small blocks go straight to the aligned operator new. Large ones (≥ 64 KiB) are
// recycled: glibc returns big freed blocks to the kernel, and the kernel must then
// fault in and zero fresh pages for the next tensor of the same size — measured at
// ~20% of a toy training step (perf: clear_page_erms). Freed large blocks are kept
// per size, up to kMaxCachedBytes in all, and handed out again; when the cap is
// reached, the blocks freed longest ago go back to the kernel first, so what a
// program allocated earlier (a sweep's smaller sizes) cannot crowd out what it
// allocates now. Contents of a recycled block are unspecified, exactly as for
// fresh memory (empty() promises nothing).
#pragma once
#include <cstddef>

namespace attnlab {

inline constexpr std::size_t kAlignment = 64;                 // a cache line; one AVX-512 register
inline constexpr std::size_t kCacheFromBytes = 64 << 10;      // recycle blocks at least this big
inline constexpr std::size_t kMaxCachedBytes = std::size_t(512) << 20;

void* allocate_storage(std::size_t bytes);
void release_storage(void* p, std::size_t bytes);
std::size_t cached_storage_bytes();  // held for reuse right now (for tests)

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

}  // namespace attnlab
