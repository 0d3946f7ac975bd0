// layers.hpp — the building blocks: Linear, Embedding, LayerNorm, Dropout, GELU, MLP.
//
// Each follows PyTorch's definition, parameter layout and default initialisation,
// so a checkpoint maps onto torch.nn one to one. Initialisation draws from a
// Generator passed in (default: the global one), so a seed fixes every weight.
#pragma once
#include "nn/module.hpp"
#include "tensor/rng.hpp"

namespace attnlab::nn {

// y = x Wᵀ + b, W stored [out, in] as in PyTorch. Init: U(−1/√in, 1/√in) for W and b
// (PyTorch's kaiming_uniform with a = √5 reduces to exactly this bound).
class Linear : public Module {
public:
    Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true,
           Generator& gen = default_generator());
    Tensor forward(const Tensor& x) const;  // (..., in) -> (..., out)
    Tensor weight, bias;                    // bias undefined when bias = false
};

// Row lookup: ids (any shape, int64) -> (*ids.shape, dim). Init N(0, 1) as PyTorch.
class Embedding : public Module {
public:
    Embedding(std::int64_t num_embeddings, std::int64_t dim, Generator& gen = default_generator());
    Tensor forward(const Tensor& ids) const;
    Tensor weight;  // (num_embeddings, dim)
};

// y = (x − mean) / √(var + eps) · weight + bias over the last dim (biased variance,
// as PyTorch). layer_norm is one fused op with a hand-written backward (nn/layer_norm.cpp);
// layer_norm_reference is the same formula composed from tensor ops, the readable
// version the fused one is tested against.
Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps = 1e-5);
Tensor layer_norm_reference(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps = 1e-5);

// weight = 1, bias = 0 at init.
class LayerNorm : public Module {
public:
    explicit LayerNorm(std::int64_t dim, double eps = 1e-5);
    Tensor forward(const Tensor& x) const;  // (..., dim) -> (..., dim)
    Tensor weight, bias;
    double eps;
};

// Zeroes each element of x with probability p, drawing from gen, and scales the rest by
// 1/(1 − p) (inverted dropout: the expected value is unchanged). p = 0 returns x and draws nothing.
Tensor dropout(const Tensor& x, double p, Generator& gen);

// Zeroes each element with probability p in train mode and scales the rest by
// 1/(1 − p), so the expected value is unchanged; the identity in eval mode.
// Its own Generator, so dropout never disturbs other random streams.
class Dropout : public Module {
public:
    explicit Dropout(double p, std::uint64_t seed = 0);
    Tensor forward(const Tensor& x);
    double p;

private:
    Generator gen_;
};

class GELU : public Module {
public:
    Tensor forward(const Tensor& x) const;
};

// fc2(gelu(fc1(x))), hidden width 4·d_model by default (the transformer MLP).
class MLP : public Module {
public:
    MLP(std::int64_t d_model, std::int64_t hidden, Generator& gen = default_generator());
    Tensor forward(const Tensor& x) const;  // (..., d_model) -> (..., d_model)
    Linear fc1, fc2;
};

}  // namespace attnlab::nn
