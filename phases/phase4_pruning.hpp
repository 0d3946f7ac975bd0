// phase4_pruning.hpp — seed 000's "Ablation studies: removing any head hurts performance",
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

#include "lab/report.hpp"
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

inline PruningToMinimum prune_to_minimum(nn::Transformer& model, double tolerance) {
    PruningToMinimum r;
    r.base = lab::evaluate(model, lab::Task::causal).loss;
    for (double l : pruning_losses(model)) r.importance.push_back(l - r.base);
    r.order.resize(r.importance.size());
    std::iota(r.order.begin(), r.order.end(), std::size_t{0});
    std::stable_sort(r.order.begin(), r.order.end(), [&](std::size_t a, std::size_t b) { return r.importance[a] < r.importance[b]; });
    r.losses = cumulative_pruning_losses(model, r.order);
    std::size_t off = 0;
    while (off < r.losses.size() && r.losses[off] - r.base <= tolerance) ++off;
    r.fewest_heads = static_cast<std::int64_t>(r.order.size() - off);
    return r;
}

inline void section_pruning_to_minimum(phase::Frame& p, nn::Transformer& model, double tolerance = 0.05) {
    phase::section("8b. Pruning to the minimum: heads off one after another, least important first");
    const PruningToMinimum r = prune_to_minimum(model, tolerance);
    const std::vector<std::string> names = head_names(model);
    lab::Table t({{"heads_on", "heads on", 8, -1}, {"switched_off", "then off", 8, -1}, {"importance", "alone off", 9, 4},
                  {"val_loss", "val loss", 8, 4}, {"increase", "increase", 8, 4}});
    t.print_header();
    t.row({static_cast<std::int64_t>(r.order.size()), "-", 0.0, r.base, 0.0});
    for (std::size_t k = 0; k < r.order.size(); ++k)
        t.row({static_cast<std::int64_t>(r.order.size() - k - 1), names[r.order[k]], r.importance[r.order[k]], r.losses[k],
               r.losses[k] - r.base});
    std::printf("=> %lld of %zu heads keep the validation loss within %.2f nats of the full model's %.4f\n",
                static_cast<long long>(r.fewest_heads), r.order.size(), tolerance, r.base);
    p.m["pruning_to_minimum"] = Json::Object{{"tolerance", tolerance}, {"base_val_loss", r.base},
                                             {"fewest_heads", r.fewest_heads}, {"steps", t.json()}};
    const double n = static_cast<double>(r.order.size());
    p.out.figure(plots::line_chart({t.series("heads_on", "increase", {.name = "loss increase (heads off cumulatively)"}),
                                    {.name = "tolerance " + plots::layout::format_fixed(tolerance, 2) + " nats", .x = {0, n},
                                     .y = {tolerance, tolerance}, .markers = false, .dashed = true}},
                                   {.title = "Pruning the causal model: " + std::to_string(r.fewest_heads) + " of " +
                                             std::to_string(r.order.size()) + " heads stay within " +
                                             plots::layout::format_fixed(tolerance, 2) + " nats",
                                    .x_title = "heads still on (least important switched off first)",
                                    .y_title = "validation loss increase (nats)"}),
                 "pruning_to_minimum",
                 "Phase 4: validation-loss increase as heads are switched off cumulatively, least important first; "
                 "the fewest heads within the tolerance.");
}

}  // namespace attnlab::phase4
