// phase5_seed004.hpp — seed 004 §3.2, hard vs soft attention, measured on the reversal task
// (header-only: each .cpp in phases/ is its own program).
//
// The seed's table says hard attention ("pick one k_i (argmax)") is not differentiable and
// needs REINFORCE. Here hard attention is top-1: the chosen key gets weight exactly 1, every
// other key exactly 0 (nn::topk_softmax with k = 1). Its forward is fine; its backward is
// the problem: softmax over one key is the constant 1, so d weight / d score = 0 and no
// gradient reaches the scorer. Two models from the same initial weights, trained the same
// way (lab/seq2seq_experiment), one soft (softmax) and one hard (top-1):
//   - the gradient reaching the scorer's parameters on one batch, at the start;
//   - how far the scorer's parameters move in training (hard: not at all, exactly);
//   - held-out accuracy, the anti-diagonal share and the training curves.
// tests/phases/test_seed_sections.cpp checks the key number: the hard scorer's gradient is 0.
//
// Seed 004 §12: "dropout applied after attention weights and after FFN". Our seq2seq has no
// dropout; TinyGPT has it where the seed puts it (the attention weights and each residual
// branch, training steps only), so step 12b trains the causal LM (the standard recipe for a
// third of phase 5's --steps, 200 by default, same seed and data) with dropout 0 and 0.1 and
// compares training and validation loss. (tests/lab/test_training.cpp checks that evaluation
// never drops and that dropout changes the training curve; tests/phases/test_seed_sections.cpp
// checks this step's runs, dropout_runs, at a few steps: training drops, validation does not.)
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include "data/reversal.hpp"
#include "lab/report.hpp"
#include "lab/seq2seq_experiment.hpp"
#include "lab/train.hpp"
#include "nn/loss.hpp"
#include "nn/seq2seq.hpp"
#include "phases/phase5_positional.hpp"
#include "phases/phase_common.hpp"
#include "plots/layout.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::phase::seed004 {

inline nn::Seq2SeqConfig reversal_config(std::int64_t hidden, nn::Normalizer normalizer) {
    nn::Seq2SeqConfig c;
    c.vocab = data::kReversalVocab, c.hidden = hidden, c.normalizer = normalizer;  // additive scoring, as phase 5's main model
    return c;
}

// |d loss / d scorer parameters| and |d loss / d all parameters| on one batch (teacher forcing).
struct GradientNorms {
    double scorer = 0, all = 0;
};
inline GradientNorms gradient_norms(nn::Seq2Seq& model, const data::ReversalBatch& batch) {
    model.zero_grad();
    nn::cross_entropy(model.forward(batch.src, batch.lengths, batch.tgt_in).logits, batch.tgt_out).backward();
    auto norm = [](const std::vector<Tensor>& ps) {
        double s = 0;
        for (const Tensor& t : ps)
            if (t.grad().defined()) s += sum(t.grad() * t.grad()).item();
        return std::sqrt(s);
    };
    GradientNorms g{norm(model.scoring->parameters()), norm(model.parameters())};
    model.zero_grad();
    return g;
}

inline double distance(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {  // |a - b| over all tensors
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += sum((a[i] - b[i]) * (a[i] - b[i])).item();
    return std::sqrt(s);
}

// soft: phase 5's step-5 comparison "additive" (additive scoring, softmax, `hidden`, initial weights
// from Generator(seed + 10), `steps` steps of the same data): exactly the soft model this section
// compares, so it is reused, not trained twice. Only the hard model is trained here.
inline void section12_hard_vs_soft(Frame& p, const nn::Seq2Seq& soft, const lab::ReversalTrainResult& soft_result,
                                   const std::vector<data::Digits>& held_out, const data::ReversalConfig& task,
                                   std::int64_t steps, std::int64_t hidden) {
    section("12. Seed 004 section 3.2: hard (top-1) vs soft attention, " + std::to_string(steps) + " steps each");
    const std::vector<std::pair<std::string, nn::Normalizer>> kinds{{"soft (softmax)", nn::Normalizer::softmax()},
                                                                     {"hard (top-1)", nn::Normalizer::topk(1)}};
    std::vector<std::unique_ptr<nn::Seq2Seq>> start_models;  // each kind at its initial weights
    std::vector<std::vector<Tensor>> start;  // the scorers' initial parameters, copied
    std::vector<GradientNorms> grads;
    Generator batch_gen(p.seed + 20);
    const data::ReversalBatch batch = data::sample_reversal_batch(batch_gen, 64, task);
    for (const auto& k : kinds) {
        Generator init(p.seed + 10);  // the same initial weights for both (and for step 5's models)
        start_models.push_back(std::make_unique<nn::Seq2Seq>(reversal_config(hidden, k.second), init));
        grads.push_back(gradient_norms(*start_models.back(), batch));
        std::vector<Tensor> copy;
        for (const Tensor& t : start_models.back()->scoring->parameters()) copy.push_back(t.detach().clone());
        start.push_back(copy);
    }
    const nn::Seq2SeqConfig& sc = soft.config();
    if (!sc.attention || sc.scoring != nn::ScoreKind::additive || sc.hidden != hidden || static_cast<std::int64_t>(soft_result.loss.size()) != steps)
        throw ValueError("phase 5 step 12: the soft model passed in is not step 5's additive softmax comparison of " + std::to_string(steps) + " steps");
    nn::Seq2Seq& hard = *start_models[1];  // trained from its start; its start parameters are copied above
    std::vector<lab::ReversalTrainResult> results{soft_result, lab::train_reversal(hard, {.steps = steps, .checkpoints = {steps}}, held_out, task)};
    const std::vector<const nn::Seq2Seq*> models{&soft, &hard};
    lab::Table t({{"attention", "attention", 14, -1}, {"scorer_grad_norm", "|dL/d scorer|", 13, 4},
                  {"model_grad_norm", "|dL/d all|", 10, 4}, {"scorer_moved", "scorer moved", 12, 4},
                  {"accuracy", "accuracy", 8, 4}, {"anti_diagonal", "anti-diag", 9, 4}, {"final_loss", "last loss", 9, 4}}, "  ");
    t.print_header();
    std::vector<plots::Series> curves;
    for (std::size_t i = 0; i < models.size(); ++i) {
        const lab::ReversalEval& e = results[i].evals.at(steps);
        const lab::Curve c = loss_curve(results[i].loss);
        t.row({kinds[i].first, grads[i].scorer, grads[i].all, distance(models[i]->scoring->parameters(), start[i]), e.accuracy,
               e.anti_diagonal, c.value.back()});
        curves.push_back({.name = kinds[i].first, .x = c.step, .y = c.value, .markers = false});
    }
    std::printf("  top-1 gives the chosen key weight 1 whatever its score, so d weight / d score = 0: the scorer gets no gradient\n"
                "  and never moves; the model must reverse through whichever key its untrained scorer happens to pick.\n");
    p.m["seed004_hard_vs_soft"] = Json::Object{{"steps", steps}, {"rows", t.json_by("attention")}};
    p.out.figure(plots::line_chart(curves, {.title = "Seed 004 sec. 3.2: hard (top-1) vs soft attention on reversal", .x_title = "step",
                                            .y_title = "training loss (mean of 20 steps)"}),
                 "seed004_hard_vs_soft",
                 "Phase 5: reversal trained with soft (softmax) and hard (top-1) attention from the same start: hard attention passes no gradient to its scorer.");
}

// Step 12b's runs: the causal TinyGPT, standard recipe, `steps` steps, one run per dropout rate,
// same seed and data (two at a time). What the section prints and tests/phases/test_seed_sections.cpp checks.
inline std::vector<lab::TrainResult> dropout_runs(std::int64_t steps, const std::vector<double>& rates) {
    std::vector<lab::TrainResult> results(rates.size());
    std::vector<std::function<void()>> jobs;
    for (std::size_t i = 0; i < rates.size(); ++i)
        jobs.push_back([&, i] {
            lab::TrainConfig c = lab::standard_config(lab::Task::causal);
            c.steps = steps, c.dropout = rates[i], c.eval_every = steps, c.progress = lab::TrainConfig::Progress::quiet;
            c.warmup = std::min(c.warmup, steps / 2);  // a short --steps still gets a cosine decay
            results[i] = lab::train(c);
        });
    lab::run_concurrently(jobs, 2);
    return results;
}

// A run's training loss as the table prints it: the mean of its last 20 steps (units dropped where it drops).
inline lab::Curve train_loss_curve(const lab::TrainResult& r) {
    std::vector<double> loss;
    for (const lab::TrainPoint& pt : r.curve) loss.push_back(pt.loss);
    return loss_curve(loss);
}

inline void section12b_dropout(Frame& p, std::int64_t steps) {
    section("12b. Seed 004 section 12: dropout after the attention weights (and each residual branch), TinyGPT, " +
            std::to_string(steps) + " steps");
    const std::vector<double> rates{0.0, 0.1};
    const std::vector<lab::TrainResult> results = dropout_runs(steps, rates);
    lab::Table t({{"dropout", "dropout", 7, 2}, {"train_loss_last20", "train loss (last 20)", 20, 4},
                  {"val_loss", "val loss", 8, 4}, {"gap", "val - train", 11, 4}, {"val_accuracy", "val acc", 7, 4},
                  {"bayes_floor", "floor", 6, 3}}, "  ");
    t.print_header();
    std::vector<plots::Series> curves;
    for (std::size_t i = 0; i < rates.size(); ++i) {
        const lab::TrainResult& r = results[i];
        const lab::Curve c = train_loss_curve(r);
        t.row({rates[i], c.value.back(), r.final_eval.loss, r.final_eval.loss - c.value.back(), r.final_eval.accuracy, r.final_eval.floor});
        curves.push_back({.name = "dropout " + plots::layout::format_fixed(rates[i], 1), .x = c.step, .y = c.value, .markers = false});
    }
    std::printf("  (training losses with dropout are measured with units dropped; validation never drops)\n");
    p.m["seed004_dropout"] = Json::Object{{"steps", steps}, {"rows", t.json()}};
    p.out.figure(plots::line_chart(curves, {.title = "Seed 004 sec. 12: dropout 0.1 in TinyGPT (training loss)",
                                            .x_title = "step", .y_title = "training loss (mean of 20 steps)"}),
                 "seed004_dropout",
                 "Phase 5: the causal TinyGPT trained with dropout 0 and 0.1 (attention weights and residual branches), same seed and data.");
}

// Phase 5's steps 12-13, one call: seed 004 §3.2 and §12, then seed 003's exercise 3, each `steps` steps
// (phase 5's comparison length). soft, soft_result: step 5's additive softmax comparison (see step 12).
inline void sections12_13(Frame& p, const nn::Seq2Seq& soft, const lab::ReversalTrainResult& soft_result,
                          const std::vector<data::Digits>& held_out, const data::ReversalConfig& task, std::int64_t steps,
                          std::int64_t hidden) {
    section12_hard_vs_soft(p, soft, soft_result, held_out, task, steps, hidden);
    section12b_dropout(p, steps);
    positional::section13_learned_vs_sinusoidal(p, steps);
}

}  // namespace attnlab::phase::seed004
