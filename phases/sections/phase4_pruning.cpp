// phase4_pruning.cpp — the bodies of phases/phase4_pruning.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase4_pruning.hpp"

namespace attnlab::phase4 {

PruningToMinimum prune_to_minimum(nn::Transformer& model, double tolerance) {
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

void section8b_pruning_to_minimum(phase::Frame& p, nn::Transformer& model, double tolerance) {
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
