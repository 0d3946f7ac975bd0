// induction.cpp — see induction.hpp.
#include "analyses/induction.hpp"

#include <string>

#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

namespace {

void check_weights(const Tensor& w, const char* who) {
    if (w.dim() != 4 || w.size(2) != w.size(3))
        throw ValueError(std::string(who) + ": weights must be [B, H, T, T], got " + w.shape().str());
}

}  // namespace

std::vector<double> previous_token_scores(const Tensor& weights) {
    check_weights(weights, "previous_token_scores");
    const std::int64_t B = weights.size(0), H = weights.size(1), T = weights.size(2);
    std::vector<double> out(static_cast<std::size_t>(H), 0.0);
    if (T < 2) return out;
    const std::vector<float> w = weights.contiguous().to(kFloat32).to_vector<float>();
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t i = 1; i < T; ++i) out[static_cast<std::size_t>(h)] += w[static_cast<std::size_t>(((b * H + h) * T + i) * T + i - 1)];
    for (double& s : out) s /= static_cast<double>(B * (T - 1));
    return out;
}

std::vector<double> induction_scores(const Tensor& weights, const Tensor& ids, const Tensor& queries) {
    check_weights(weights, "induction_scores");
    const std::int64_t B = weights.size(0), H = weights.size(1), T = weights.size(2);
    if (ids.dim() != 2 || ids.size(0) != B || ids.size(1) != T)
        throw ValueError("induction_scores: ids must be [B, T] = [" + std::to_string(B) + ", " + std::to_string(T) +
                         "], got " + ids.shape().str());
    if (queries.defined() && queries.shape() != ids.shape())
        throw ValueError("induction_scores: queries must have the shape of ids " + ids.shape().str() + ", got " +
                         queries.shape().str());
    const std::vector<float> w = weights.contiguous().to(kFloat32).to_vector<float>();
    const std::vector<std::int64_t> tok = ids.contiguous().to_vector<std::int64_t>();
    if (queries.defined() && queries.dtype() != kInt64)
        throw ValueError("induction_scores: queries must be int64 0 / 1, as ids");
    const std::vector<std::int64_t> chosen = queries.defined() ? queries.contiguous().to_vector<std::int64_t>() : std::vector<std::int64_t>();
    std::vector<double> out(static_cast<std::size_t>(H), 0.0);
    std::int64_t counted = 0;
    for (std::int64_t b = 0; b < B; ++b)
        for (std::int64_t i = 1; i < T; ++i) {
            if (!chosen.empty() && chosen[static_cast<std::size_t>(b * T + i)] == 0) continue;
            std::int64_t m = i - 1;  // the latest earlier occurrence of ids[b, i]
            while (m >= 0 && tok[static_cast<std::size_t>(b * T + m)] != tok[static_cast<std::size_t>(b * T + i)]) --m;
            if (m < 0) continue;
            ++counted;
            for (std::int64_t h = 0; h < H; ++h) out[static_cast<std::size_t>(h)] += w[static_cast<std::size_t>(((b * H + h) * T + i) * T + m + 1)];
        }
    if (counted > 0)
        for (double& s : out) s /= static_cast<double>(counted);
    return out;
}

double uniform_causal_score(std::int64_t T) {
    double s = 0;
    for (std::int64_t i = 1; i < T; ++i) s += 1.0 / static_cast<double>(i + 1);
    return T < 2 ? 0.0 : s / static_cast<double>(T - 1);
}

}  // namespace attnlab::lab
