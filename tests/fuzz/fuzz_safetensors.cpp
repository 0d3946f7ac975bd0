// fuzz_safetensors.cpp — io/safetensors.cpp's reader on hostile bytes.
// Round trip: a file that parses -> serialize_safetensors -> parse gives the same
// names in the same order, the same tensors bit for bit and the same metadata.
#include <cstddef>
#include <cstdint>

#include "io/safetensors.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    SafetensorsFile file;
    try {
        file = parse_safetensors(std::string(reinterpret_cast<const char*>(data), size), "fuzz.safetensors");
    } catch (const Error&) {
        return 0;
    }
    const std::string written = serialize_safetensors(file.tensors, file.metadata);
    const SafetensorsFile back = parse_safetensors(written, "written.safetensors");
    if (back.metadata != file.metadata) fuzz::fail("fuzz_safetensors", "metadata changed");
    if (back.tensors.size() != file.tensors.size()) fuzz::fail("fuzz_safetensors", "number of tensors changed");
    for (std::size_t i = 0; i < file.tensors.size(); ++i) {
        if (back.tensors[i].name != file.tensors[i].name)
            fuzz::fail("fuzz_safetensors", "tensor " + std::to_string(i) + " renamed");
        if (!fuzz::same_tensor(back.tensors[i].tensor, file.tensors[i].tensor))
            fuzz::fail("fuzz_safetensors", "tensor '" + file.tensors[i].name + "' changed");
    }
    if (serialize_safetensors(back.tensors, back.metadata) != written)
        fuzz::fail("fuzz_safetensors", "second serialization differs");
    return 0;
}
