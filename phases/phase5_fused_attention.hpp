// phase5_fused_attention.hpp — phase 5's cost section, part two: the fused path.
//
// The composed path (section 10) forms the T×T scores and weights; flash_attention
// (nn/flash_attention.hpp) computes the same output block by block with an online
// softmax and never does. This section measures both against T — time and the peak
// tensor bytes one call allocates (tensor/allocator.hpp's counters) — fits the
// exponents on log–log axes, and draws the online softmax of one query row: the
// running max and sum as key blocks arrive, and the row's weights rebuilt from the
// kernel's log-sum-exp beside the composed path's weights.
//
// section11_fused_attention(out_dir) writes out_dir/fused_attention_cost.{svg,png} and
// out_dir/online_softmax.{svg,png} and returns the numbers for metrics.json.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "autograd/node.hpp"
#include "nn/attention.hpp"
#include "experiments/attention_cost.hpp"
#include "app/report.hpp"
#include "nn/flash_attention.hpp"
#include "plots/compose.hpp"
#include "plots/line_chart.hpp"
#include "phases/phase_common.hpp"
#include "tensor/allocator.hpp"
#include "io/json.hpp"
#include "tensor/ops.hpp"

namespace attnlab::phase5 {

namespace P = attnlab::plots;

// Time and memory against T, B 1, H 8, d_k 64, no grad; writes fused_attention_cost.
void fused_cost_against_T(phase::Output& out, Json& result);

// The online softmax of one query row, block by block, beside the composed softmax;
// writes online_softmax.
void online_softmax_of_one_row(phase::Output& out, Json& result);

Json section11_fused_attention(phase::Output& out);

}  // namespace attnlab::phase5
