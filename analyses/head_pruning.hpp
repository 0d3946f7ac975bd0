// head_pruning.hpp — switching heads off to see which ones the model needs (the ablation
// claim that removing a head hurts, measured), on whatever "the held-out loss" is: phase 4
// passes the toy grammar's validation loss, `tinygpt heads` a trained run's own held-out
// batches (training/held_out.hpp).
//
//   pruning_losses              the held-out loss with each head alone switched off
//   cumulative_pruning_losses   heads switched off one after another, each staying off
//   prune_to_minimum            heads off least important first, until none is on: the
//                               fewest heads within `tolerance` nats of the full model
//   pruning_table, pruning_figure   the last one printed, recorded and drawn, from one table
//
// A head switched off has its output zeroed before W_O mixes the heads
// (MultiHeadAttention::set_head_mask); every function leaves the model with all heads on.
// Heads are numbered layer-major: index l·H + h is layer l + 1, head h + 1 ("L1 H2").
// Pruning to the minimum is greedy by single-head importance, so its count is an upper
// bound on the true minimum (which would need all 2^(L·H) subsets).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/report.hpp"
#include "nn/transformer.hpp"
#include "plots/scene.hpp"

namespace attnlab::lab {

// The loss the ablations are measured by: the model as it stands (some heads off) -> nats.
using HeldOutLoss = std::function<double(nn::Transformer& model)>;

// "L1 H1", "L1 H2", ...: head names in layer-major order.
std::vector<std::string> head_names(const nn::Transformer& model);

// loss(model) with head i alone off, for every head i (L·H values).
std::vector<double> pruning_losses(nn::Transformer& model, const HeldOutLoss& loss);

// out[k]: loss(model) with heads order[0..k] off.
std::vector<double> cumulative_pruning_losses(nn::Transformer& model, const std::vector<std::size_t>& order,
                                              const HeldOutLoss& loss);

struct PruningToMinimum {
    double base = 0;                    // the loss with every head on
    std::vector<double> importance;     // per head (head_names order): the loss increase with it alone off
    std::vector<std::size_t> order;     // heads by increasing importance (ties: lower index first)
    std::vector<double> losses;         // losses[k]: heads order[0..k] off
    std::int64_t fewest_heads = 0;      // heads still on at the last step within the tolerance
};

PruningToMinimum prune_to_minimum(nn::Transformer& model, double tolerance, const HeldOutLoss& loss);

// The steps of r as a table (printed as it fills; its json() is the record): heads on, the
// head then switched off, its importance alone, the loss and its increase over the full model.
// The loss is the validation loss of the run: train() validates on the same held-out data.
Table pruning_table(const PruningToMinimum& r, const std::vector<std::string>& names);
// The increase against the heads still on, with the tolerance dashed; the title names `who`
// ("the causal model").
plots::Figure pruning_figure(const PruningToMinimum& r, const Table& steps, double tolerance, const std::string& who);

}  // namespace attnlab::lab
