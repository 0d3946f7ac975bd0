// phase2_heads_cost.hpp — multi-head attention is often said to cost "~H×" the
// computation of a single head. At a fixed d_model it does not: H heads of width
// d_k = d_model / H do, per layer and sequence of T tokens,
//   projections  W_Q, W_K, W_V, W_O:        4 · 2·T·d_model²           (no H)
//   scores and weighted sum, all heads:      2 · 2·H·T²·d_k = 4·T²·d_model (no H)
//   softmax, ~5 flops per score:             5·H·T²                     (the only H term)
// The heads sweep of step 6 already times each run; this draws its time per step against
// H beside what "~H×" would predict from the one-head run. (Times measured on a loaded
// machine are noisy; the flop count is exact.)
#pragma once
#include "app/report.hpp"
#include "phases/phase_common.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::phase2 {

using namespace attnlab::phase;

// Forward flops of one attention layer as counted above.
double attention_flops(std::int64_t T, std::int64_t d_model, std::int64_t n_heads);

// sweep: the heads sweep's table, with its n_heads and ms_per_step columns.
void draw_time_per_step(Frame& p, const lab::Table& sweep, std::int64_t d_model, std::int64_t context);

}  // namespace attnlab::phase2
