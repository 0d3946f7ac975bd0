// attention_timeline.cpp — see attention_timeline.hpp.
#include "analyses/attention_timeline.hpp"

#include <cmath>

#include "analyses/attention_weights.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

void AttentionTimeline::record(std::int64_t step, nn::Transformer& model) {
    if (probe.empty()) throw ValueError("AttentionTimeline::record: no probe sentence (0 tokens)");
    steps.push_back(step), layers.push_back(attention_weights(model, probe));  // layers[l]: [H, T, T]
}

namespace {
// f(snapshot, layer weights [H, T, T]) -> one value per head, gathered as [snapshot][head].
template <class F>
std::vector<std::vector<double>> per_head(const AttentionTimeline& t, F&& f) {
    std::vector<std::vector<double>> out;
    for (std::size_t s = 0; s < t.layers.size(); ++s) {
        std::vector<double> row;
        for (std::size_t l = 0; l < t.layers[s].size(); ++l)
            for (double v : f(s, l).template to_vector<double>()) row.push_back(v);
        out.push_back(row);
    }
    return out;
}
}  // namespace

std::vector<std::vector<double>> head_entropy(const AttentionTimeline& t) {
    return per_head(t, [&](std::size_t s, std::size_t l) {
        const Tensor& A = t.layers[s][l];                                   // [H, T, T]
        const Tensor plogp = A * log(A + eq(A, zeros_like(A)));             // 0 log 0 = 0 (masked keys)
        return mean(neg(sum(plogp, 2)), 1);                                 // [H]
    });
}

std::vector<std::vector<double>> head_similarity_to_final(const AttentionTimeline& t) {
    return per_head(t, [&](std::size_t s, std::size_t l) {
        const std::int64_t H = t.layers[s][l].size(0);
        const Tensor a = t.layers[s][l].reshape({H, -1}), b = t.layers.back()[l].reshape({H, -1});  // [H, T*T]
        return sum(a * b, 1) / sqrt(sum(a * a, 1) * sum(b * b, 1));          // [H]
    });
}

std::int64_t settle_step(const std::vector<std::int64_t>& steps, const std::vector<double>& series, double tol) {
    if (steps.empty() || steps.size() != series.size())
        throw ValueError("settle_step: " + std::to_string(steps.size()) + " steps for " + std::to_string(series.size()) + " values");
    std::size_t i = series.size() - 1;
    while (i > 0 && std::abs(series[i - 1] - series.back()) <= tol) --i;
    return steps[i];
}

OnEval recording(AttentionTimeline& timeline, OnEval then) {
    return [&timeline, then = std::move(then)](std::int64_t step, nn::Transformer& model) {
        timeline.record(step, model);
        if (then) then(step, model);
    };
}

}  // namespace attnlab::lab
