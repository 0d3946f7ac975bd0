// fuzz_support.hpp — what every harness in tests/fuzz/ shares.
//
// A harness is one LLVMFuzzerTestOneInput(data, size). It must
//   1. give the bytes to a parser that treats them as hostile: an attnlab::Error is
//      the expected answer to bad bytes, anything else (a crash, an ASan report, a
//      std::bad_alloc, an exception of another type) is a finding;
//   2. for bytes that parse, check a round trip — parse, write, parse again gives the
//      same thing, bit for bit — so a parser that "succeeds" with the wrong answer is
//      a finding too, not only one that crashes.
// A failed check prints what differed and aborts, which libFuzzer records as a crash
// and saves under build/fuzz/crashes/<target>/. Move such a file to
// tests/fuzz/regressions/<target>/ once fixed: `make fuzz` and .ci/run replay every file there.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "tensor/tensor.hpp"

namespace attnlab::fuzz {

[[noreturn]] inline void fail(const char* target, const std::string& what) {
    std::fprintf(stderr, "%s: round trip failed: %s\n", target, what.c_str());
    std::abort();
}

// A private temporary file for a harness whose API takes a path: tmpfs when there is one
// (thousands of files a second), named by target, process and role ("in", "out").
inline std::string scratch(const char* target, const char* what, const char* extension = ".safetensors") {
    const char* dir = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/attnlab_" + target + "_" + std::to_string(::getpid()) + "_" + what + extension;
}

// Same shape, dtype and bytes (bitwise, so NaN payloads and -0.0 count).
inline bool same_tensor(const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
    const Tensor ca = a.contiguous(), cb = b.contiguous();
    const std::size_t n = static_cast<std::size_t>(ca.numel()) * dtype_size(ca.dtype());
    const auto* pa = static_cast<const char*>(ca.impl()->storage->data) + ca.offset() * static_cast<std::int64_t>(dtype_size(ca.dtype()));
    const auto* pb = static_cast<const char*>(cb.impl()->storage->data) + cb.offset() * static_cast<std::int64_t>(dtype_size(cb.dtype()));
    return n == 0 || std::memcmp(pa, pb, n) == 0;
}

}  // namespace attnlab::fuzz
