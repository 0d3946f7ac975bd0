// safetensors.hpp — checkpoints in the safetensors format (Hugging Face's), so that a
// model trained here loads in Python with nothing but struct, json and numpy
// (tools/read_safetensors.py shows how) and a file from there loads here.
//
// Layout of a file:
//   8 bytes    N, the length of the header, unsigned 64-bit little-endian
//   N bytes    the header: a UTF-8 JSON object, padded with spaces
//                {"__metadata__": {"step": "1000"},          optional; string values only
//                 "wq": {"dtype": "F32", "shape": [16, 16], "data_offsets": [0, 1024]},
//                 "wk": {"dtype": "F32", "shape": [16, 16], "data_offsets": [1024, 2048]}}
//   the rest   the byte buffer: each tensor's elements in C order, little-endian, at
//              [begin, end) counted from the start of the buffer
// dtypes here: F32, F64, I64 (attnlab's three; the format has more).
//
// Writing lays the tensors out in the order given, back to back (views are made
// contiguous first), and pads the header with spaces to a multiple of 8 bytes so the
// buffer starts 8-aligned, as the reference writer does (an mmap reader can then use
// tensors in place). Names must be unique and not "__metadata__" (ValueError); the
// empty name is a name like any other, as in the reference implementation (PyTorch
// calls a model's root module "", so hooks that save by module name write one).
// Files are written atomically (write_file_atomic).
//
// Reading treats the file as hostile: every number in the header is checked before
// anything is read or allocated from it — header length against the file and a
// 100 MB bound, each entry's keys, dtype and shape, its offsets against the buffer,
// its byte count against shape × dtype size, and that the tensors tile the buffer
// exactly (no overlap, no gap, no trailing bytes: the reference implementation
// rejects those too, and overlaps would let two names alias one storage). Duplicate
// names are rejected by the JSON parser. Every failure is an IOError naming the file
// and the problem.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab {

// Headers longer than this are refused unread, as by the reference implementation.
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100'000'000;

struct NamedTensor {
    std::string name;
    Tensor tensor;
};

struct SafetensorsFile {
    std::map<std::string, std::string> metadata;  // the "__metadata__" object
    std::vector<NamedTensor> tensors;             // in the order the header lists them
    std::string source;                           // the path (or "<memory>") it came from

    // The tensor called `name`; IOError naming it, the file, and the names there are.
    const Tensor& at(const std::string& name) const;
};

void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});
SafetensorsFile load_safetensors(const std::string& path);

// The same, on bytes in memory (what the file functions use; handy in tests).
std::string serialize_safetensors(const std::vector<NamedTensor>& tensors,
                                  const std::map<std::string, std::string>& metadata = {});
SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& name = "<memory>");

}  // namespace attnlab
