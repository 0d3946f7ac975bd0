// attention_gradients.cpp — see attention_gradients.hpp.
#include "analyses/attention_gradients.hpp"

#include "autograd/node.hpp"
#include "analyses/attention_stats.hpp"
#include "nn/loss.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

namespace {

// Turns recording on for a block: the phases read models under NoGradGuard.
struct Recording {
    bool previous = GradMode::enabled();
    Recording() { GradMode::set_enabled(true); }
    ~Recording() { GradMode::set_enabled(previous); }
};

// Mean next-token cross-entropy of ids [T] in double: positions 0..T-2 predict 1..T-1.
Tensor next_token_loss(nn::Transformer& model, const std::vector<std::int64_t>& ids) {
    const std::int64_t T = static_cast<std::int64_t>(ids.size());
    const Tensor logits = model.forward(from_vector(ids, {1, T})).select(0, 0);  // [T, V]
    const Tensor targets = from_vector(std::vector<std::int64_t>(ids.begin() + 1, ids.end()), {T - 1});
    return nn::cross_entropy(to_dtype(logits.narrow(0, 0, T - 1), kFloat64), targets);
}

}  // namespace

AttentionGradients attention_gradients(nn::Transformer& model, const std::vector<std::int64_t>& ids) {
    if (ids.size() < 2) throw ValueError("attention_gradients: a next-token loss needs at least 2 tokens, got " + std::to_string(ids.size()));
    Recording recording;
    model.eval();
    model.zero_grad();
    nn::AttentionTrace& trace = model.trace();
    trace.enabled = trace.keep_graph = true;
    const Tensor loss = next_token_loss(model, ids);
    loss.backward();
    AttentionGradients g;
    g.loss = loss.item();
    const std::int64_t T = static_cast<std::int64_t>(ids.size());
    const nn::Mask mask = model.attention_mask(T, T);
    const Tensor allowed = mask.empty() ? ones({T, T}) : mask.allowed();  // [T, T]
    for (const Tensor& a : trace.layers) {
        const Tensor A = a.detach().select(0, 0), dA = a.grad().select(0, 0) * allowed;  // [H, T, T]
        g.weights.push_back(A), g.grads.push_back(dA);
        const Tensor pos = mean(relu(-(A * dA)), 0);                                // [T, T]
        const Tensor rows = sum(pos, 1, true);
        g.weighted.push_back(pos / (rows + eq(rows, zeros_like(rows))));  // a row with no positive part stays 0
    }
    trace.enabled = trace.keep_graph = false;
    trace.clear();
    model.zero_grad();
    std::vector<Tensor> one_head;
    for (const Tensor& w : g.weighted) one_head.push_back(w.unsqueeze(0));  // [1, T, T]: already averaged
    g.weighted_rollout = attention_rollout(one_head);
    g.plain_rollout = attention_rollout(g.weights);
    return g;
}

std::vector<GradientCheckEntry> check_by_central_differences(nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                                            const AttentionGradients& g, double eps) {
    NoGradGuard no_grad;
    model.eval();
    nn::AttentionTrace& trace = model.trace();
    std::vector<GradientCheckEntry> out;
    for (std::size_t l = 0; l < g.grads.size(); ++l) {
        const Tensor& dA = g.grads[l];  // [H, T, T]
        const std::int64_t H = dA.size(0), T = dA.size(1);
        for (std::int64_t h = 0; h < H; ++h) {
            const std::int64_t flat = static_cast<std::int64_t>(argmax(abs(dA.select(0, h)).reshape({T * T}), 0).item());
            GradientCheckEntry e{static_cast<std::int64_t>(l), h, flat / T, flat % T, dA.at({h, flat / T, flat % T}), 0};
            double L[2];
            for (int s = 0; s < 2; ++s) {
                Tensor E = zeros({1, H, T, T});
                fill_(E.select(0, 0).select(0, h).select(0, e.query).select(0, e.key), s == 0 ? eps : -eps);
                trace.enabled = true;
                trace.nudges.assign(g.grads.size(), Tensor());
                trace.nudges[l] = E;
                L[s] = next_token_loss(model, ids).item();
            }
            e.central = (L[0] - L[1]) / (2 * eps);
            out.push_back(e);
        }
    }
    trace.nudges.clear();
    trace.enabled = false;
    trace.clear();
    return out;
}

}  // namespace attnlab::lab
