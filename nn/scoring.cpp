// scoring.cpp — see scoring.hpp.
#include "nn/scoring.hpp"

#include <cmath>

#include "tensor/ops.hpp"

namespace attnlab::nn {

static void check_pair(const char* who, const Tensor& query, const Tensor& prepared, bool same_width) {
    if (query.dim() != 3 || prepared.dim() != 3 || query.size(0) != prepared.size(0) ||
        (same_width && query.size(2) != prepared.size(2)))
        throw ShapeError(std::string(who) + ": expected query [B, Tq, d] and keys [B, Tk, d]" +
                         (same_width ? " of one width d" : "") + "; got " + query.shape().str() + " and " +
                         prepared.shape().str());
}

Tensor Scoring::weights(const Tensor& query, const Tensor& prepared, const Mask& mask, const Normalizer& normalize) const {
    return normalize(mask.apply(score(query, prepared)));  // blocked keys: −∞ -> weight exactly 0
}

Tensor DotScoring::score(const Tensor& query, const Tensor& keys) const {
    check_pair("DotScoring", query, keys, true);
    return matmul(query, keys.mT());  // [B, Tq, d] @ [B, d, Tk] -> [B, Tq, Tk]
}

Tensor ScaledDotScoring::score(const Tensor& query, const Tensor& keys) const {
    check_pair("ScaledDotScoring", query, keys, true);
    return matmul(query, keys.mT()) * (1.0 / std::sqrt(static_cast<double>(query.size(2))));
}

AdditiveScoring::AdditiveScoring(std::int64_t d_q, std::int64_t d_k, std::int64_t d_attn, Generator& gen)
    : w_s(d_q, d_attn, false, gen), w_h(d_k, d_attn, true, gen), v(d_attn, 1, false, gen) {
    register_module("w_s", w_s);
    register_module("w_h", w_h);
    register_module("v", v);
}

Tensor AdditiveScoring::prepare(const Tensor& keys) const { return w_h.forward(keys); }

Tensor AdditiveScoring::score(const Tensor& query, const Tensor& prepared) const {
    check_pair("AdditiveScoring", query, prepared, false);
    return additive_scores(w_s.forward(query), prepared, v.weight.squeeze(0));  // [B, Tq, Tk]
}

Tensor AdditiveScoring::score_composed(const Tensor& query, const Tensor& prepared) const {
    check_pair("AdditiveScoring", query, prepared, false);
    Tensor s = w_s.forward(query).unsqueeze(2);            // [B, Tq, 1, d_attn]
    Tensor hidden = tanh(s + prepared.unsqueeze(1));       // [B, Tq, Tk, d_attn]: every (query, key) pair
    return v.forward(hidden).squeeze(-1);                  // [B, Tq, Tk]
}

MultiplicativeScoring::MultiplicativeScoring(std::int64_t d_q, std::int64_t d_k, Generator& gen) : w(d_k, d_q, false, gen) {
    register_module("w", w);
}

Tensor MultiplicativeScoring::prepare(const Tensor& keys) const { return w.forward(keys); }

Tensor MultiplicativeScoring::score(const Tensor& query, const Tensor& prepared) const {
    check_pair("MultiplicativeScoring", query, prepared, true);
    return matmul(query, prepared.mT());  // sᵀ (W h)  [B, Tq, Tk]
}

std::unique_ptr<Scoring> make_scoring(ScoreKind kind, std::int64_t d_q, std::int64_t d_k, std::int64_t d_attn,
                                      Generator& gen) {
    if ((kind == ScoreKind::dot || kind == ScoreKind::scaled_dot) && d_q != d_k)
        throw ValueError("make_scoring: " + score_kind_name(kind) + " scoring needs d_q = d_k, got " +
                         std::to_string(d_q) + " and " + std::to_string(d_k));
    switch (kind) {
        case ScoreKind::dot: return std::make_unique<DotScoring>();
        case ScoreKind::scaled_dot: return std::make_unique<ScaledDotScoring>();
        case ScoreKind::additive: return std::make_unique<AdditiveScoring>(d_q, d_k, d_attn, gen);
        case ScoreKind::multiplicative: return std::make_unique<MultiplicativeScoring>(d_q, d_k, gen);
    }
    throw ValueError("make_scoring: unknown kind");
}

std::string score_kind_name(ScoreKind kind) {
    switch (kind) {
        case ScoreKind::dot: return "dot";
        case ScoreKind::scaled_dot: return "scaled dot";
        case ScoreKind::additive: return "additive";
        case ScoreKind::multiplicative: return "multiplicative";
    }
    return "?";
}

}  // namespace attnlab::nn
