// iter.hpp — walking N strided operands over one shape, for elementwise kernels.
//
// Kernels loop over "rows": runs along the last dimension, where each operand
// advances by a fixed stride. for_each_row() visits every row of `shape` in
// row-major order and hands the kernel, per operand, the element offset of the
// row's first element and its stride along the row. A broadcast operand simply
// has stride 0 in the stretched dims (broadcast_strides), so one loop serves
// every broadcasting case.
//
// Contiguous same-shape operands should skip this and loop over numel() directly;
// the kernels in binary.cpp / unary.cpp do.
#pragma once
#include <array>
#include <cstdint>

#include "tensor/tensor.hpp"

namespace attnlab {

// Strides that read `t` as if it had been expanded to `shape` (which must be a
// broadcast of t.shape()): stretched and missing leading dims get stride 0.
inline Shape broadcast_strides(const Tensor& t, const Shape& shape) {
    Shape s;
    std::int64_t lead = shape.size() - t.dim();
    for (std::int64_t i = 0; i < shape.size(); ++i) {
        std::int64_t j = i - lead;
        s.push_back(j < 0 || t.shape()[j] == 1 ? 0 : t.strides()[j]);
    }
    return s;
}

// row(offsets, n, steps): offsets[k] is operand k's element offset at the row start,
// steps[k] its stride along the row, n the row length. A 0-d shape is one row of 1.
template <std::size_t N, typename Row>
void for_each_row(const Shape& shape, const std::array<Shape, N>& strides, const std::array<std::int64_t, N>& base,
                  Row&& row) {
    const std::int64_t nd = shape.size();
    if (shape.numel() == 0) return;
    std::array<std::int64_t, N> steps{}, offs = base;
    const std::int64_t n = nd ? shape[nd - 1] : 1;
    for (std::size_t k = 0; k < N; ++k) steps[k] = nd ? strides[k][nd - 1] : 0;
    std::array<std::int64_t, Shape::kMaxDims> idx{};  // counter over the outer dims
    const std::int64_t rows = nd ? shape.numel() / n : 1;
    for (std::int64_t r = 0; r < rows; ++r) {
        row(offs, n, steps);
        // Advance the outer counter like an odometer, updating offsets incrementally.
        for (std::int64_t d = nd - 2; d >= 0; --d) {
            auto& i = idx[static_cast<std::size_t>(d)];
            if (++i < shape[d]) {
                for (std::size_t k = 0; k < N; ++k) offs[k] += strides[k][d];
                break;
            }
            for (std::size_t k = 0; k < N; ++k) offs[k] -= (shape[d] - 1) * strides[k][d];
            i = 0;
        }
    }
}

}  // namespace attnlab
