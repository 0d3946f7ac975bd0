// softmax_fast.hpp — the fast kernels behind softmax() and its backward (tensor/softmax.cpp).
//
// tensor/softmax.cpp holds the op: the formula in plain loops, the composed backward and
// one dispatch point each. These compute the same functions for float rows along a
// contiguous last dim (attention's weights), with softmax_row.hpp's vector loops and the
// rows split over the thread pool.
#pragma once
#include "tensor/tensor.hpp"

namespace attnlab::detail {

// y = softmax (or log_softmax) of each of the `rows` rows of n floats at x; alive[r] (when
// not null) gets 1 for a row with a finite max, 0 for a fully masked one (y all 0).
void softmax_rows_fast(const float* x, float* y, float* alive, std::int64_t rows, std::int64_t n, bool log_form);

// softmax_backward_composed(p, g, last dim) in one pass per row: p float32, contiguous;
// g float32 of p's shape. The same bits as the composed ops (tests/tensor/test_softmax.cpp).
Tensor softmax_backward_fast(const Tensor& p, const Tensor& g);

}  // namespace attnlab::detail
