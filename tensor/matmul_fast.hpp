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

// x [..., in] @ weightᵀ + bias, the bias added inside gemm's register tile: for inference
// only (no graph is recorded and nothing is traced). x.dim() >= 2, x's dtype is weight's.
Tensor linear_fast(const Tensor& x, const Tensor& weight, const Tensor& bias);

}  // namespace attnlab::detail
