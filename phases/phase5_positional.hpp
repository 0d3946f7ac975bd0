// phase5_positional.hpp — seed 003's exercise 3, "use nn.Embedding for positions instead of
// sinusoidal": both encodings trained on the same task, from the same seed, in phase 5.
// Header-only: each .cpp in phases/ is its own program.
//
// The task needs positions and nothing else: reverse 8 tokens (vocabulary 10) with one
// attention layer, y_i = x_{T-1-i}. The model is x -> tok_emb(x) + PE -> one-head
// self-attention (W_Q, W_K, W_V, W_O) -> a linear read-out, no residual: query i must find
// key T-1-i, which only the positional part of q and k can tell apart. Both variants share
// every other weight's initial value, the batches and the steps; only PE differs:
//   sinusoidal  PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), fixed;
//   learned     a [T, d] table trained with the rest (nn::LearnedPositionalEmbedding).
// A third variant, none (no PE at all), is the control tests/phases/test_seed_sections.cpp
// trains: without positions the layer cannot reverse (near chance), with either it can.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "autograd/node.hpp"
#include "lab/report.hpp"
#include "lab/seq2seq_experiment.hpp"
#include "nn/attention.hpp"
#include "nn/layers.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "nn/positional.hpp"
#include "phases/phase_common.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::phase {

// A training curve for a figure: the mean of each 20 steps, every 10 (fewer steps: one window of all).
inline lab::Curve loss_curve(const std::vector<double>& loss) {
    const std::size_t window = std::min<std::size_t>(20, loss.size());
    return lab::smooth(loss, window, std::max<std::size_t>(1, window / 2));
}

}  // namespace attnlab::phase

namespace attnlab::phase::positional {

struct ReverseTask {
    std::int64_t T = 8, vocab = 10, d_model = 32, batch = 64, steps = 200;
    double lr = 3e-3;
};

struct ReverseResult {
    std::vector<double> loss;  // per step
    double accuracy = 0;       // per token, on 512 held-out sequences
};

// What is added to the token embeddings: nothing (the control: attention alone cannot tell
// positions apart, so it cannot reverse), the fixed sinusoid, or a trained table.
enum class Positions { none, sinusoidal, learned };

// Trains one variant from `seed` (the shared weights start equal whatever `positions` is).
inline ReverseResult train_reverse(const ReverseTask& task, Positions positions, std::uint64_t seed) {
    const bool learned = positions == Positions::learned;
    Generator init(seed);  // the same initial weights for the shared parts
    nn::Embedding tok(task.vocab, task.d_model, init);
    nn::MultiHeadAttention attn(task.d_model, 1, 0, 0, init);
    nn::Linear out(task.d_model, task.vocab, true, init);
    nn::LearnedPositionalEmbedding table(task.T, task.d_model, init);
    const Tensor sinusoid = nn::sinusoidal_positional_encoding(task.T, task.d_model);  // (T, d_model)
    std::vector<nn::NamedParameter> params;
    for (const nn::Module* m : std::vector<const nn::Module*>{&tok, &attn, &out})
        for (const nn::NamedParameter& np : m->named_parameters()) params.push_back(np);
    if (learned)
        for (const nn::NamedParameter& np : table.named_parameters()) params.push_back(np);
    nn::Adam opt(params, task.lr);
    auto logits = [&](const Tensor& x) {  // x (B, T) -> (B, T, vocab)
        const Tensor e = tok.forward(x);  // (B, T, d_model)
        const Tensor h = positions == Positions::none ? e : e + (learned ? table.forward(task.T) : sinusoid);
        return out.forward(attn.forward_output(h));
    };
    auto reversed = [](const Tensor& x) {  // (B, T) int64, each row back to front
        std::vector<std::int64_t> v = x.to_vector<std::int64_t>();
        const std::int64_t T = x.size(1);
        for (std::size_t r = 0; r < v.size(); r += static_cast<std::size_t>(T)) std::reverse(v.begin() + r, v.begin() + r + T);
        return from_vector(v, {x.size(0), T});
    };
    Generator data(seed + 1);
    ReverseResult r;
    for (std::int64_t s = 0; s < task.steps; ++s) {
        const Tensor x = randint(0, task.vocab, {task.batch, task.T}, data);
        opt.zero_grad();
        Tensor loss = nn::cross_entropy(logits(x), reversed(x));
        loss.backward();
        opt.step();
        r.loss.push_back(loss.item());
    }
    NoGradGuard no_grad;
    const Tensor x = randint(0, task.vocab, {512, task.T}, data);
    r.accuracy = mean(eq(argmax(logits(x), -1).to(kFloat32), reversed(x).to(kFloat32)).to(kFloat32)).item();
    return r;
}

// The step of a curve's first point below `level` (-1: never).
inline std::int64_t first_below(const lab::Curve& c, double level) {
    for (std::size_t k = 0; k < c.value.size(); ++k)
        if (c.value[k] < level) return static_cast<std::int64_t>(c.step[k]);
    return -1;
}

inline void section13_learned_vs_sinusoidal(Frame& p, std::int64_t steps) {
    ReverseTask task;
    task.steps = steps;
    section("13. Seed 003 exercise 3: learned vs sinusoidal positions, reversing " + std::to_string(task.T) + " tokens");
    std::printf("  one-head attention, d_model %lld, vocab %lld, batch %lld, %lld Adam steps at %g, same seed\n",
                static_cast<long long>(task.d_model), static_cast<long long>(task.vocab), static_cast<long long>(task.batch),
                static_cast<long long>(task.steps), task.lr);
    ReverseResult results[2];
    lab::run_concurrently({[&] { results[0] = train_reverse(task, Positions::sinusoidal, p.seed + 30); },
                           [&] { results[1] = train_reverse(task, Positions::learned, p.seed + 30); }}, 2);
    lab::Table t({{"positions", "positions", 11, -1}, {"accuracy", "accuracy", 8, 4}, {"final_loss", "last 20 loss", 12, 4},
                  {"steps_to_loss_0_1", "steps to loss < 0.1", 19, -1}}, "  ");
    t.print_header();
    std::vector<plots::Series> curves;
    const char* names[2] = {"sinusoidal", "learned"};
    for (int i = 0; i < 2; ++i) {
        const lab::Curve c = loss_curve(results[i].loss);
        t.row({names[i], results[i].accuracy, c.value.back(), first_below(c, 0.1)});
        curves.push_back({.name = names[i], .x = c.step, .y = c.value, .markers = false});
    }
    std::printf("  (chance: accuracy %.2f, loss ln %lld = %.3f)\n", 1.0 / static_cast<double>(task.vocab),
                static_cast<long long>(task.vocab), std::log(static_cast<double>(task.vocab)));
    p.m["seed003_positional"] = Json::Object{{"steps", task.steps}, {"rows", t.json_by("positions")}};
    p.out.figure(plots::line_chart(curves, {.title = "Seed 003 ex. 3: learned vs sinusoidal positions (reverse 8 tokens)",
                                            .x_title = "step", .y_title = "training loss (mean of 20 steps)"}),
                 "seed003_positional",
                 "Phase 5: one attention layer reversing 8 tokens with sinusoidal and with learned positional encodings, same seed and batches.");
}

}  // namespace attnlab::phase::positional
