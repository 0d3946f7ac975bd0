// phase5_positional.hpp — learned positions (an embedding table) instead of sinusoidal ones:
// both encodings trained on the same task, from the same seed, in phase 5.
// Bodies in phases/sections/phase5_positional.cpp (each .cpp in phases/ is its own program).
//
// The task needs positions and nothing else: reverse 8 tokens (vocabulary 10) with one
// attention layer, y_i = x_{T-1-i}. The model is x -> tok_emb(x) + PE -> one-head
// self-attention (W_Q, W_K, W_V, W_O) -> a linear read-out, no residual: query i must find
// key T-1-i, which only the positional part of q and k can tell apart. Both variants share
// every other weight's initial value, the batches and the steps; only PE differs:
//   sinusoidal  PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), fixed;
//   learned     a [T, d] table trained with the rest (nn::LearnedPositionalEmbedding).
// A third variant, none (no PE at all), is the control tests/phases/test_course_examples.cpp
// trains: without positions the layer cannot reverse (near chance), with either it can.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "autograd/node.hpp"
#include "app/report.hpp"
#include "experiments/seq2seq_experiment.hpp"
#include "nn/attention.hpp"
#include "nn/layers.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "nn/positional.hpp"
#include "phases/phase_common.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::phase {

// A training curve for a figure: the mean of each 20 steps, every 10 (fewer steps: one window of all).
lab::Curve loss_curve(const std::vector<double>& loss);

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
ReverseResult train_reverse(const ReverseTask& task, Positions positions, std::uint64_t seed);

// The step of a curve's first point below `level` (-1: never).
std::int64_t first_below(const lab::Curve& c, double level);

}  // namespace attnlab::phase::positional

namespace attnlab::phase5 {

// 13. learned vs sinusoidal positions on the reversal task (the functions above), one figure.
void section13_learned_vs_sinusoidal(phase::Frame& p, std::int64_t steps);

}  // namespace attnlab::phase5
