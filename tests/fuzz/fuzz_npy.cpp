// fuzz_npy.cpp — io/npy.cpp's reader on hostile bytes.
// Round trip: bytes that parse -> serialize_npy -> parse_npy gives the same tensor,
// and serializing that gives the same bytes again (the writer is deterministic).
#include <cstddef>
#include <cstdint>

#include "io/npy.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Tensor t;
    try {
        t = parse_npy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    } catch (const Error&) {
        return 0;  // a named rejection is the right answer to bad bytes
    }
    const std::string written = serialize_npy(t);
    const Tensor back = parse_npy(written, "written.npy");  // what we write, we must read
    if (!fuzz::same_tensor(t, back)) fuzz::fail("fuzz_npy", "tensor " + t.shape().str() + " changed");
    if (serialize_npy(back) != written) fuzz::fail("fuzz_npy", "second serialization differs");
    return 0;
}
