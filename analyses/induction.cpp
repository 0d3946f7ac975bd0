// induction.cpp — see induction.hpp.
#include "analyses/induction.hpp"

#include <string>

#include "autograd/node.hpp"
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

RepeatedRows repeated_random_rows(std::int64_t rows, std::int64_t n, std::int64_t lo, std::int64_t hi,
                                  const std::vector<std::int64_t>& prefix, Generator& gen) {
    if (rows < 1 || n < 1 || lo >= hi)
        throw ValueError("repeated_random_rows: " + std::to_string(rows) + " rows of " + std::to_string(n) +
                         " tokens from [" + std::to_string(lo) + ", " + std::to_string(hi) + "); needs rows, n >= 1 and lo < hi");
    const auto P = static_cast<std::int64_t>(prefix.size()), T = P + 2 * n;
    std::vector<std::int64_t> ids, repeat;
    for (std::int64_t b = 0; b < rows; ++b) {
        std::vector<std::int64_t> x;
        for (std::int64_t i = 0; i < n; ++i) x.push_back(lo + static_cast<std::int64_t>(gen.below(static_cast<std::uint64_t>(hi - lo))));
        ids.insert(ids.end(), prefix.begin(), prefix.end());
        ids.insert(ids.end(), x.begin(), x.end());
        ids.insert(ids.end(), x.begin(), x.end());
        for (std::int64_t t = 0; t < T; ++t) repeat.push_back(t >= P + n);
    }
    return {from_vector(ids, {rows, T}), from_vector(repeat, {rows, T})};
}

HeadScores head_scores(nn::Transformer& model, const Tensor& ids, const Tensor& queries) {
    NoGradGuard no_grad;
    const bool was_training = model.is_training();
    model.eval();
    model.trace().enabled = true;
    model.trace().clear();
    model.forward(ids);
    HeadScores s;
    for (const Tensor& w : model.trace().layers) {  // [B, H, T, T]
        s.previous.push_back(previous_token_scores(w));
        s.induction.push_back(induction_scores(w, ids, queries));
    }
    model.trace().enabled = false;
    model.trace().clear();
    model.train(was_training);
    return s;
}

}  // namespace attnlab::lab
