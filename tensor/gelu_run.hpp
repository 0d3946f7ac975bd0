// gelu_run.hpp — GELU's vectorised float32 kernel (tensor/unary.cpp), shared with the fused
// bias + GELU of nn/mlp_fast.cpp so that both compute GELU with the same bits.
#pragma once
#include <cstdint>

namespace attnlab::detail {

// y = x·Φ(x) for n floats and, when dydx is not null, dydx = Φ(x) + x·φ(x) (see unary.cpp).
void gelu_float_run(const float* x, float* y, float* dydx, std::int64_t n);

}  // namespace attnlab::detail
