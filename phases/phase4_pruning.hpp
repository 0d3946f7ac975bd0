// phase4_pruning.hpp — the ablation claim that removing any head hurts performance,
// taken to its end: how few heads does the trained causal model need?
//
// Each head's importance is the validation-loss increase with that head alone switched off
// (step 8's one-at-a-time experiment). Then the heads go off one after another, least
// important first, each staying off, until none is left; the minimum is the fewest heads
// still on before the loss first rises more than `tolerance` (0.05 nats) above the full
// model's. Greedy by single-head importance, so it is an upper bound on the true minimum
// (which would need all 2^(L·H) subsets).
#pragma once
#include <numeric>

#include "app/report.hpp"
#include "phases/phase4_experiments.hpp"
#include "phases/phase_common.hpp"
#include "plots/layout.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::phase4 {

struct PruningToMinimum {
    double base = 0;                    // validation loss with every head on
    std::vector<double> importance;     // per head (head_names order): the loss increase with it alone off
    std::vector<std::size_t> order;     // heads by increasing importance
    std::vector<double> losses;         // losses[k]: heads order[0..k] off
    std::int64_t fewest_heads = 0;      // heads still on at the last step within the tolerance
};

PruningToMinimum prune_to_minimum(nn::Transformer& model, double tolerance);

void section8b_pruning_to_minimum(phase::Frame& p, nn::Transformer& model, double tolerance = 0.05);

}  // namespace attnlab::phase4
