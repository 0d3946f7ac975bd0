// scoring.hpp — the four ways to score a query against a key (dot, scaled dot, general and additive), as
// interchangeable modules.
//
//   dot             score(s, h) = sᵀ h                      (Luong "dot")
//   scaled dot      score(s, h) = sᵀ h / √d                 (Vaswani et al.)
//   additive        score(s, h) = vᵀ tanh(W_s s + W_h h)    (Bahdanau et al.; W_h has the bias)
//   multiplicative  score(s, h) = sᵀ W h                    (Luong "general")
//
// In a seq2seq decoder the query s is the decoder state (one per step) and the keys
// h are the encoder outputs (the same for every step). So each scorer splits its
// work in two: prepare(keys) does the part that depends only on the keys — W_h h
// for additive, W h for multiplicative — once per source sequence, and score()
// does the per-query rest. Computing W_h h inside the decoder loop instead would
// repeat the same [B, Tk, d] matmul at every output step.
//
// weights() normalizes the scores over the keys (softmax by default, or a sparse
// Normalizer), after the mask sets blocked keys to −∞: every row sums to 1 over the
// allowed keys (0 for a fully masked row).
#pragma once
#include <memory>
#include <string>

#include "nn/layers.hpp"
#include "nn/mask.hpp"
#include "nn/sparse_attention.hpp"

namespace attnlab::nn {

class Scoring : public Module {
public:
    // Shapes: query [B, Tq, d_q], keys [B, Tk, d_k]; prepared keys [B, Tk, ·]; scores [B, Tq, Tk].
    virtual Tensor prepare(const Tensor& keys) const { return keys; }
    virtual Tensor score(const Tensor& query, const Tensor& prepared) const = 0;
    virtual std::string name() const = 0;

    Tensor scores(const Tensor& query, const Tensor& keys) const { return score(query, prepare(keys)); }
    // normalize(mask.apply(score)) -> [B, Tq, Tk], rows summing to 1 over the allowed keys.
    Tensor weights(const Tensor& query, const Tensor& prepared, const Mask& mask = Mask(),
                   const Normalizer& normalize = Normalizer::softmax()) const;
};

// sᵀ h: needs d_q = d_k; no parameters.
class DotScoring : public Scoring {
public:
    Tensor score(const Tensor& query, const Tensor& prepared) const override;
    std::string name() const override { return "dot"; }
};

// sᵀ h / √d_k: the dot product kept at unit variance as d grows.
class ScaledDotScoring : public Scoring {
public:
    Tensor score(const Tensor& query, const Tensor& prepared) const override;
    std::string name() const override { return "scaled dot"; }
};

// vᵀ tanh(W_s s + W_h h): a one-hidden-layer MLP on the pair, width d_attn.
// Parameters: w_s [d_attn, d_q] (no bias), w_h [d_attn, d_k] (+ bias), v [1, d_attn] (no bias).
class AdditiveScoring : public Scoring {
public:
    AdditiveScoring(std::int64_t d_q, std::int64_t d_k, std::int64_t d_attn, Generator& gen = default_generator());
    Tensor prepare(const Tensor& keys) const override;  // W_h h + b   [B, Tk, d_attn]
    Tensor score(const Tensor& query, const Tensor& prepared) const override;           // fused: additive_scores
    Tensor score_composed(const Tensor& query, const Tensor& prepared) const;           // the formula as tensor ops
    std::string name() const override { return "additive"; }
    Linear w_s, w_h, v;
};

// sᵀ W h, W [d_q, d_k]: prepare computes W h once, leaving a dot product per query.
// Stored as a Linear d_k -> d_q without bias, so W h = w.forward(h).
class MultiplicativeScoring : public Scoring {
public:
    MultiplicativeScoring(std::int64_t d_q, std::int64_t d_k, Generator& gen = default_generator());
    Tensor prepare(const Tensor& keys) const override;  // W h   [B, Tk, d_q]
    Tensor score(const Tensor& query, const Tensor& prepared) const override;
    std::string name() const override { return "multiplicative"; }
    Linear w;
};

// The additive score as one op with a hand-written backward (scoring_fused.cpp):
// q [B, Tq, A] (= W_s s), k [B, Tk, A] (= W_h h + b), v [A] -> Σ_c v_c tanh(q_ic + k_jc)  [B, Tq, Tk].
Tensor additive_scores(const Tensor& q, const Tensor& k, const Tensor& v);

enum class ScoreKind { dot, scaled_dot, additive, multiplicative };
std::unique_ptr<Scoring> make_scoring(ScoreKind kind, std::int64_t d_q, std::int64_t d_k, std::int64_t d_attn,
                                      Generator& gen = default_generator());
std::string score_kind_name(ScoreKind kind);

}  // namespace attnlab::nn
