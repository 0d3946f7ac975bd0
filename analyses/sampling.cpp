// sampling.cpp — see sampling.hpp.
#include "analyses/sampling.hpp"

#include <cmath>

#include "tensor/error.hpp"

namespace attnlab::lab {

std::vector<SamplingSetting> standard_sampling_settings() {
    const auto at = [](double t, std::int64_t k, double p) {
        nn::GenerateOptions o;
        o.temperature = t, o.top_k = k, o.top_p = p;
        return o;
    };
    return {{"T 0.5", at(0.5, 0, 1)}, {"T 1", at(1, 0, 1)}, {"T 2", at(2, 0, 1)},
            {"top-k 5", at(1, 5, 1)}, {"top-p 0.9", at(1, 0, 0.9)}};
}

std::vector<SampledDistribution> sampling_distributions(const Tensor& logits, const std::vector<SamplingSetting>& settings) {
    if (logits.dim() != 1) throw ValueError("sampling_distributions: logits must be [V], got " + logits.shape().str());
    std::vector<SampledDistribution> out;
    for (const SamplingSetting& s : settings) {
        SampledDistribution d{s.name, nn::next_token_distribution(logits, s.options), 0, 0};
        d.entropy = entropy(d.probs);
        for (double p : d.probs) d.kept += p > 0;
        out.push_back(std::move(d));
    }
    return out;
}

double entropy(const std::vector<double>& p) {
    double h = 0;
    for (double x : p)
        if (x > 0) h -= x * std::log(x);
    return h;
}

double total_variation(const std::vector<double>& p, const std::vector<double>& q) {
    if (p.size() != q.size())
        throw ValueError("total_variation: " + std::to_string(p.size()) + " and " + std::to_string(q.size()) + " probabilities");
    double d = 0;
    for (std::size_t i = 0; i < p.size(); ++i) d += std::abs(p[i] - q[i]);
    return d / 2;
}

}  // namespace attnlab::lab
