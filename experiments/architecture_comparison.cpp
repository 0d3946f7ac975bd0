// architecture_comparison.cpp — the four models of the recall-k-back task, their training,
// the gradient flow and the step time (see architecture_comparison.hpp).
#include "experiments/architecture_comparison.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "autograd/node.hpp"
#include "nn/attention.hpp"
#include "nn/conv1d.hpp"
#include "nn/gru.hpp"
#include "nn/layers.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "nn/positional.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

RecallBatch make_recall_batch(const RecallTask& task, std::int64_t batch, Generator& gen, std::int64_t only_k) {
    const std::int64_t T = task.length;
    if (task.vocab < 2 || T < 2 || batch < 1 || only_k < 0 || only_k > T - 1)
        throw ValueError("make_recall_batch: vocab " + std::to_string(task.vocab) + ", length " + std::to_string(T) +
                         ", batch " + std::to_string(batch) + ", k " + std::to_string(only_k) +
                         " (need vocab >= 2, length >= 2, batch >= 1, 0 <= k < length)");
    std::vector<double> ids(static_cast<std::size_t>(batch * T)), targets;
    RecallBatch b;
    for (std::int64_t i = 0; i < batch; ++i) {
        double* row = ids.data() + i * T;
        for (std::int64_t t = 0; t + 1 < T; ++t) row[t] = static_cast<double>(gen.next_u64() % static_cast<std::uint64_t>(task.vocab));
        const std::int64_t k = only_k > 0 ? only_k : 1 + static_cast<std::int64_t>(gen.next_u64() % static_cast<std::uint64_t>(T - 1));
        row[T - 1] = static_cast<double>(task.vocab + k - 1);  // the query token ?k
        targets.push_back(row[T - 1 - k]);                    // x_{T−k}, 1-based: index T − 1 − k
        b.k.push_back(k);
    }
    b.ids = from_vector(ids, {batch, T}, kInt64);
    b.targets = from_vector(targets, {batch}, kInt64);
    return b;
}

double most_frequent_symbol_accuracy(const RecallTask& task, std::int64_t sequences, Generator& gen) {
    const RecallBatch b = make_recall_batch(task, sequences, gen);
    const std::vector<std::int64_t> ids = b.ids.to_vector<std::int64_t>(), targets = b.targets.to_vector<std::int64_t>();
    double right = 0;
    for (std::int64_t i = 0; i < sequences; ++i) {
        std::vector<std::int64_t> count(static_cast<std::size_t>(task.vocab), 0);
        for (std::int64_t t = 0; t + 1 < task.length; ++t) ++count[static_cast<std::size_t>(ids[static_cast<std::size_t>(i * task.length + t)])];
        const std::int64_t top = *std::max_element(count.begin(), count.end());
        if (count[static_cast<std::size_t>(targets[static_cast<std::size_t>(i)])] == top)
            right += 1.0 / static_cast<double>(std::count(count.begin(), count.end(), top));
    }
    return right / static_cast<double>(sequences);
}

std::string architecture_name(Architecture a) {
    switch (a) {
        case Architecture::gru: return "gru";
        case Architecture::cnn: return "cnn";
        case Architecture::fc: return "fc";
        case Architecture::attention: return "attention";
    }
    return "?";
}

namespace {

constexpr std::int64_t kWidth = 32;  // embedding width d of the attention, GRU and CNN models

Tensor last_position(const Tensor& h) { return select(h, 1, h.size(1) - 1); }  // [B, T, c] -> [B, c]

class GruRecall : public RecallModel {
public:
    GruRecall(const RecallTask& task, Generator& gen)
        : embedding(task.tokens(), kWidth, gen), gru(kWidth, kWidth, gen), out(kWidth, task.vocab, true, gen) {
        register_module("embedding", embedding), register_module("gru", gru), register_module("out", out);
    }
    Tensor embed(const Tensor& ids) const override { return embedding.forward(ids); }
    Tensor logits(const Tensor& x) const override { return out.forward(gru.forward(x).last); }
    std::string describe() const override { return "Embedding(d 32), GRU(hidden 32), Linear(32, V) on the last state"; }
    nn::Embedding embedding;
    nn::GRU gru;
    nn::Linear out;
};

class CnnRecall : public RecallModel {
public:
    static constexpr std::int64_t kChannels = 24;
    CnnRecall(const RecallTask& task, Generator& gen)
        : embedding(task.tokens(), kWidth, gen), conv1(kWidth, kChannels, 3, 1, gen), conv2(kChannels, kChannels, 3, 2, gen),
          conv3(kChannels, kChannels, 3, 4, gen), out(kChannels, task.vocab, true, gen) {
        register_module("embedding", embedding), register_module("conv1", conv1), register_module("conv2", conv2);
        register_module("conv3", conv3), register_module("out", out);
    }
    Tensor embed(const Tensor& ids) const override { return embedding.forward(ids); }
    Tensor logits(const Tensor& x) const override {
        return out.forward(last_position(conv3.forward(relu(conv2.forward(relu(conv1.forward(x)))))));
    }
    std::int64_t reach(std::int64_t T) const override { return std::min(T, nn::Conv1d::receptive_field(3, {1, 2, 4})); }
    std::string describe() const override {
        return "Embedding(d 32), causal Conv1d x3 (24 channels, kernel 3, dilations 1, 2, 4, ReLU between), Linear(24, V) at T";
    }
    nn::Embedding embedding;
    nn::Conv1d conv1, conv2, conv3;
    nn::Linear out;
};

class FcRecall : public RecallModel {
public:
    static constexpr std::int64_t kEmbed = 8, kHidden = 24;  // narrower: its first layer has T·8 inputs
    FcRecall(const RecallTask& task, Generator& gen)
        : embedding(task.tokens(), kEmbed, gen), hidden(task.length * kEmbed, kHidden, true, gen), out(kHidden, task.vocab, true, gen) {
        register_module("embedding", embedding), register_module("hidden", hidden), register_module("out", out);
    }
    Tensor embed(const Tensor& ids) const override { return embedding.forward(ids); }
    Tensor logits(const Tensor& x) const override { return out.forward(relu(hidden.forward(flatten(x, 1)))); }
    std::string describe() const override { return "Embedding(d 8), Linear(T*8, 24) + ReLU on the flattened sequence, Linear(24, V)"; }
    nn::Embedding embedding;
    nn::Linear hidden, out;
};

class AttentionRecall : public RecallModel {
public:
    AttentionRecall(const RecallTask& task, Generator& gen)
        : embedding(task.tokens(), kWidth, gen), position(task.length, kWidth, gen), attention(kWidth, 2, 0, 0, gen),
          out(kWidth, task.vocab, true, gen) {
        register_module("embedding", embedding), register_module("position", position);
        register_module("attention", attention), register_module("out", out);
    }
    Tensor embed(const Tensor& ids) const override { return embedding.forward(ids); }
    Tensor logits(const Tensor& x) const override {
        const Tensor h = x + position.forward(x.size(1));       // [B, T, d]
        const Tensor q = narrow(h, 1, h.size(1) - 1, 1);         // the query: position T only
        return out.forward(last_position(attention.forward_output(q, h, h)));
    }
    std::string describe() const override {
        return "Embedding(d 32) + learned positions, MultiHeadAttention(32, 2 heads) queried at T, Linear(32, V)";
    }
    nn::Embedding embedding;
    nn::LearnedPositionalEmbedding position;
    mutable nn::MultiHeadAttention attention;  // forward_output records which path ran
    nn::Linear out;
};

}  // namespace

std::unique_ptr<RecallModel> make_recall_model(Architecture a, const RecallTask& task, Generator& gen) {
    switch (a) {
        case Architecture::gru: return std::make_unique<GruRecall>(task, gen);
        case Architecture::cnn: return std::make_unique<CnnRecall>(task, gen);
        case Architecture::fc: return std::make_unique<FcRecall>(task, gen);
        case Architecture::attention: return std::make_unique<AttentionRecall>(task, gen);
    }
    throw ValueError("make_recall_model: unknown architecture");
}

Tensor target_logit_sum(const RecallModel& m, const Tensor& x, const Tensor& targets) {
    const Tensor logits = m.logits(x);  // [B, V]
    return sum(logits * one_hot(targets, logits.size(1), logits.dtype()));
}

std::vector<double> gradient_by_distance(const RecallModel& m, const RecallBatch& batch) {
    const Tensor x = m.embed(batch.ids).detach().requires_grad_();
    target_logit_sum(m, x, batch.targets).backward();
    const std::vector<double> norms = mean(sqrt(sum(x.grad() * x.grad(), 2)), 0).to_vector<double>();  // [T]
    return {norms.rbegin(), norms.rend()};  // by distance T − t: the last position first
}

namespace {

double train_step(RecallModel& m, nn::Adam& opt, const RecallBatch& b) {
    const Tensor loss = nn::cross_entropy(m.logits(m.embed(b.ids)), b.targets);
    opt.zero_grad();
    loss.backward();
    opt.step();
    return loss.item();
}

}  // namespace

RecallRun train_recall(Architecture a, const RecallTask& task, const RecallTrainConfig& cfg) {
    const auto start = std::chrono::steady_clock::now();
    Generator init(cfg.seed), data(cfg.seed + 1), eval(cfg.seed + 2);
    std::unique_ptr<RecallModel> m = make_recall_model(a, task, init);
    RecallRun run;
    run.name = architecture_name(a), run.parameters = m->parameter_count();
    const RecallBatch probe = make_recall_batch(task, 256, eval);  // the same sequences before and after training
    run.gradient_init = gradient_by_distance(*m, probe);
    nn::Adam opt(m->named_parameters(), cfg.lr);
    for (std::int64_t step = 0; step < cfg.steps; ++step) run.loss.push_back(train_step(*m, opt, make_recall_batch(task, cfg.batch, data)));
    m->zero_grad();
    run.gradient_trained = gradient_by_distance(*m, probe);
    NoGradGuard no_grad;
    for (std::int64_t k = 1; k < task.length; ++k) {
        const RecallBatch b = make_recall_batch(task, cfg.eval_per_k, eval, k);
        const std::vector<std::int64_t> guess = argmax(m->logits(m->embed(b.ids)), 1).to_vector<std::int64_t>();
        const std::vector<std::int64_t> truth = b.targets.to_vector<std::int64_t>();
        std::int64_t right = 0;
        for (std::size_t i = 0; i < guess.size(); ++i) right += guess[i] == truth[i];
        run.accuracy_by_k.push_back(static_cast<double>(right) / static_cast<double>(guess.size()));
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
}

double recall_step_ms(Architecture a, const RecallTask& task, std::int64_t batch, int reps, std::uint64_t seed) {
    Generator init(seed), data(seed + 1);
    std::unique_ptr<RecallModel> m = make_recall_model(a, task, init);
    nn::Adam opt(m->named_parameters(), 1e-3);
    train_step(*m, opt, make_recall_batch(task, batch, data));  // warm-up: buffers allocated once
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        const RecallBatch b = make_recall_batch(task, batch, data);  // drawn outside the timed part
        const auto t0 = std::chrono::steady_clock::now();
        train_step(*m, opt, b);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + reps / 2, ms.end());
    return ms[static_cast<std::size_t>(reps / 2)];
}

}  // namespace attnlab::lab
