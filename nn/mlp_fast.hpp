// mlp_fast.hpp — the fast path of MLP::forward's first half (nn/layers.cpp): GELU(x·Wᵀ + b)
// as one op, defined in nn/mlp_fast.cpp.
#pragma once
#include "tensor/tensor.hpp"

namespace attnlab::nn {

// gelu(linear(x, weight, bias)) for float32 x [..., in], weight [out, in], bias [out]:
// the same bits forward and backward as the composed ops (tests/nn/test_mlp_fast.cpp).
// Throws ShapeError as linear() does.
Tensor linear_gelu_fast(const Tensor& x, const Tensor& weight, const Tensor& bias);

}  // namespace attnlab::nn
