// matmul_fast.hpp — the fast kernels behind matmul() and linear() (tensor/matmul.cpp).
//
// tensor/matmul.cpp holds the op: its formula, its backward and one dispatch point per
// entry. These compute the same numbers through tensor/gemm.cpp's register tiles, with
// the packed-weight cache (tensor/packed_weights.hpp) and the thread pool's grain.
#pragma once
#include "tensor/tensor.hpp"

namespace attnlab::detail {

// out [..., n, m] = a [..., n, k] @ b [..., k, m] (+ bias [m] on every row when defined),
// batch dims broadcast (out's leading dims); out is allocated, contiguous.
void matmul_fast(const Tensor& a, const Tensor& b, const Tensor& bias, Tensor& out);

// x [..., in] @ weightᵀ + bias, the bias added inside gemm's register tile. It records no
// graph and traces nothing (linear_gelu_fast records its own node over it). x.dim() >= 2,
// x's dtype is weight's.
Tensor linear_fast(const Tensor& x, const Tensor& weight, const Tensor& bias);

// linear_fast with its backward recorded as one "linear" node, where the composed
// matmul(x, Wᵀ) + b records two. Backward runs the products and the column sum those two
// nodes run (dx = g·W, dW = gᵀ·x over all rows, db = Σ_rows g), so every gradient has the
// same bits as theirs (tests/tensor/test_linear_fast.cpp). x is contiguous.
Tensor linear_fast_recorded(const Tensor& x, const Tensor& weight, const Tensor& bias);

}  // namespace attnlab::detail
