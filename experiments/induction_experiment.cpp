// induction_experiment.cpp — see induction_experiment.hpp.
#include "experiments/induction_experiment.hpp"

#include <chrono>
#include <string>

#include "analyses/induction.hpp"
#include "analyses/attention_weights.hpp"
#include "autograd/node.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

InductionBatch make_induction_batch(const InductionTask& task, std::int64_t batch, Generator& gen) {
    if (task.vocab < 2 || task.min_n < 2 || task.min_n > task.max_n || 2 * task.max_n > task.length || batch < 1)
        throw ValueError("make_induction_batch: bad task: vocab " + std::to_string(task.vocab) + ", n in [" +
                         std::to_string(task.min_n) + ", " + std::to_string(task.max_n) + "], length " +
                         std::to_string(task.length) + ", batch " + std::to_string(batch) +
                         " (needs vocab >= 2, 2 <= min_n <= max_n, 2 max_n <= length)");
    const std::int64_t T = task.length;
    const auto cells = static_cast<std::size_t>(batch * T);
    std::vector<std::int64_t> ids(cells), targets(cells, nn::kIgnoreIndex), first(cells, nn::kIgnoreIndex),
        second(cells, nn::kIgnoreIndex), repeated(cells, 0);
    InductionBatch out;
    for (std::int64_t b = 0; b < batch; ++b) {
        const std::int64_t n = task.min_n + static_cast<std::int64_t>(gen.below(static_cast<std::uint64_t>(task.max_n - task.min_n + 1)));
        std::int64_t* row = ids.data() + b * T;
        for (std::int64_t t = 0; t < T; ++t)
            row[t] = t >= n && t < 2 * n ? row[t - n] : static_cast<std::int64_t>(gen.below(static_cast<std::uint64_t>(task.vocab)));
        for (std::int64_t t = 0; t + 1 < T; ++t) targets[static_cast<std::size_t>(b * T + t)] = row[t + 1];
        for (std::int64_t t = 0; t <= n - 2; ++t) first[static_cast<std::size_t>(b * T + t)] = row[t + 1];
        for (std::int64_t t = n; t <= 2 * n - 2; ++t) {
            second[static_cast<std::size_t>(b * T + t)] = row[t + 1];
            repeated[static_cast<std::size_t>(b * T + t)] = 1;
        }
        out.n.push_back(n);
    }
    out.ids = from_vector(ids, {batch, T});
    out.targets = from_vector(targets, {batch, T});
    out.first_targets = from_vector(first, {batch, T});
    out.repeated_targets = from_vector(second, {batch, T});
    out.repeated = from_vector(repeated, {batch, T});
    return out;
}

InductionEval evaluate_induction(nn::Transformer& model, const InductionBatch& batch, std::int64_t step) {
    NoGradGuard no_grad;
    const TracedForward run = traced_forward(model, batch.ids);
    const Tensor& logits = run.logits;  // [B, T, V]
    InductionEval e;
    e.step = step;
    e.loss_first = nn::cross_entropy(logits, batch.first_targets).item();
    e.loss_repeated = nn::cross_entropy(logits, batch.repeated_targets).item();
    for (const Tensor& w : run.layers) {  // [B, H, T, T]
        e.previous.push_back(previous_token_scores(w));
        e.induction.push_back(induction_scores(w, batch.ids, batch.repeated));
        e.attention.push_back(w.select(0, 0).contiguous());  // [H, T, T]
    }
    return e;
}

InductionRun train_induction(const InductionConfig& config) {
    const auto t0 = std::chrono::steady_clock::now();
    InductionRun run;
    run.config = config;
    nn::TransformerConfig mc{.vocab_size = config.task.vocab, .d_model = config.d_model, .n_heads = config.n_heads,
                             .n_layers = config.n_layers, .context = config.task.length};
    mc.attention_only = config.attention_only;
    run.model = std::make_unique<nn::Transformer>(mc, config.seed);
    Generator data(config.seed + 1), held_out(config.seed + 2);
    run.eval = make_induction_batch(config.task, config.eval_rows, held_out);
    nn::AdamW opt(run.model->named_parameters(), config.lr, 0.9, 0.999, 1e-8, config.weight_decay);
    run.model->train();
    run.evals.push_back(evaluate_induction(*run.model, run.eval, 0));
    for (std::int64_t step = 1; step <= config.steps; ++step) {
        const InductionBatch b = make_induction_batch(config.task, config.batch, data);
        opt.zero_grad();
        Tensor loss = nn::cross_entropy(run.model->forward(b.ids), b.targets);  // every predictable and random position
        loss.backward();
        opt.step();
        if (step % config.eval_every == 0 || step == config.steps) run.evals.push_back(evaluate_induction(*run.model, run.eval, step));
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return run;
}

std::int64_t collapse_index(const std::vector<InductionEval>& evals) {
    for (std::size_t i = 0; i < evals.size(); ++i)
        if (evals[i].loss_repeated < 0.5 * evals[i].loss_first) return static_cast<std::int64_t>(i);
    return -1;
}

HeadId best_head(const std::vector<std::vector<double>>& scores, std::int64_t layer) {
    const auto& row = scores.at(static_cast<std::size_t>(layer));
    HeadId best{layer, 0};
    for (std::size_t h = 1; h < row.size(); ++h)
        if (row[h] > row[static_cast<std::size_t>(best.head)]) best.head = static_cast<std::int64_t>(h);
    return best;
}

InductionEval ablate_head(nn::Transformer& model, const InductionBatch& batch, HeadId head, std::int64_t step) {
    auto& attn = model.blocks.at(static_cast<std::size_t>(head.layer))->attn;
    std::vector<bool> on(static_cast<std::size_t>(attn.n_heads), true);
    on.at(static_cast<std::size_t>(head.head)) = false;
    attn.set_head_mask(on);
    InductionEval e = evaluate_induction(model, batch, step);
    attn.set_head_mask(std::vector<bool>(on.size(), true));
    return e;
}

}  // namespace attnlab::lab
