// phase5_hard_soft_dropout.hpp — hard vs soft attention, measured on the reversal task
// (bodies in phases/sections/phase5_hard_soft_dropout.cpp).
//
// The course's table says hard attention ("pick one k_i (argmax)") is not differentiable and
// needs REINFORCE. Here hard attention is top-1: the chosen key gets weight exactly 1, every
// other key exactly 0 (nn::topk_softmax with k = 1). Its forward is fine; its backward is
// the problem: softmax over one key is the constant 1, so d weight / d score = 0 and no
// gradient reaches the scorer. Two models from the same initial weights, trained the same
// way (experiments/seq2seq_experiment), one soft (softmax) and one hard (top-1):
//   - the gradient reaching the scorer's parameters on one batch, at the start;
//   - how far the scorer's parameters move in training (hard: not at all, exactly);
//   - held-out accuracy, the anti-diagonal share and the training curves.
// tests/phases/test_course_examples.cpp checks the key number: the hard scorer's gradient is 0.
//
// Dropout on attention weights: the usual recipe drops after the attention weights and after the
// FFN. Our seq2seq has no dropout; TinyGPT has it there (the attention weights and each residual
// branch, training steps only), so step 12b trains the causal LM (the standard recipe for a
// third of phase 5's --steps, 200 by default, same seed and data) with dropout 0 and 0.1 and
// compares training and validation loss. (tests/training/test_training.cpp checks that evaluation
// never drops and that dropout changes the training curve; tests/phases/test_course_examples.cpp
// checks this step's runs, dropout_runs, at a few steps: training drops, validation does not.)
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include "data/reversal.hpp"
#include "app/report.hpp"
#include "experiments/seq2seq_experiment.hpp"
#include "training/train.hpp"
#include "nn/loss.hpp"
#include "nn/seq2seq.hpp"
#include "phases/phase5_positional.hpp"
#include "phases/phase_common.hpp"
#include "plots/layout.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::phase5 {

using namespace attnlab::phase;

nn::Seq2SeqConfig reversal_config(std::int64_t hidden, nn::Normalizer normalizer);

// |d loss / d scorer parameters| and |d loss / d all parameters| on one batch (teacher forcing).
struct GradientNorms {
    double scorer = 0, all = 0;
};
GradientNorms gradient_norms(nn::Seq2Seq& model, const data::ReversalBatch& batch);

double distance(const std::vector<Tensor>& a, const std::vector<Tensor>& b);

// soft: phase 5's step-5 comparison "additive" (additive scoring, softmax, `hidden`, initial weights
// from Generator(seed + 10), `steps` steps of the same data): exactly the soft model this section
// compares, so it is reused, not trained twice. Only the hard model is trained here.
void section12_hard_vs_soft(Frame& p, const nn::Seq2Seq& soft, const lab::ReversalTrainResult& soft_result,
                            const std::vector<data::Digits>& held_out, const data::ReversalConfig& task,
                            std::int64_t steps, std::int64_t hidden);

// Step 12b's runs: the causal TinyGPT, standard recipe, `steps` steps, one run per dropout rate,
// same seed and data (two at a time). What the section prints and tests/phases/test_course_examples.cpp checks.
std::vector<lab::TrainResult> dropout_runs(std::int64_t steps, const std::vector<double>& rates);

// A run's training loss as the table prints it: the mean of its last 20 steps (units dropped where it drops).
lab::Curve train_loss_curve(const lab::TrainResult& r);

void section12b_dropout(Frame& p, std::int64_t steps);

// Phase 5's steps 12-13, one call: hard vs soft attention and dropout on attention weights, then
// learned vs sinusoidal positions, each `steps` steps
// (phase 5's comparison length). soft, soft_result: step 5's additive softmax comparison (see step 12).
void sections12_13_hard_soft_positions(Frame& p, const nn::Seq2Seq& soft, const lab::ReversalTrainResult& soft_result,
                   const std::vector<data::Digits>& held_out, const data::ReversalConfig& task, std::int64_t steps,
                   std::int64_t hidden);

}  // namespace attnlab::phase5
