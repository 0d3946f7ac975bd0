// npy.hpp — reading and writing NumPy .npy files (format version 1.0).
//
// Layout: the magic "\x93NUMPY", version bytes 1 0, a little-endian uint16 header
// length, an ASCII Python dict {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } padded with spaces and a newline to a multiple of 64 bytes,
// then the raw little-endian data in C order.
//
// Supported: '<f4' (float32), '<f8' (float64), '<i8' (int64), C order; versions
// 2.0/3.0 (4-byte header length) are read too. Everything is validated before
// use — magic, version, header syntax, dtype, order, and that the data size is
// exactly shape × itemsize, computed with overflow checks (a header claiming
// (2^31, 2^31) of '<f4' is 2^64 bytes, which must not wrap to 0), all before
// anything is allocated — and failures throw IOError naming the file and the
// problem. Writes are atomic (write_file_atomic).
#pragma once
#include <string>

#include "tensor/tensor.hpp"

namespace attnlab {

Tensor load_npy(const std::string& path);
void save_npy(const std::string& path, const Tensor& t);

// The same, on bytes in memory (what the file functions use; handy in tests).
Tensor parse_npy(const std::string& bytes, const std::string& name = "<memory>");
std::string serialize_npy(const Tensor& t);

}  // namespace attnlab
