// shape.hpp — Shape: a tensor's sizes (and, reused, its strides) as a small
// fixed-capacity vector.
//
// Shapes are created on every op, so they live inline (no heap allocation):
// at most kMaxDims = 8 dimensions, which is more than attention ever needs
// (B, H, T, T is four). Sizes and strides count elements, as in PyTorch.
//
// Overflow: a shape read from a file or typed by a user can be [2^31, 2^31] or
// [8192, 2, 2^48]. Every product of sizes (numel, strides, byte counts) is
// computed with checked arithmetic, and one that does not fit throws ShapeError
// naming the op and the shape. Unchecked, the count wraps and a tensor of 2^62
// elements gets 0 bytes of storage: every read is then a heap overflow.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace attnlab {

[[noreturn]] void throw_too_many_dims(std::size_t n);  // the message, out of line (shape.cpp)

class Shape {
public:
    static constexpr int kMaxDims = 8;

    Shape() = default;
    Shape(std::initializer_list<std::int64_t> dims);
    explicit Shape(const std::vector<std::int64_t>& dims);

    std::int64_t size() const { return n_; }  // number of dimensions
    bool empty() const { return n_ == 0; }
    std::int64_t operator[](std::int64_t i) const { return d_[static_cast<std::size_t>(i)]; }
    std::int64_t& operator[](std::int64_t i) { return d_[static_cast<std::size_t>(i)]; }
    std::int64_t back() const { return d_[static_cast<std::size_t>(n_ - 1)]; }
    const std::int64_t* begin() const { return d_.data(); }
    const std::int64_t* end() const { return d_.data() + n_; }

    void push_back(std::int64_t v) {
        if (n_ == kMaxDims) [[unlikely]] throw_too_many_dims(static_cast<std::size_t>(n_) + 1);
        d_[static_cast<std::size_t>(n_++)] = v;
    }
    void insert(std::int64_t pos, std::int64_t v);
    void erase(std::int64_t pos);

    std::int64_t numel() const;  // product of sizes; 1 for a scalar; ShapeError if it overflows
    std::vector<std::int64_t> vec() const { return {begin(), end()}; }
    std::string str() const;     // "[2, 3]"

    friend bool operator==(const Shape& a, const Shape& b) {
        if (a.n_ != b.n_) return false;
        for (int i = 0; i < a.n_; ++i)
            if (a.d_[static_cast<std::size_t>(i)] != b.d_[static_cast<std::size_t>(i)]) return false;
        return true;
    }

private:
    std::array<std::int64_t, kMaxDims> d_{};
    int n_ = 0;
};

// The checks below run inside every op, so they are inline: the test is a few
// instructions, and only the message, on failure, is built out of line (shape.cpp).
[[noreturn]] void throw_mul_overflow(std::int64_t a, std::int64_t b, const char* op, const Shape& shape);
[[noreturn]] void throw_negative_size(const char* op, const Shape& shape);
[[noreturn]] void throw_bad_dim(std::int64_t dim, std::int64_t ndim, const char* op);

// a * b, or ShapeError "<op>: shape <shape> ... overflows" if the product does not fit in int64.
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* op, const Shape& shape) {
    std::int64_t product;
    if (__builtin_mul_overflow(a, b, &product)) [[unlikely]] throw_mul_overflow(a, b, op, shape);
    return product;
}

// Product of the sizes, checked; throws ShapeError naming `op` and the shape on a
// negative size or an overflow.
inline std::int64_t checked_numel(const Shape& shape, const char* op) {
    std::int64_t n = 1;
    for (std::int64_t v : shape) {
        if (v < 0) [[unlikely]] throw_negative_size(op, shape);
        n = checked_mul(n, v, op, shape);
    }
    return n;
}
inline std::int64_t Shape::numel() const { return checked_numel(*this, "numel"); }

// Bytes of a contiguous tensor of `shape` with elements of `itemsize` bytes, checked
// against int64 (so offsets in bytes stay representable); ShapeError naming `op`.
std::size_t checked_nbytes(const Shape& shape, std::size_t itemsize, const char* op);

// Row-major (C order) strides for a shape: the last dimension is contiguous (checked).
Shape contiguous_strides(const Shape& shape);

// NumPy broadcasting of two shapes; throws ShapeError naming `op` and both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

// Maps a possibly negative dim (-1 = last) into [0, ndim); throws ValueError naming `op`.
inline std::int64_t normalize_dim(std::int64_t dim, std::int64_t ndim, const char* op) {
    const std::int64_t d = dim < 0 ? dim + ndim : dim;
    if (d < 0 || d >= ndim) [[unlikely]] throw_bad_dim(dim, ndim, op);
    return d;
}

}  // namespace attnlab
