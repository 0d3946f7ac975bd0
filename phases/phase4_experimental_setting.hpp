// phase4_experimental_setting.hpp — the course's setting for experiments: d_model = 128,
// H = 8, sequences up to 32 tokens (everything else in the phases uses its learning setting,
// d_model 64, H = 4). Bodies in phases/sections/phase4_experimental_setting.cpp.
//
// One short causal TinyGPT run in that setting (the causal recipe otherwise: 2 layers, batch
// 16, the same data), then the per-head exercise on it: a heatmap per head of its 8 heads
// on one 32-token validation row, each head called local or global.
//   learned something   its validation loss beside two references on the same tokens: the
//                       unigram baseline (the entropy of the targets' own frequencies, the
//                       best any model that ignores the context can do) and the Bayes floor
//                       (the best any model can do, data/lm_batches.hpp).
//   local / global      a head's mean weight on the query itself and the token before it
//                       (lab::local_mass; the causal mask hides the one after): local if that
//                       is more than half of its weight, global otherwise.
// The run is short (about 40 ms a step here): it learns the grammar's easy part, not all of it.
#pragma once
#include <cmath>
#include <cstdio>
#include <map>

#include "data/lm_batches.hpp"
#include "analyses/attention_stats.hpp"
#include "app/report.hpp"
#include "training/train.hpp"
#include "phases/phase4_experiments.hpp"
#include "phases/phase_common.hpp"
#include "plots/heatmap.hpp"

namespace attnlab::phase4 {

// −Σ p ln p of the non-ignored targets' frequencies: the lowest mean cross-entropy a predictor
// that gives every position the same distribution can reach on exactly these tokens.
double unigram_baseline(const std::vector<data::LMBatch>& batches);

// steps: the run's length (phase 4 passes 60% of its --steps).
void section10_experimental_setting(phase::Frame& f, std::int64_t steps);

}  // namespace attnlab::phase4
