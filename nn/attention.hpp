// attention.hpp — scaled dot-product attention, single-head and multi-head layers.
//
//   Attention(Q, K, V) = softmax(Q Kᵀ · scale + mask) V,   scale = 1/√d_k by default
//
// softmax is the default normalizer of the scores; sparsemax (nn/sparse_attention.hpp)
// may take its place, giving keys exact zeros.
// scaled_dot_product_attention is the formula itself, on tensors shaped
// [..., Tq, d_k] (queries) and [..., Tk, d_k] / [..., Tk, d_v] (keys / values).
// SelfAttention is the seed's single head (Q = X W_Q, K = X W_K, V = X W_V, no bias);
// MultiHeadAttention is Vaswani et al.'s: project, split into H heads of
// d_k = d_model / H, attend in parallel, concatenate, project with W_O. Its query
// and key/value inputs may be different sequences of different lengths
// (cross-attention), with their own widths (kdim, vdim).
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "nn/layers.hpp"
#include "nn/mask.hpp"
#include "nn/sparse_attention.hpp"

namespace attnlab::nn {

struct AttentionResult {
    Tensor output;   // [..., Tq, d_v]  (MultiHeadAttention: [B, Tq, d_model])
    Tensor weights;  // [..., Tq, Tk]   (MultiHeadAttention: [B, H, Tq, Tk]), rows sum to 1 (0 if fully masked)
};

// scale, or 1/√d_k when absent; a NaN, infinite or negative scale is a ValueError
// naming `op` (both attention paths check it the same way).
double attention_scale(const char* op, std::int64_t d_k, std::optional<double> scale);

// q [..., Tq, d_k], k [..., Tk, d_k], v [..., Tk, d_v]; batch dims broadcast.
// scale: 1/√d_k unless given (1.0 gives the unscaled variant of the phase-1 experiment).
// normalize: what turns each row of scores into weights (softmax unless given).
AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const Mask& mask = Mask(), std::optional<double> scale = std::nullopt,
                                             const Normalizer& normalize = Normalizer::softmax());
// Its first half alone: normalize(mask(q kᵀ · scale)) -> weights [..., Tq, Tk]. Dropout in
// training uses it, so that the values are mixed once, by the surviving weights.
Tensor attention_weights(const Tensor& q, const Tensor& k, const Mask& mask = Mask(), std::optional<double> scale = std::nullopt,
                         const Normalizer& normalize = Normalizer::softmax());
// The same with an additive float mask (0 / −∞ only; see Mask::from_additive).
AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const Tensor& additive_mask, std::optional<double> scale = std::nullopt);

// Per-layer attention weights of a model, recorded when enabled, so that plots,
// rollout and the explorer read them from one place.
struct AttentionTrace {
    bool enabled = false;
    std::vector<Tensor> layers;  // layers[l]: [B, H, Tq, Tk], detached (unless keep_graph)
    // Gradients through attention (analyses/attention_gradients): keep_graph records the weights
    // still in the graph and marked retain_grad(), so backward() leaves dL/dA in their .grad();
    // nudges[l], when defined ([B, H, Tq, Tk]), is added to layer l's weights before they mix
    // the values (A + E), which lets a central-difference check move one entry of A.
    bool keep_graph = false;
    std::vector<Tensor> nudges;
    void record(std::size_t layer, const Tensor& weights);
    Tensor nudge(std::size_t layer) const { return enabled && layer < nudges.size() ? nudges[layer] : Tensor(); }
    void clear() { layers.clear(); }
};

// Reads, and may replace, an activation in the middle of a forward pass: called with the
// activation, it returns what the forward goes on with. Activation patching
// (analyses/patching.hpp) sets one to record a clean run and to overwrite a corrupted one.
using ActivationHook = std::function<Tensor(const Tensor&)>;

// Keys and values of the positions seen so far, for incremental decoding.
struct KVCache {
    Tensor k, v;  // [B, H, T_past, d_k]; undefined while empty
    std::int64_t length() const { return k.defined() ? k.size(2) : 0; }
    void clear() { k = Tensor(), v = Tensor(); }
};

// The seed's single head: W_Q, W_K: d_model -> d_k, W_V: d_model -> d_model (so the
// output has the input's shape), no bias: 3·d_model² parameters when d_k = d_model.
// Stored as Linear weights [out, in], i.e. the transposes of the seed's W ∈ R^(d_model × d_k).
class SelfAttention : public Module {
public:
    explicit SelfAttention(std::int64_t d_model, std::int64_t d_k = 0, Generator& gen = default_generator());
    // x [..., T, d_model] -> output [..., T, d_model], weights [..., T, T]
    AttentionResult forward(const Tensor& x, const Mask& mask = Mask(), std::optional<double> scale = std::nullopt) const;
    std::int64_t d_model, d_k;
    Linear w_q, w_k, w_v;
};

// Which kernel a MultiHeadAttention forward ran, and why (PyTorch users cannot
// tell which SDPA path ran; here the layer says).
enum class AttentionPath { none, composed, fused };
struct AttentionPathChoice {
    AttentionPath path = AttentionPath::none;  // none: no forward yet
    const char* reason = "no forward has run yet";
};
const char* attention_path_name(AttentionPath p);  // "composed", "fused", "none"

// The seed's layer, run by one of two kernels that compute the same function:
//   composed  scaled_dot_product_attention: forms the [B, H, Tq, Tk] weights, so it
//             can return them; taken whenever someone asks for the weights.
//   fused     flash_attention (nn/flash_attention.hpp): O(T) memory, no weights;
//             taken otherwise (training steps, generation without a trace), for softmax
//             only: its online softmax has no sparsemax counterpart.
// Who asks: the caller, by calling forward(), which returns the weights (a caller
// that needs only the output calls forward_output(), as a transformer Block does),
// and the attention trace, while it is enabled.
class MultiHeadAttention : public Module {
public:
    // kdim / vdim: widths of the key / value inputs (0 = d_model). 4·d² + 4·d parameters when both are d.
    // qkv_only: the seed's single head generalised: W_Q, W_K, W_V without bias and no W_O (the
    // concatenated heads are the output): 3·d² parameters. w_o is then empty: never drawn, stored or used.
    MultiHeadAttention(std::int64_t d_model, std::int64_t n_heads, std::int64_t kdim = 0, std::int64_t vdim = 0,
                       Generator& gen = default_generator(), bool qkv_only = false);

    // query [B, Tq, d_model], key [B, Tk, kdim], value [B, Tk, vdim] -> output [B, Tq, d_model],
    // weights [B, H, Tq, Tk] (the composed path). With a cache, key/value are the new positions only; the cache
    // supplies the earlier ones and is extended.
    AttentionResult forward(const Tensor& query, const Tensor& key, const Tensor& value, const Mask& mask = Mask(),
                            KVCache* cache = nullptr);
    AttentionResult forward(const Tensor& x, const Mask& mask = Mask(), KVCache* cache = nullptr) {
        return forward(x, x, x, mask, cache);
    }
    // The output alone, [B, Tq, d_model]: the fused path, unless the trace is recording.
    Tensor forward_output(const Tensor& query, const Tensor& key, const Tensor& value, const Mask& mask = Mask(),
                          KVCache* cache = nullptr);
    Tensor forward_output(const Tensor& x, const Mask& mask = Mask(), KVCache* cache = nullptr) {
        return forward_output(x, x, x, mask, cache);
    }

    // Switch heads off (their output is zeroed before W_O), for the pruning experiment.
    void set_head_mask(const std::vector<bool>& enabled);
    void set_trace(AttentionTrace* trace, std::size_t layer) { trace_ = trace, layer_ = layer; }
    // When set, called with each head's output [B, H, Tq, d_k] before W_O mixes them.
    ActivationHook heads_hook;

    // Which path the last forward took and why.
    const AttentionPathChoice& last_path() const { return last_path_; }

    std::int64_t d_model, n_heads, d_k;
    bool qkv_only;
    Linear w_q, w_k, w_v;
    std::optional<Linear> w_o;  // empty when qkv_only
    std::optional<double> scale;  // of the scores; nullopt: 1/√d_k (1.0: the unscaled variant)
    Normalizer normalizer;        // scores -> weights: softmax (the default) or sparsemax
    // In train mode: each attention weight is dropped with probability `dropout` (after the
    // softmax, before it mixes the values), drawing from *dropout_gen, which must then be set.
    double dropout = 0;
    Generator* dropout_gen = nullptr;

private:
    AttentionPathChoice choose_path(bool weights_wanted) const;
    AttentionResult attend(const Tensor& query, const Tensor& key, const Tensor& value, const Mask& mask, KVCache* cache,
                           bool weights_wanted);
    AttentionPathChoice last_path_;
    Tensor head_mask_;  // [1, H, 1, 1] of 0/1, undefined = all heads on
    AttentionTrace* trace_ = nullptr;
    std::size_t layer_ = 0;
};

}  // namespace attnlab::nn
