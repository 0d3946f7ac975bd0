// layers.cpp — see layers.hpp.
#include "nn/layers.hpp"

#include <cmath>

#include "autograd/node.hpp"
#include "nn/mlp_fast.hpp"
#include "tensor/ops.hpp"
#include "tensor/reference.hpp"

namespace attnlab::nn {

Linear::Linear(std::int64_t in_features, std::int64_t out_features, bool has_bias, Generator& gen) {
    if (in_features <= 0 || out_features <= 0)
        throw ValueError("Linear: sizes must be positive, got in=" + std::to_string(in_features) +
                         " out=" + std::to_string(out_features));
    const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
    weight = register_parameter("weight", uniform({out_features, in_features}, -bound, bound, kFloat32, gen));
    if (has_bias) bias = register_parameter("bias", uniform({out_features}, -bound, bound, kFloat32, gen));
}

Tensor Linear::forward(const Tensor& x) const {
    if (x.dim() == 0 || x.size(-1) != weight.size(1))
        throw ShapeError("Linear: input " + x.shape().str() + " does not end in in_features = " +
                         std::to_string(weight.size(1)));
    return linear(x, weight, bias);
}

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t dim, Generator& gen) {
    weight = register_parameter("weight", randn({num_embeddings, dim}, kFloat32, gen));
}

Tensor Embedding::forward(const Tensor& ids) const { return embedding(weight, ids); }

LayerNorm::LayerNorm(std::int64_t dim, double eps_) : eps(eps_) {
    weight = register_parameter("weight", ones({dim}));
    bias = register_parameter("bias", zeros({dim}));
}

// y = (x − mean(x)) / √(var(x) + eps) ⊙ w + b over the last dim, composed from tensor ops
// (autograd differentiates it op by op).
Tensor layer_norm_reference(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
    Tensor centered = x - x.mean(-1, true);
    Tensor variance = var(x, -1, true, /*correction=*/0);  // biased, as PyTorch's layer_norm
    return centered / sqrt(variance + eps) * weight + bias;
}

Tensor LayerNorm::forward(const Tensor& x) const {
    if (x.dim() == 0 || x.size(-1) != weight.size(0))
        throw ShapeError("LayerNorm: input " + x.shape().str() + " does not end in " + std::to_string(weight.size(0)));
    if (reference_mode()) return layer_norm_reference(x, weight, bias, eps);
    return layer_norm(x, weight, bias, eps);  // fast path: see nn/layer_norm.cpp; the line above is what it computes
}

Dropout::Dropout(double p_, std::uint64_t seed) : p(p_), gen_(seed) {
    if (!(p >= 0 && p < 1)) throw ValueError("Dropout: p must be in [0, 1), got " + std::to_string(p));
}

Tensor dropout(const Tensor& x, double p, Generator& gen) {
    if (!(p >= 0 && p < 1)) throw ValueError("dropout: p must be in [0, 1), got " + std::to_string(p));
    if (p == 0) return x;
    Tensor keep = ge(rand(x.shape(), x.dtype(), gen), scalar(p, x.dtype()));  // 1 with probability 1 − p
    return x * keep * (1.0 / (1.0 - p));
}

Tensor Dropout::forward(const Tensor& x) { return is_training() ? dropout(x, p, gen_) : x; }

Tensor GELU::forward(const Tensor& x) const { return gelu(x); }

MLP::MLP(std::int64_t d_model, std::int64_t hidden, Generator& gen) : fc1(d_model, hidden, true, gen), fc2(hidden, d_model, true, gen) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
}

// fc2(GELU(fc1(x))): [..., d_model] -> [..., hidden] -> [..., d_model]. The fast path takes
// fc1's bias and the GELU as one op, for float32 outside reference mode and the op trace
// (which lists the ops as composed here); anything else, a wrong width included, composes.
Tensor MLP::forward(const Tensor& x) const {
    if (reference_mode() || trace_sink || x.dtype() != kFloat32 || x.dim() < 2 || x.size(-1) != fc1.weight.size(1))
        return fc2.forward(gelu(fc1.forward(x)));
    return fc2.forward(linear_gelu_fast(x, fc1.weight, fc1.bias));  // fast path: see nn/mlp_fast.cpp; the line above is what it computes
}

}  // namespace attnlab::nn
