// phase5_architectures.hpp — step 14 of phase 5: attention vs RNN vs CNN vs fully connected
// (the usual comparison: maximum path length O(1) / O(n) / O(log n), parallelism,
// content-based routing) measured on one long-range task, recall k back
// (experiments/architecture_comparison.hpp): x_1 … x_32 of 8 symbols, then "?k"; answer x_{33−k}.
//
// Three measurements, each one lab::Table printed, recorded under metrics.json's
// "architectures" and drawn:
//   accuracy against k        whether each model reaches (and routes to) distance k
//   ‖∂ logit_T / ∂ x_t‖       the gradient flow against T − t, before and after training
//   ms per training step      against T (1 thread; the timings are machine-dependent)
#pragma once
#include <cstdio>
#include <functional>
#include <string>

#include "experiments/architecture_comparison.hpp"
#include "app/report.hpp"
#include "experiments/seq2seq_experiment.hpp"
#include "phases/phase_common.hpp"
#include "plots/compose.hpp"
#include "plots/line_chart.hpp"
#include "io/json.hpp"

namespace attnlab::phase5 {

namespace P = attnlab::plots;

// What the parts share: the task, the four trained runs, the two reference accuracies.
struct RecallComparison {
    lab::RecallTask task;  // V 8, T 33
    lab::RecallTrainConfig cfg;
    std::vector<lab::RecallRun> runs;
    double chance = 0, mode = 0;
};

// One table row: a whole-number key, then one value per column.
std::vector<Json> table_row(std::int64_t key, const std::vector<double>& values);

void architectures_accuracy(phase::Output& out, const RecallComparison& c, Json& result);

void architectures_gradient(phase::Output& out, const RecallComparison& c, Json& result);

void architectures_time(phase::Output& out, const RecallComparison& c, std::uint64_t seed, Json& result);

Json section14_architectures(phase::Output& out, std::uint64_t seed, std::int64_t steps);


}  // namespace attnlab::phase5
