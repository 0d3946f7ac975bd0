// attention_distance.cpp — see attention_distance.hpp.
#include "analyses/attention_distance.hpp"

#include "analyses/attention_stats.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

Tensor uniform_attention(const nn::Transformer& model, std::int64_t T) {
    const nn::Mask mask = model.attention_mask(T, T);
    const Tensor allowed = mask.empty() ? ones({T, T}) : mask.allowed();
    return allowed / sum(allowed, 1, true);
}

double AttentionDistance::layer_mean(std::int64_t l) const { return mean(per_head.select(0, l)).item(); }

AttentionDistance attention_distance(const nn::Transformer& model, const std::vector<std::vector<Tensor>>& sequences) {
    if (sequences.empty()) throw ValueError("attention_distance: no sequences");
    const std::int64_t L = static_cast<std::int64_t>(sequences[0].size()), H = sequences[0][0].size(0);
    AttentionDistance d;
    Tensor distance = zeros({L, H}, kFloat64);
    for (const std::vector<Tensor>& layers : sequences) {
        const Tensor w = stack(layers, 0).to(kFloat64);  // [L, H, T, T]
        d.uniform += sum(row_distance(uniform_attention(model, w.size(2)))).item();
        d.queries += static_cast<double>(w.size(2));
        distance = distance + sum(row_distance(w), 2);  // [L, H, T] -> [L, H]
    }
    d.per_head = distance / d.queries;
    d.uniform /= d.queries;
    return d;
}

AttentionDistance combine(const std::vector<AttentionDistance>& parts) {
    if (parts.empty()) throw ValueError("attention_distance combine: no parts");
    AttentionDistance d;
    Tensor total = zeros(parts[0].per_head.shape(), kFloat64);
    for (const AttentionDistance& p : parts) {
        total = total + p.per_head * p.queries;
        d.uniform += p.uniform * p.queries, d.queries += p.queries;
    }
    d.per_head = total / d.queries;
    d.uniform /= d.queries;
    return d;
}

plots::Figure attention_distance_chart(const AttentionDistance& d, const std::string& title, plots::Color color) {
    std::vector<std::string> labels;
    std::vector<double> values;
    for (std::int64_t l = 0; l < d.per_head.size(0); ++l)
        for (std::int64_t h = 0; h < d.per_head.size(1); ++h) {
            labels.push_back("layer " + std::to_string(l + 1) + " head " + std::to_string(h + 1));
            values.push_back(d.per_head.at({l, h}));
        }
    labels.push_back("uniform, same mask"), values.push_back(d.uniform);
    return plots::bar_chart(labels, values, {.title = title, .value_title = "mean |i - j| (tokens)", .horizontal = true, .color = color});
}

}  // namespace attnlab::lab
