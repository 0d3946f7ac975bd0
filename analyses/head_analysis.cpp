// head_analysis.cpp — see head_analysis.hpp.
#include "analyses/head_analysis.hpp"

#include <cmath>

#include "analyses/attention_stats.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

HeadProfile profile_heads(const Tensor& weights) {
    if (weights.dim() != 3 || weights.size(1) != weights.size(2))
        throw ShapeError("profile_heads: expected weights [H, T, T], got " + weights.shape().str());
    auto per_head = [](const Tensor& per_query) { return mean(per_query, -1).to_vector<double>(); };  // [H, T] -> H values
    HeadProfile p;
    p.max_entropy = std::log(static_cast<double>(weights.size(-1)));
    p.entropy = per_head(row_entropy(weights));
    p.self = per_head(diagonal_mass(weights));
    p.local = per_head(local_mass(weights));
    p.previous = per_head(previous_mass(weights));
    for (std::size_t h = 0; h < p.entropy.size(); ++h) {
        p.global.push_back(1.0 - p.local[h]);
        p.kind.push_back(p.entropy[h] < 0.5 * p.max_entropy ? "focused" : "diffuse");
    }
    return p;
}

std::vector<SweepPoint> heads_sweep(const TrainConfig& base, const std::vector<std::int64_t>& heads) {
    std::vector<SweepPoint> out;
    for (std::int64_t h : heads) {
        TrainConfig c = base;
        c.n_heads = h;
        c.out.clear();  // nothing to resume: the sweep keeps only the numbers
        TrainResult r = train(c);
        SweepPoint pt{h, c.d_model / h, r.model->parameter_count(), r.final_eval, r.seconds, {}};
        for (const TrainPoint& step : r.curve) pt.losses.push_back(step.loss);
        out.push_back(std::move(pt));
    }
    return out;
}

}  // namespace attnlab::lab
