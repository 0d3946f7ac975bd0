// error.hpp — the one exception hierarchy of attnlab.
//
// Every operation validates its inputs and throws one of these with a message
// that names the operation and the offending shapes or values, e.g.
//   "matmul: inner dimensions differ: [2, 3] @ [4, 5]".
// Callers that want to handle any attnlab failure catch attnlab::Error.
#pragma once
#include <stdexcept>
#include <string>

namespace attnlab {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// Shapes that do not fit the operation (broadcasting, matmul, reshape, cat, ...).
struct ShapeError : Error {
    using Error::Error;
};
// A value out of range: a bad dim, an index past the end, a negative size, a mask that is not 0/-inf.
struct ValueError : Error {
    using Error::Error;
};
// Reading or writing a file failed, or a file we read is malformed (checkpoint, .npy, corpus).
struct IOError : Error {
    using Error::Error;
};
// The autograd graph was used wrongly (backward twice, backward on a non-scalar without a gradient).
struct AutogradError : Error {
    using Error::Error;
};

}  // namespace attnlab
