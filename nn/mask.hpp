// mask.hpp — Mask: which (query, key) pairs attention may connect.
//
// One polarity everywhere: allowed = 1 = "may attend", blocked = 0. Applying a
// mask sets the blocked scores to −∞ before softmax, so they get exactly zero
// weight: a score of 0 would still get weight exp(0) > 0 after softmax. A query whose every key is blocked
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
//
// causal, local and strided are rules on (i, j), kept as rules: the Tq × Tk tensor is
// built only when someone asks for it (allowed(), apply(), additive()), once per mask
// and its copies. flash_attention reads the rules and never builds it, so a causal
// mask at T 4096 costs it nothing instead of 64 MiB. padding, from_allowed and
// from_additive are tensors; `&` keeps the rules of both sides and multiplies the tensors.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab::nn {

// One rule mask, [Tq, Tk]: query i sits at position p = offset + i. This is the one
// statement of the rule in the code: query i may see key j iff j lies in band(i) and
// p − j is a multiple of step():
//   causal   band [0, p]                    step 1     no peeking at the future
//   local    band [p − param, p + param]    step 1     a window of ±param around p
//   strided  band [0, Tk − 1]               step param every param-th key
// Mask::allowed() builds the Tq × Tk tensor from allows(); flash attention classifies its
// tiles from band() and step() (nn/flash_attention_mask.hpp), tested against allows().
struct MaskRule {
    enum class Kind { causal, local, strided };
    Kind kind;
    std::int64_t Tq, Tk, offset, param;  // param: the window (local), the stride (strided)
    struct Band {
        std::int64_t lo, hi;  // keys lo ..= hi; as i grows, lo and hi never fall and rise by at most 1
    };
    Band band(std::int64_t i) const {
        const std::int64_t p = offset + i;
        switch (kind) {
            case Kind::causal: return {0, p};
            case Kind::local: return {p - param, p + param};
            case Kind::strided: return {0, Tk - 1};
        }
        return {0, -1};
    }
    std::int64_t step() const { return kind == Kind::strided ? param : 1; }
    bool allows(std::int64_t i, std::int64_t j) const {
        const Band b = band(i);
        const std::int64_t s = step();
        return b.lo <= j && j <= b.hi && (s == 1 || (offset + i - j) % s == 0);  // s == 1: no division in flash's key loop
    }
};

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
    // The mask of sequences lo .. lo + n − 1 of the batch (a shard of it, nn/data_parallel.hpp):
    // a per-sequence tensor part [B, Tq, Tk] keeps those rows; a mask the same for every
    // sequence (rules, [Tq, Tk], or [1, Tq, Tk]) is returned as it is.
    Mask batch_rows(std::int64_t lo, std::int64_t n) const;

    bool empty() const { return rules_.empty() && !tensor_.defined(); }
    // float32 0/1, [Tq, Tk] or [B, Tq, Tk]: the rules and the tensor part together
    // (built on the first call, then shared by every copy of this mask).
    const Tensor& allowed() const;
    const std::vector<MaskRule>& rules() const { return rules_; }  // the rule parts, ANDed
    const Tensor& tensor_part() const { return tensor_; }          // the tensor part (undefined: none)
    Tensor additive(DType dtype = kFloat32) const;      // 0 where allowed, −∞ where blocked
    // scores with blocked entries set to −∞; scores [..., Tq, Tk] as described above.
    Tensor apply(const Tensor& scores) const;

private:
    explicit Mask(Tensor allowed) : tensor_(std::move(allowed)) {}
    explicit Mask(std::vector<MaskRule> rules, Tensor tensor = Tensor()) : rules_(std::move(rules)), tensor_(std::move(tensor)) {}
    struct Built {  // allowed(), built once however many copies and threads ask
        std::once_flag once;
        Tensor allowed;
    };
    std::vector<MaskRule> rules_;
    Tensor tensor_;
    std::shared_ptr<Built> built_ = std::make_shared<Built>();
};

}  // namespace attnlab::nn
