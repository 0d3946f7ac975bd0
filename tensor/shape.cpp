// shape.cpp — see shape.hpp.
#include "tensor/shape.hpp"

#include "tensor/error.hpp"

namespace attnlab {

void throw_too_many_dims(std::size_t n) {
    throw ShapeError("Shape: " + std::to_string(n) + " dimensions, more than the maximum of " +
                     std::to_string(Shape::kMaxDims));
}

static void check_rank(std::size_t n) {
    if (n > static_cast<std::size_t>(Shape::kMaxDims)) throw_too_many_dims(n);
}

Shape::Shape(std::initializer_list<std::int64_t> dims) {
    check_rank(dims.size());
    for (std::int64_t v : dims) d_[static_cast<std::size_t>(n_++)] = v;
}

Shape::Shape(const std::vector<std::int64_t>& dims) {
    check_rank(dims.size());
    for (std::int64_t v : dims) d_[static_cast<std::size_t>(n_++)] = v;
}

void Shape::insert(std::int64_t pos, std::int64_t v) {
    check_rank(static_cast<std::size_t>(n_) + 1);
    for (std::int64_t i = n_; i > pos; --i) d_[static_cast<std::size_t>(i)] = d_[static_cast<std::size_t>(i - 1)];
    d_[static_cast<std::size_t>(pos)] = v;
    ++n_;
}

void Shape::erase(std::int64_t pos) {
    for (std::int64_t i = pos; i + 1 < n_; ++i) d_[static_cast<std::size_t>(i)] = d_[static_cast<std::size_t>(i + 1)];
    --n_;
}

std::string Shape::str() const {
    std::string s = "[";
    for (int i = 0; i < n_; ++i) {
        if (i) s += ", ";
        s += std::to_string(d_[static_cast<std::size_t>(i)]);
    }
    return s + "]";
}

void throw_mul_overflow(std::int64_t a, std::int64_t b, const char* op, const Shape& shape) {
    throw ShapeError(std::string(op) + ": shape " + shape.str() + " is too large: " + std::to_string(a) + " * " +
                     std::to_string(b) + " overflows 64 bits");
}

void throw_negative_size(const char* op, const Shape& shape) {
    throw ShapeError(std::string(op) + ": negative size in shape " + shape.str());
}

std::size_t checked_nbytes(const Shape& shape, std::size_t itemsize, const char* op) {
    return static_cast<std::size_t>(
        checked_mul(checked_numel(shape, op), static_cast<std::int64_t>(itemsize), op, shape));
}

Shape contiguous_strides(const Shape& shape) {
    Shape strides = shape;
    std::int64_t s = 1;
    for (std::int64_t i = shape.size() - 1; i >= 0; --i) {
        strides[i] = s;
        // Checked even when numel is 0: [0, 2^40, 2^40] has a stride of 2^80.
        if (i > 0) s = checked_mul(s, shape[i], "contiguous_strides", shape);
    }
    return strides;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
    // Align from the right; a size-1 dimension stretches to match the other.
    std::int64_t n = std::max(a.size(), b.size());
    Shape out;
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t ia = i - (n - a.size()), ib = i - (n - b.size());
        std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
        if (da != db && da != 1 && db != 1)
            throw ShapeError(std::string(op) + ": shapes cannot be broadcast: " + a.str() + " and " + b.str());
        out.push_back(da == 1 ? db : da);
    }
    checked_numel(out, op);  // [2^32, 1] with [1, 2^32] broadcasts to 2^64 elements
    return out;
}

void throw_bad_dim(std::int64_t dim, std::int64_t ndim, const char* op) {
    throw ValueError(std::string(op) + ": dim " + std::to_string(dim) + " is out of range for a tensor of " +
                     std::to_string(ndim) + " dimensions");
}

}  // namespace attnlab
