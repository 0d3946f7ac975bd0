// conv1d.cpp — the causal dilated convolution as tensor ops (see conv1d.hpp).
#include "nn/conv1d.hpp"

#include <cmath>
#include <string>

#include "tensor/ops.hpp"

namespace attnlab::nn {

Tensor causal_conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, std::int64_t dilation) {
    if (x.dim() != 3 || weight.dim() != 3 || x.size(2) != weight.size(1))
        throw ShapeError("causal_conv1d: x " + x.shape().str() + " must be [B, T, in] and weight " + weight.shape().str() +
                         " [out, in, K] with the same in");
    if (dilation < 1) throw ShapeError("causal_conv1d: dilation " + std::to_string(dilation) + " must be >= 1");
    const std::int64_t B = x.size(0), T = x.size(1), in = x.size(2), out = weight.size(0), K = weight.size(2);
    const std::int64_t pad = dilation * (K - 1);
    const Tensor padded = cat({zeros({B, pad, in}, x.dtype()), x}, 1);  // [B, pad + T, in]: x[< 0] = 0
    std::vector<Tensor> taps;  // tap j reads x[t − d·(K − 1 − j)]: the view of padded starting at j·d
    for (std::int64_t j = 0; j < K; ++j) taps.push_back(narrow(padded, 1, j * dilation, T));
    // [out, in, K] -> [out, K, in] -> [out, K·in], matching the taps' order along the last dim.
    const Tensor w = reshape(permute(weight, {0, 2, 1}), {out, K * in});
    Tensor y = matmul(cat(taps, 2), transpose(w, 0, 1));  // [B, T, K·in] × [K·in, out]
    return bias.defined() ? y + bias : y;
}

Conv1d::Conv1d(std::int64_t in_channels_, std::int64_t out_channels_, std::int64_t kernel_size_, std::int64_t dilation_,
               Generator& gen)
    : in_channels(in_channels_), out_channels(out_channels_), kernel_size(kernel_size_), dilation(dilation_) {
    if (in_channels < 1 || out_channels < 1 || kernel_size < 1 || dilation < 1)
        throw ShapeError("Conv1d(" + std::to_string(in_channels) + ", " + std::to_string(out_channels) + ", " +
                         std::to_string(kernel_size) + ", dilation " + std::to_string(dilation) + "): every size must be >= 1");
    const double bound = 1.0 / std::sqrt(static_cast<double>(in_channels * kernel_size));
    weight = register_parameter("weight", uniform({out_channels, in_channels, kernel_size}, -bound, bound, kFloat32, gen));
    bias = register_parameter("bias", uniform({out_channels}, -bound, bound, kFloat32, gen));
}

Tensor Conv1d::forward(const Tensor& x) const { return causal_conv1d(x, weight, bias, dilation); }

std::int64_t Conv1d::receptive_field(std::int64_t kernel_size, const std::vector<std::int64_t>& dilations) {
    std::int64_t field = 1;
    for (std::int64_t d : dilations) field += (kernel_size - 1) * d;
    return field;
}

}  // namespace attnlab::nn
