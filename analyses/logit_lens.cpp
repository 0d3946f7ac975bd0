// logit_lens.cpp — see logit_lens.hpp.
#include "analyses/logit_lens.hpp"

#include <cmath>
#include <string>

#include "autograd/node.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

LogitLens logit_lens(nn::Transformer& model, const std::vector<std::int64_t>& ids) {
    const auto T = static_cast<std::int64_t>(ids.size());
    if (T == 0 || T > model.config().context)
        throw ValueError("logit_lens: " + std::to_string(T) + " tokens; the model reads 1 to " +
                         std::to_string(model.config().context));
    NoGradGuard no_grad;
    // The forward pass of nn::Transformer, keeping the residual stream between blocks.
    const Tensor row = from_vector(ids, Shape{1, T});
    Tensor x = model.tok_emb.forward(row) + model.pos_emb.forward(arange(T));  // [1, T, d_model]
    const nn::Mask mask = model.attention_mask(T, T);
    std::vector<Tensor> stream{x};
    for (auto& block : model.blocks) stream.push_back(x = block->forward(x, mask));
    LogitLens lens;
    for (const Tensor& s : stream)
        lens.probs.push_back(softmax(model.head.forward(model.ln_f.forward(s)), -1).select(0, 0).contiguous());  // [T, V]
    const std::int64_t V = lens.probs.front().size(1);
    for (const Tensor& p : lens.probs) {
        const std::vector<float> v = p.to_vector<float>();
        std::vector<std::int64_t> top(static_cast<std::size_t>(T), 0);
        for (std::int64_t t = 0; t < T; ++t)
            for (std::int64_t k = 1; k < V; ++k)
                if (v[static_cast<std::size_t>(t * V + k)] > v[static_cast<std::size_t>(t * V + top[static_cast<std::size_t>(t)])])
                    top[static_cast<std::size_t>(t)] = k;
        lens.top.push_back(top);
    }
    for (const Tensor& p : lens.probs) {
        const std::vector<float> v = p.to_vector<float>();
        std::vector<double> f;
        for (std::int64_t t = 0; t < T; ++t) f.push_back(v[static_cast<std::size_t>(t * V + lens.top.back()[static_cast<std::size_t>(t)])]);
        lens.final_token_prob.push_back(f);
    }
    return lens;
}

double kl_divergence(const std::vector<double>& p, const std::vector<double>& q) {
    if (p.size() != q.size())
        throw ValueError("kl_divergence: " + std::to_string(p.size()) + " and " + std::to_string(q.size()) + " probabilities");
    double kl = 0;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] > 0) kl += q[i] > 0 ? p[i] * std::log(p[i] / q[i]) : INFINITY;
    return kl;
}

}  // namespace attnlab::lab
