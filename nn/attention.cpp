// attention.cpp — see attention.hpp.
#include "nn/attention.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "nn/flash_attention.hpp"
#include "tensor/ops.hpp"
#include "tensor/reference.hpp"

namespace attnlab::nn {

// 1/√d_k keeps the scores' variance near 1 whatever the head width: q · k sums d_k
// products of unit-variance terms, so unscaled scores grow like √d_k and saturate softmax.
double attention_scale(const char* op, std::int64_t d_k, std::optional<double> scale) {
    const double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(std::max<std::int64_t>(d_k, 1))));
    if (!std::isfinite(s) || s < 0)
        throw ValueError(std::string(op) + ": scale must be a finite number >= 0, got " + std::to_string(s));
    return s;
}

AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Mask& mask,
                                             std::optional<double> scale, const Normalizer& normalize) {
    if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2 || q.size(-1) != k.size(-1) || k.size(-2) != v.size(-2))
        throw ShapeError("scaled_dot_product_attention: expected q [..., Tq, d_k], k [..., Tk, d_k], v [..., Tk, d_v]; got q " +
                         q.shape().str() + ", k " + k.shape().str() + ", v " + v.shape().str());
    const double s = attention_scale("scaled_dot_product_attention", q.size(-1), scale);
    Tensor scores = matmul(q, k.mT()) * s;        // [..., Tq, Tk]: score_ij = q_i · k_j, scaled
    Tensor weights = normalize(mask.apply(scores));  // softmax over Tk; blocked pairs -> −∞ -> weight exactly 0
    return {matmul(weights, v), weights};          // output_i = Σ_j weight_ij v_j
}

// The first two lines above. Not called from there: the scores tensor living until the
// weighted sum is part of what phase 5 step 11 measures as the composed path's memory.
Tensor attention_weights(const Tensor& q, const Tensor& k, const Mask& mask, std::optional<double> scale,
                         const Normalizer& normalize) {
    const double s = attention_scale("attention_weights", q.size(-1), scale);
    return normalize(mask.apply(matmul(q, k.mT()) * s));  // [..., Tq, Tk]
}

AttentionResult scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const Tensor& additive_mask, std::optional<double> scale) {
    return scaled_dot_product_attention(q, k, v, Mask::from_additive(additive_mask), scale);
}

void AttentionTrace::record(std::size_t layer, const Tensor& weights) {
    if (!enabled) return;
    if (layers.size() <= layer) layers.resize(layer + 1);
    layers[layer] = keep_graph ? weights : weights.detach();
    if (keep_graph && weights.requires_grad()) layers[layer].retain_grad();
}

SelfAttention::SelfAttention(std::int64_t d_model_, std::int64_t d_k_, Generator& gen)
    : d_model(d_model_), d_k(d_k_ ? d_k_ : d_model_),
      w_q(d_model_, d_k, false, gen), w_k(d_model_, d_k, false, gen), w_v(d_model_, d_model_, false, gen) {
    register_module("w_q", w_q);
    register_module("w_k", w_k);
    register_module("w_v", w_v);
}

AttentionResult SelfAttention::forward(const Tensor& x, const Mask& mask, std::optional<double> scale) const {
    // Q = X W_Q, K = X W_K, V = X W_V: every token gets its own q, k, v
    return scaled_dot_product_attention(w_q.forward(x), w_k.forward(x), w_v.forward(x), mask, scale);
}

static std::int64_t head_width(std::int64_t d_model, std::int64_t n_heads) {
    if (n_heads <= 0 || d_model % n_heads != 0)
        throw ValueError("MultiHeadAttention: d_model " + std::to_string(d_model) + " is not divisible by n_heads " +
                         std::to_string(n_heads));
    return d_model / n_heads;
}

MultiHeadAttention::MultiHeadAttention(std::int64_t d_model_, std::int64_t n_heads_, std::int64_t kdim,
                                       std::int64_t vdim, Generator& gen, bool qkv_only_)
    : d_model(d_model_), n_heads(n_heads_), d_k(head_width(d_model_, n_heads_)), qkv_only(qkv_only_),
      w_q(d_model_, d_model_, !qkv_only_, gen), w_k(kdim ? kdim : d_model_, d_model_, !qkv_only_, gen),
      w_v(vdim ? vdim : d_model_, d_model_, !qkv_only_, gen) {
    register_module("w_q", w_q);
    register_module("w_k", w_k);
    register_module("w_v", w_v);
    // Drawn after W_V, as a member initialised after it would be; a qkv_only head has none.
    if (!qkv_only) register_module("w_o", w_o.emplace(d_model_, d_model_, true, gen));
}

const char* attention_path_name(AttentionPath p) {
    switch (p) {
        case AttentionPath::composed: return "composed";
        case AttentionPath::fused: return "fused";
        default: return "none";
    }
}

AttentionPathChoice MultiHeadAttention::choose_path(bool weights_wanted) const {
    if (reference_mode()) return {AttentionPath::composed, "reference mode: the readable formula, never the fused kernel"};
    if (trace_ && trace_->enabled) return {AttentionPath::composed, "the attention trace is enabled: it records the weights"};
    if (is_training() && dropout > 0)
        return {AttentionPath::composed, "dropout in training drops attention weights, which the fused kernel never forms"};
    if (normalizer.kind != Normalizer::Kind::softmax)
        return {AttentionPath::composed, "the fused kernel computes softmax only; another normalizer runs the formula"};
    if (weights_wanted) return {AttentionPath::composed, "forward() returns the weights"};
    return {AttentionPath::fused, "forward_output(): nobody asked for the weights"};
}

void MultiHeadAttention::set_head_mask(const std::vector<bool>& enabled) {
    if (static_cast<std::int64_t>(enabled.size()) != n_heads)
        throw ValueError("set_head_mask: " + std::to_string(enabled.size()) + " flags for " + std::to_string(n_heads) + " heads");
    std::vector<float> m(enabled.begin(), enabled.end());
    head_mask_ = from_vector(m, {1, n_heads, 1, 1});
}

AttentionResult MultiHeadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                            const Mask& mask, KVCache* cache) {
    return attend(query, key, value, mask, cache, true);
}

Tensor MultiHeadAttention::forward_output(const Tensor& query, const Tensor& key, const Tensor& value, const Mask& mask,
                                          KVCache* cache) {
    return attend(query, key, value, mask, cache, false).output;
}

AttentionResult MultiHeadAttention::attend(const Tensor& query, const Tensor& key, const Tensor& value, const Mask& mask,
                                           KVCache* cache, bool weights_wanted) {
    if (query.dim() != 3 || key.dim() != 3 || value.dim() != 3 || key.size(0) != query.size(0) ||
        value.size(0) != query.size(0) || key.size(1) != value.size(1))
        throw ShapeError("MultiHeadAttention: expected query [B, Tq, d_model], key [B, Tk, kdim], value [B, Tk, vdim]; got " +
                         query.shape().str() + ", " + key.shape().str() + ", " + value.shape().str());
    const std::int64_t B = query.size(0), Tq = query.size(1), Tk = key.size(1);
    // 1. project, and split d_model into H heads of d_k: [B, T, d_model] -> [B, H, T, d_k]
    auto split_heads = [&](const Tensor& t, std::int64_t T) { return t.view({B, T, n_heads, d_k}).transpose(1, 2); };
    Tensor q = split_heads(w_q.forward(query), Tq);
    Tensor k = split_heads(w_k.forward(key), Tk);
    Tensor v = split_heads(w_v.forward(value), Tk);
    if (cache) {  // prepend the cached positions: keys/values are computed once per token
        if (cache->length()) {
            k = cat({cache->k, k}, 2);
            v = cat({cache->v, v}, 2);
        }
        cache->k = k.detach(), cache->v = v.detach();
    }
    // 2. attend in every head at once: output [B, H, Tq, d_k]. The one dispatch point: the fused
    //    kernel is exact softmax only, so sparsemax takes the composed path, in train and eval mode.
    last_path_ = choose_path(weights_wanted);
    AttentionResult heads;
    if (is_training() && dropout > 0) {  // the weights, then one weighted sum of the values with the survivors
        if (!dropout_gen) throw ValueError("MultiHeadAttention: dropout " + std::to_string(dropout) + " in training needs dropout_gen");
        heads.weights = attention_weights(q, k, mask, scale, normalizer);        // [B, H, Tq, Tk]
        heads.output = matmul(nn::dropout(heads.weights, dropout, *dropout_gen), v);  // [B, H, Tq, d_k]
    } else {
        if (last_path_.path == AttentionPath::composed) heads = scaled_dot_product_attention(q, k, v, mask, scale, normalizer);
        else heads = {flash_attention(q, k, v, mask, scale), Tensor()};  // fast path: see nn/flash_attention.cpp; the line above is what it computes
    }
    if (trace_) trace_->record(layer_, heads.weights);
    if (trace_ && trace_->nudge(layer_).defined()) heads.output = heads.output + matmul(trace_->nudge(layer_), v);  // (A + E) v
    Tensor out = head_mask_.defined() ? heads.output * head_mask_ : heads.output;
    if (heads_hook) out = heads_hook(out);  // activation patching reads or replaces each head's output here
    // 3. concatenate the heads back to [B, Tq, d_model] and 4. project with W_O
    out = out.transpose(1, 2).reshape({B, Tq, d_model});
    return {qkv_only ? out : w_o->forward(out), heads.weights};
}

}  // namespace attnlab::nn
