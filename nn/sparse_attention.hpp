// sparse_attention.hpp — normalizers that turn scores into attention weights, and
// two of them give exact zeros: sparsemax and top-k softmax.
//
// softmax gives every key some weight, however small: exp(s) > 0 for any finite s.
// Two alternatives replace softmax with a
// selection that can give keys exactly zero weight:
//
//   sparsemax(z) = argmin_{p ∈ simplex} ‖p − z‖²   (Martins & Astudillo, 2016)
//               = max(z − τ, 0), with τ chosen so the result sums to 1.
//     Sort z descending; the support is the largest k with 1 + k·z_(k) > Σ_{j≤k} z_(j);
//     τ = (Σ_{j≤k} z_(j) − 1) / k. Keys scoring below τ get exactly 0.
//     Backward: on the support S, dz_i = g_i − mean_{j∈S} g_j; off it, dz_i = 0.
//     It is piecewise linear: its kinks are where a key enters or leaves the support.
//
//   topk_softmax(z, k) = softmax over the k largest scores, exactly 0 elsewhere;
//     composed from masked_fill and softmax, so autograd derives its backward.
//     Scores tied with the k-th largest are all kept (the selection is by value),
//     so a row may keep more than k keys when there are ties.
//
// All three take scores [..., Tk] and normalize over the last dim. A −∞ score
// (masked) gets weight 0, and a fully masked row gives zeros and zero gradient, the
// rule tensor/softmax.cpp sets for softmax.
#pragma once
#include <string>

#include "tensor/tensor.hpp"

namespace attnlab::nn {

// scores [..., Tk] -> weights [..., Tk] on the simplex, usually with exact zeros.
Tensor sparsemax(const Tensor& scores);

// scores [..., Tk] -> softmax over the k largest per row (k ≥ 1), zero elsewhere.
Tensor topk_softmax(const Tensor& scores, std::int64_t k);

// Which normalizer an attention layer applies to its scores.
struct Normalizer {
    enum class Kind { softmax, sparsemax, topk };
    Kind kind = Kind::softmax;
    std::int64_t k = 0;  // for topk

    static Normalizer softmax() { return {Kind::softmax, 0}; }
    static Normalizer sparsemax() { return {Kind::sparsemax, 0}; }
    static Normalizer topk(std::int64_t k) { return {Kind::topk, k}; }

    Tensor operator()(const Tensor& scores) const;  // over the last dim
    std::string name() const;                       // "softmax", "sparsemax", "top-2"
    bool operator==(const Normalizer&) const = default;
};

// Its spelling as flags (seq2seq train --normalizer, tinygpt train --normalizer) and checkpoint
// metadata write it: softmax, sparsemax, topk:K. The parser returns false on anything else.
std::string normalizer_flag(const Normalizer& n);
bool parse_normalizer(const std::string& s, Normalizer& out);

}  // namespace attnlab::nn
