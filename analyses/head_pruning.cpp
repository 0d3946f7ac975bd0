// head_pruning.cpp — see head_pruning.hpp.
#include "analyses/head_pruning.hpp"

#include <algorithm>
#include <numeric>

#include "plots/layout.hpp"

namespace attnlab::lab {

std::vector<std::string> head_names(const nn::Transformer& model) {
    std::vector<std::string> out;
    for (std::int64_t l = 1; l <= model.config().n_layers; ++l)
        for (std::int64_t h = 1; h <= model.config().n_heads; ++h) out.push_back("L" + std::to_string(l) + " H" + std::to_string(h));
    return out;
}

std::vector<double> pruning_losses(nn::Transformer& model, const HeldOutLoss& loss) {
    std::vector<double> out;
    const std::int64_t H = model.config().n_heads;
    for (auto& block : model.blocks) {
        for (std::int64_t h = 0; h < H; ++h) {
            std::vector<bool> on(static_cast<std::size_t>(H), true);
            on[static_cast<std::size_t>(h)] = false;
            block->attn.set_head_mask(on);
            out.push_back(loss(model));
        }
        block->attn.set_head_mask(std::vector<bool>(static_cast<std::size_t>(H), true));
    }
    return out;
}

std::vector<double> cumulative_pruning_losses(nn::Transformer& model, const std::vector<std::size_t>& order,
                                              const HeldOutLoss& loss) {
    const auto H = static_cast<std::size_t>(model.config().n_heads);
    std::vector<std::vector<bool>> on(model.blocks.size(), std::vector<bool>(H, true));  // [layer][head]
    std::vector<double> out;
    for (std::size_t index : order) {
        on[index / H][index % H] = false;
        model.blocks[index / H]->attn.set_head_mask(on[index / H]);
        out.push_back(loss(model));
    }
    for (auto& block : model.blocks) block->attn.set_head_mask(std::vector<bool>(H, true));
    return out;
}

PruningToMinimum prune_to_minimum(nn::Transformer& model, double tolerance, const HeldOutLoss& loss) {
    PruningToMinimum r;
    r.base = loss(model);
    for (double l : pruning_losses(model, loss)) r.importance.push_back(l - r.base);
    r.order.resize(r.importance.size());
    std::iota(r.order.begin(), r.order.end(), std::size_t{0});
    std::stable_sort(r.order.begin(), r.order.end(), [&](std::size_t a, std::size_t b) { return r.importance[a] < r.importance[b]; });
    r.losses = cumulative_pruning_losses(model, r.order, loss);
    std::size_t off = 0;
    while (off < r.losses.size() && r.losses[off] - r.base <= tolerance) ++off;
    r.fewest_heads = static_cast<std::int64_t>(r.order.size() - off);
    return r;
}

Table pruning_table(const PruningToMinimum& r, const std::vector<std::string>& names) {
    Table t({{"heads_on", "heads on", 8, -1}, {"switched_off", "then off", 8, -1}, {"importance", "alone off", 9, 4},
             {"val_loss", "val loss", 8, 4}, {"increase", "increase", 8, 4}});
    t.print_header();
    t.row({static_cast<std::int64_t>(r.order.size()), "-", 0.0, r.base, 0.0});
    for (std::size_t k = 0; k < r.order.size(); ++k)
        t.row({static_cast<std::int64_t>(r.order.size() - k - 1), names[r.order[k]], r.importance[r.order[k]], r.losses[k],
               r.losses[k] - r.base});
    return t;
}

plots::Figure pruning_figure(const PruningToMinimum& r, const Table& steps, double tolerance, const std::string& who) {
    const double n = static_cast<double>(r.order.size());
    const std::string nats = plots::layout::format_fixed(tolerance, 2);
    return plots::line_chart({steps.series("heads_on", "increase", {.name = "loss increase (heads off cumulatively)"}),
                              {.name = "tolerance " + nats + " nats", .x = {0, n}, .y = {tolerance, tolerance}, .markers = false,
                               .dashed = true}},
                             {.title = "Pruning " + who + ": " + std::to_string(r.fewest_heads) + " of " +
                                       std::to_string(r.order.size()) + " heads stay within " + nats + " nats",
                              .x_title = "heads still on (least important switched off first)",
                              .y_title = "validation loss increase (nats)"});
}

}  // namespace attnlab::lab
