// phase4_learning.hpp — phase 4, step 9: attention while it learns.
//
// Step 8's replay of causal_model's whole training run records the sentence's attention at
// every evaluation (analyses/attention_timeline.hpp: observing does not change the run, a test
// checks the checkpoint bytes), so the run is trained once for both steps. Drawn: each head
// at a few steps, in a strip above the training loss, and an animated GIF of all heads at
// every recorded step (a figure of its own, with its own caption). Numbers: the step
// from which each head's mean entropy stays within a tenth of its whole movement over
// the run from its final value, and the same for its specialisation (the cosine
// similarity of its pattern with its final pattern). Bodies in phases/sections/phase4_learning.cpp.
#pragma once
#include <algorithm>
#include <string>

#include "analyses/attention_timeline.hpp"
#include "app/report.hpp"
#include "phases/phase_common.hpp"
#include "plots/bar_chart.hpp"
#include "plots/compose.hpp"
#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::phase {

namespace learning {

// Heads numbered layer by layer: L1H1, L1H2, ..., L2H1, ...
std::string head_name(std::size_t k, std::int64_t H);

// Head k's weights [T, T] at snapshot i.
plots::Matrix head_at(const lab::AttentionTimeline& tl, std::size_t i, std::size_t k, std::int64_t H);

// The settle steps drawn: one bar per head, for its entropy and for its pattern.
plots::Figure settle_chart(const lab::Table& t);

// All heads at every snapshot, one frame each (the GIF).
std::vector<plots::Figure> every_step_frames(const lab::AttentionTimeline& tl, const std::vector<std::string>& tokens,
                                             std::size_t heads, std::int64_t H);

}  // namespace learning

}  // namespace attnlab::phase

namespace attnlab::phase4 {

using namespace attnlab::phase;

// tl: the recorded run's snapshots ([snapshot][layer]: [H, T, T]); run: that run (its loss
// curve); vocab: id -> word.
void section9_attention_while_it_learns(Frame& f, const lab::AttentionTimeline& tl, const lab::TrainResult& run,
                                        const std::vector<std::string>& vocab);

}  // namespace attnlab::phase4
