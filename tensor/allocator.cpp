// allocator.cpp — see allocator.hpp.
#include "tensor/allocator.hpp"

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

}  // namespace

void* allocate_storage(std::size_t bytes) {
    if constexpr (kExactAllocation) return ::operator new(bytes ? bytes : 1, std::align_val_t(kAlignment));
    const std::size_t size = rounded(bytes ? bytes : 1);
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
    if constexpr (kExactAllocation) return ::operator delete(p, std::align_val_t(kAlignment));
    const std::size_t size = rounded(bytes ? bytes : 1);
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

}  // namespace attnlab
