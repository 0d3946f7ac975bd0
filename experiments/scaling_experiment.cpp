// scaling_experiment.cpp — see scaling_experiment.hpp.
#include "experiments/scaling_experiment.hpp"

#include <algorithm>
#include <cmath>

#include "autograd/node.hpp"
#include "nn/attention.hpp"
#include "analyses/attention_stats.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

namespace attnlab::lab {

using namespace attnlab::nn;  // an experiment is written in nn's words: layers, losses, optimizers

namespace {
// Both functions below differentiate, so they record gradients even when the caller
// has turned recording off (a phase running under NoGradGuard): torch.enable_grad().
struct EnableGrad {
    bool previous = GradMode::enabled();
    EnableGrad() { GradMode::set_enabled(true); }
    ~EnableGrad() { GradMode::set_enabled(previous); }
};
}  // namespace

ScalingStats measure_scaling(std::int64_t d_k, bool scaled, std::int64_t n_seq, std::int64_t T, std::uint64_t seed) {
    if (d_k <= 0 || n_seq <= 0 || T <= 1) throw ValueError("measure_scaling: need d_k > 0, n_seq > 0, T > 1");
    EnableGrad grad_on;
    Generator gen(seed);  // the same draws for the scaled and the unscaled run
    const double init = 1.0 / std::sqrt(static_cast<double>(d_k));
    Tensor x = randn({n_seq, T, d_k}, kFloat32, gen);                                   // (n, T, d_k), unit variance
    Tensor w_q = (randn({n_seq, d_k, d_k}, kFloat32, gen) * init).requires_grad_();  // (n, d_k, d_k)
    Tensor w_k = randn({n_seq, d_k, d_k}, kFloat32, gen) * init;
    Tensor r = randn({n_seq, T, T}, kFloat32, gen);  // the random projection of the weights

    const double scale = scaled ? init : 1.0;
    Tensor q = matmul(x, w_q), k = matmul(x, w_k);      // (n, T, d_k): unit-variance components
    Tensor logits = matmul(q, k.mT()) * scale;           // (n, T, T): what softmax sees
    logits.retain_grad();
    Tensor w = softmax(logits, -1);                      // (n, T, T)
    sum(w * r).backward();  // dL/dw = R: unit variance whatever d_k, so only the softmax shapes dL/dlogits

    // ‖g‖ of each sequence's slice, averaged over the sequences: g (n, a, b) -> scalar
    auto mean_norm = [](const Tensor& g) { return mean(sqrt(sum(g * g, std::vector<std::int64_t>{1, 2}))).item(); };
    NoGradGuard no_grad;
    ScalingStats s;
    s.d_k = d_k, s.scaled = scaled;
    s.score_variance = var(logits.detach().flatten(), 0).item();
    Tensor max_w = max(w.detach(), -1).values;           // (n, T)
    s.mean_max_weight = mean(max_w).item();
    s.mean_entropy = mean(row_entropy(w.detach())).item();
    s.saturated_rows = mean(gt(max_w, scalar(0.99))).item();
    s.grad_norm_logits = mean_norm(logits.grad());
    s.grad_norm_w_q = mean_norm(w_q.grad());
    std::vector<double> rows = sqrt(sum(logits.grad() * logits.grad(), -1)).to_vector<double>();  // (n·T)
    std::nth_element(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(rows.size() / 2), rows.end());
    s.median_row_grad = rows[rows.size() / 2];
    return s;
}

namespace {

struct PointerModel : Module {
    PointerModel(const PointerTaskConfig& c, Generator& gen)
        : tok_emb(c.vocab + c.T, c.d_k, gen), pos_emb(c.T + 1, c.d_k, gen), attn(c.d_k, c.d_k, gen),
          readout(c.d_k, c.vocab, true, gen) {
        register_module("tok_emb", tok_emb);
        register_module("pos_emb", pos_emb);
        register_module("attn", attn);
        register_module("readout", readout);
    }
    // ids (B, T+1) -> logits (B, vocab), read from the last (pointer) position
    Tensor forward(const Tensor& ids, double scale) const {
        const std::int64_t n = ids.size(1);
        Tensor x = tok_emb.forward(ids) + pos_emb.forward(arange(n));  // (B, T+1, d_k)
        Tensor h = attn.forward(x, Mask(), scale).output;               // (B, T+1, d_k)
        return readout.forward(h.select(1, n - 1));                     // (B, vocab)
    }
    Embedding tok_emb, pos_emb;
    SelfAttention attn;
    Linear readout;
};

struct PointerBatch {
    Tensor ids, targets;  // (B, T+1), (B)
};

// Data tokens are 0 .. vocab−1; the pointer to position p is token vocab + p.
PointerBatch pointer_batch(const PointerTaskConfig& c, Generator& gen) {
    std::vector<std::int64_t> ids, targets;
    for (std::int64_t b = 0; b < c.batch; ++b) {
        const std::size_t row = ids.size();
        for (std::int64_t t = 0; t < c.T; ++t) ids.push_back(static_cast<std::int64_t>(gen.below(static_cast<std::uint64_t>(c.vocab))));
        const auto p = static_cast<std::int64_t>(gen.below(static_cast<std::uint64_t>(c.T)));
        ids.push_back(c.vocab + p);
        targets.push_back(ids[row + static_cast<std::size_t>(p)]);
    }
    return {from_vector(ids, {c.batch, c.T + 1}), from_vector(targets, {c.batch})};
}

}  // namespace

PointerTaskResult train_pointer_task(const PointerTaskConfig& c, bool scaled) {
    if (c.d_k <= 0 || c.T <= 0 || c.vocab <= 1 || c.batch <= 0 || c.steps < 0)
        throw ValueError("train_pointer_task: bad config");
    const double scale = scaled ? 1.0 / std::sqrt(static_cast<double>(c.d_k)) : 1.0;
    EnableGrad grad_on;
    Generator init(c.seed), data(c.seed ^ 0xda7a);
    PointerModel model(c, init);
    AdamW opt(model.named_parameters(), c.lr);
    PointerTaskResult result;
    for (std::int64_t step = 0; step < c.steps; ++step) {
        PointerBatch b = pointer_batch(c, data);
        opt.zero_grad();
        Tensor loss = cross_entropy(model.forward(b.ids, scale), b.targets);
        loss.backward();
        opt.step();
        result.loss.push_back(loss.item());
    }
    NoGradGuard no_grad;
    Generator held_out(c.seed ^ 0x7e57);
    const int n_batches = 16;
    for (int i = 0; i < n_batches; ++i) {
        PointerBatch b = pointer_batch(c, held_out);
        Tensor logits = model.forward(b.ids, scale);
        result.final_loss += cross_entropy(logits, b.targets).item() / n_batches;
        result.final_accuracy += mean(eq(argmax(logits, -1).to(kFloat32), b.targets.to(kFloat32))).item() / n_batches;
    }
    return result;
}

}  // namespace attnlab::lab
