// mask.hpp — Mask: which (query, key) pairs attention may connect.
//
// One polarity everywhere: allowed = 1 = "may attend", blocked = 0. Applying a
// mask sets the blocked scores to −∞ before softmax, so they get exactly zero
// weight (seed 000: "Why −∞ instead of zero?"). A query whose every key is blocked
// gets a zero output row, zero weights and zero gradient (tensor/softmax.cpp's rule).
//
// Shapes: a mask is [Tq, Tk] (the same for every sequence, e.g. causal) or
// [B, Tq, Tk] with Tq possibly 1 (per sequence, e.g. padding). Applied to scores
// [B, Tq, Tk] or [B, H, Tq, Tk], a per-sequence mask lines its B up with the
// scores' first dim and is shared by all heads. An empty Mask() allows everything.
//
// Builders take an `offset`: query row i sits at absolute position offset + i.
// It defaults to Tk − Tq — the queries are the last Tq of the Tk positions — which
// is what KV-cached decoding needs (1 new query against all cached keys).
#pragma once
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab::nn {

class Mask {
public:
    Mask() = default;  // no mask: everything allowed

    static constexpr std::int64_t kAuto = -1;  // offset = Tk − Tq
    // Key j visible to query i iff j ≤ offset + i (no peeking at the future).
    static Mask causal(std::int64_t Tq, std::int64_t Tk, std::int64_t offset = kAuto);
    static Mask causal(std::int64_t T) { return causal(T, T, 0); }
    // Per sequence b, keys j < lengths[b] are real tokens; the rest is padding. -> [B, 1, Tk]
    static Mask padding(const std::vector<std::int64_t>& lengths, std::int64_t Tk);
    // |offset + i − j| ≤ window: a band around the diagonal.
    static Mask local(std::int64_t Tq, std::int64_t Tk, std::int64_t window, std::int64_t offset = kAuto);
    // (offset + i − j) divisible by stride: every stride-th position (Sparse Transformer's strided pattern).
    static Mask strided(std::int64_t Tq, std::int64_t Tk, std::int64_t stride, std::int64_t offset = kAuto);
    // From a tensor whose nonzero entries mean "allowed".
    static Mask from_allowed(const Tensor& allowed);
    // From an additive float mask, as PyTorch's attn_mask: every entry must be 0 (allowed)
    // or −∞ (blocked); anything else (e.g. −1e9) is a ValueError naming the value.
    static Mask from_additive(const Tensor& additive);

    Mask operator&(const Mask& other) const;  // allowed where both allow (AND)

    bool empty() const { return !allowed_.defined(); }
    const Tensor& allowed() const { return allowed_; }  // float32 0/1
    Tensor additive(DType dtype = kFloat32) const;      // 0 where allowed, −∞ where blocked
    // scores with blocked entries set to −∞; scores [..., Tq, Tk] as described above.
    Tensor apply(const Tensor& scores) const;

private:
    explicit Mask(Tensor allowed) : allowed_(std::move(allowed)) {}
    Tensor allowed_;
};

}  // namespace attnlab::nn
