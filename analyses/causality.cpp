// causality.cpp — see causality.hpp.
#include "analyses/causality.hpp"

#include <algorithm>
#include <cmath>

#include "autograd/node.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

namespace attnlab::lab {

std::unique_ptr<nn::Transformer> with_mask(const nn::Transformer& model, bool causal, std::int64_t window, std::int64_t stride) {
    nn::TransformerConfig c = model.config();
    c.causal = causal, c.window = window, c.stride = stride;
    auto out = std::make_unique<nn::Transformer>(c);
    const auto src = model.named_parameters();
    const auto dst = out->named_parameters();
    NoGradGuard no_grad;
    for (std::size_t i = 0; i < dst.size(); ++i) {
        if (src[i].name != dst[i].name) throw ValueError("with_mask: parameter " + src[i].name + " vs " + dst[i].name);
        copy_(dst[i].tensor, src[i].tensor);
    }
    return out;
}

Tensor logits_of(nn::Transformer& model, const std::vector<std::int64_t>& ids) {
    NoGradGuard no_grad;
    return model.forward(from_vector(ids, {1, static_cast<std::int64_t>(ids.size())})).select(0, 0);  // [1, T, V] -> [T, V]
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
    const auto x = a.to_vector<double>(), y = b.to_vector<double>();
    double m = 0;
    for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
    return m;
}

std::vector<CausalityRow> check_causality(nn::Transformer& model, const std::vector<std::int64_t>& ids, std::int64_t first_token,
                                          std::uint64_t seed) {
    Generator gen(seed);
    const std::int64_t T = static_cast<std::int64_t>(ids.size()), V = model.config().vocab_size;
    if (first_token < 0 || V - first_token < 2)
        throw ValueError("check_causality: replacement ids from " + std::to_string(first_token) + " in a vocabulary of " +
                         std::to_string(V) + " leave fewer than 2 tokens to change one into another");
    const auto n = static_cast<std::uint64_t>(V - first_token);  // the ids a later token may become
    const Tensor reference = logits_of(model, ids);                // [T, V]
    std::vector<CausalityRow> rows;
    for (std::int64_t i = 0; i + 1 < T; ++i) {
        std::vector<std::int64_t> changed = ids, shuffled = ids;
        for (std::int64_t t = i + 1; t < T; ++t)  // a different token at every later position
            changed[t] = first_token + static_cast<std::int64_t>(
                                           (static_cast<std::uint64_t>(ids[t] - first_token) + 1 + gen.below(n - 1)) % n);
        for (std::int64_t t = T - 1; t > i + 1; --t)  // Fisher–Yates over positions i+1 .. T−1
            std::swap(shuffled[t], shuffled[i + 1 + static_cast<std::int64_t>(gen.below(static_cast<std::uint64_t>(t - i)))]);
        const Tensor a = logits_of(model, changed), b = logits_of(model, shuffled);
        rows.push_back({i, max_abs_diff(a.narrow(0, 0, i + 1), reference.narrow(0, 0, i + 1)),
                        max_abs_diff(b.narrow(0, 0, i + 1), reference.narrow(0, 0, i + 1)),
                        max_abs_diff(a.narrow(0, i + 1, T - i - 1), reference.narrow(0, i + 1, T - i - 1))});
    }
    return rows;
}

}  // namespace attnlab::lab
