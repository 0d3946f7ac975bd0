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
// the kernels in binary.cpp / unary.cpp do. Both kinds of loop split over threads
// once a tensor is large (parallel_for_elements, parallel_for_each_row).
#pragma once
#include <array>
#include <cstdint>

#include "tensor/parallel.hpp"
#include "tensor/tensor.hpp"

namespace attnlab {

// Strides that read `t` as if it had been expanded to `shape` (which must be a
// broadcast of t.shape()): stretched and missing leading dims get stride 0.
// The second form takes the sizes and strides alone (matmul's batch dims).
inline Shape broadcast_strides(const Shape& t_shape, const Shape& t_strides, const Shape& shape) {
    Shape s;
    std::int64_t lead = shape.size() - t_shape.size();
    for (std::int64_t i = 0; i < shape.size(); ++i) {
        std::int64_t j = i - lead;
        s.push_back(j < 0 || t_shape[j] == 1 ? 0 : t_strides[j]);
    }
    return s;
}
inline Shape broadcast_strides(const Tensor& t, const Shape& shape) {
    return broadcast_strides(t.shape(), t.strides(), shape);
}

// How many rows for_each_row visits: numel / (last dim), 0 if the shape is empty,
// 1 for a 0-d shape.
inline std::int64_t row_count(const Shape& shape) {
    if (shape.numel() == 0) return 0;
    return shape.size() ? shape.numel() / shape[shape.size() - 1] : 1;
}

// row(offsets, n, steps) for rows [first, last) of the walk, in order: offsets[k] is
// operand k's element offset at the row start, steps[k] its stride along the row, n the
// row length. A 0-d shape is one row of 1. Taking a range lets a kernel split one walk
// over threads (parallel_for_elements); every row gets the same offsets either way.
template <std::size_t N, typename Row>
void for_each_row_in(const Shape& shape, const std::array<Shape, N>& strides, const std::array<std::int64_t, N>& base,
                     std::int64_t first, std::int64_t last, Row&& row) {
    const std::int64_t nd = shape.size();
    if (first >= last) return;
    std::array<std::int64_t, N> steps{}, offs = base;
    const std::int64_t n = nd ? shape[nd - 1] : 1;
    for (std::size_t k = 0; k < N; ++k) steps[k] = nd ? strides[k][nd - 1] : 0;
    std::array<std::int64_t, Shape::kMaxDims> idx{};  // counter over the outer dims
    // Start the counter at row `first`: its outer index, digit by digit, last dim fastest.
    for (std::int64_t d = nd - 2, r = first; d >= 0; --d) {
        idx[static_cast<std::size_t>(d)] = r % shape[d];
        r /= shape[d];
        for (std::size_t k = 0; k < N; ++k) offs[k] += idx[static_cast<std::size_t>(d)] * strides[k][d];
    }
    for (std::int64_t r = first; r < last; ++r) {
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

// Every row of `shape`, in row-major order (see for_each_row_in).
template <std::size_t N, typename Row>
void for_each_row(const Shape& shape, const std::array<Shape, N>& strides, const std::array<std::int64_t, N>& base,
                  Row&& row) {
    for_each_row_in(shape, strides, base, 0, row_count(shape), row);
}

// for_each_row split over threads: chunks of whole rows, each at least
// kMinElementsPerChunk elements. The row function must write only its own row's output.
template <std::size_t N, typename Row>
void parallel_for_each_row(const Shape& shape, const std::array<Shape, N>& strides,
                           const std::array<std::int64_t, N>& base, Row&& row) {
    const std::int64_t row_length = shape.size() ? shape[shape.size() - 1] : 1;
    parallel_for_elements(row_count(shape), row_length, [&](std::int64_t first, std::int64_t last) {
        for_each_row_in(shape, strides, base, first, last, row);
    });
}

}  // namespace attnlab
