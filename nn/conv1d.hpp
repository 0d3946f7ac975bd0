// conv1d.hpp — a causal, dilated 1-D convolution over a sequence (the convolutional alternative to attention).
//
//   y[t] = b + Σ_j W[:, :, j] · x[t − d·(K − 1 − j)]      j = 0 … K−1, x[< 0] = 0
//
// Causal: position t sees only itself and earlier positions, so a stack of L layers
// with kernel K and dilations d_1 … d_L sees 1 + (K − 1)·Σ d_l positions ending at t
// (its receptive field) and nothing further back: receptive_field() says how far.
// Weight [out, in, K] as torch.nn.Conv1d (channels-first there; here x is [B, T, in],
// the layout every other layer of attnlab takes). Init U(−1/√(in·K), 1/√(in·K)) as PyTorch.
//
// Forward and backward: the forward is composed of tensor ops (pad with zeros, K shifted
// views of x side by side, one matmul), so autograd derives the backward from those ops:
// the gradient of each shifted view flows back to the positions it was cut from.
#pragma once
#include "nn/module.hpp"
#include "tensor/rng.hpp"

namespace attnlab::nn {

// x [B, T, in], weight [out, in, K], bias [out] (undefined: none) -> [B, T, out].
Tensor causal_conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, std::int64_t dilation = 1);

class Conv1d : public Module {
public:
    Conv1d(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size, std::int64_t dilation = 1,
           Generator& gen = default_generator());
    Tensor forward(const Tensor& x) const;  // [B, T, in] -> [B, T, out]
    // How many positions ending at t (t included) a stack of these layers reads.
    static std::int64_t receptive_field(std::int64_t kernel_size, const std::vector<std::int64_t>& dilations);
    std::int64_t in_channels, out_channels, kernel_size, dilation;
    Tensor weight, bias;
};

}  // namespace attnlab::nn
