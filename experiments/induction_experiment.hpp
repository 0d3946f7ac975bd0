// induction_experiment.hpp — induction heads forming: a two-layer causal transformer learns
// to complete repeats, and at one moment in training its loss on the repeats collapses as a
// previous-token head (layer 1) and an induction head (layer 2) appear together.
//
// The task: rows of T random tokens whose first n tokens come again right after them,
//   x_0 … x_{n−1} | x_0 … x_{n−1} | random to T,     n drawn per row from [min_n, max_n].
// The first half cannot be predicted (loss ln V); in the repeated half, from position n + 1
// on, the next token is the one after the current token's previous occurrence. n varies per
// row on purpose: with one fixed n, a head that attends n − 1 positions back by position
// alone solves the repeats, and no induction head forms.
//
// The model is nn::Transformer with attention_only (no MLP): two layers of heads and the
// residual stream, the smallest model that holds the circuit. Every evaluation records, on a
// fixed batch, the loss on the first and on the repeated half and each head's previous-token
// and induction scores (analyses/induction.hpp), and the attention of the batch's first row.
// The ablation switches one head off and measures the same numbers again.
#pragma once
#include <memory>
#include <vector>

#include "nn/transformer.hpp"
#include "tensor/rng.hpp"

namespace attnlab::lab {

struct InductionTask {
    std::int64_t vocab = 64;  // V random tokens
    std::int64_t length = 32;  // T
    std::int64_t min_n = 4, max_n = 16;  // the repeated prefix's length, per row; 2·max_n ≤ T
};

struct InductionBatch {
    Tensor ids;        // [B, T] int64
    Tensor targets;    // [B, T] int64: ids shifted left by one; the last position kIgnoreIndex
    Tensor first_targets;     // [B, T]: targets at queries 0 … n − 2 (the first half's tokens), else ignored
    Tensor repeated_targets;  // [B, T]: targets at queries n … 2n − 2 (tokens repeated from the first half), else ignored
    Tensor repeated;          // [B, T] 0/1: those queries n … 2n − 2
    std::vector<std::int64_t> n;  // per row
};
InductionBatch make_induction_batch(const InductionTask& task, std::int64_t batch, Generator& gen);

struct InductionConfig {
    InductionTask task;
    std::int64_t d_model = 64, n_heads = 4, n_layers = 2;
    bool attention_only = true;
    std::int64_t steps = 2000, batch = 32, eval_every = 100, eval_rows = 128;
    double lr = 3e-4, weight_decay = 0.01;  // at 1e-3 and above the repeats are learnt without a sharp induction head
    std::uint64_t seed = 0;  // model init, training batches and the evaluation batch derive from it
};

struct InductionEval {
    std::int64_t step = 0;
    double loss_first = 0, loss_repeated = 0;  // mean cross-entropy over each half's queries (nats)
    std::vector<std::vector<double>> previous, induction;  // [layer][head]
    std::vector<Tensor> attention;  // [layer]: the first evaluation row's weights [H, T, T]
};

// One evaluation of `model` on `batch` (no gradient recorded).
InductionEval evaluate_induction(nn::Transformer& model, const InductionBatch& batch, std::int64_t step);

struct InductionRun {
    InductionConfig config;
    std::unique_ptr<nn::Transformer> model;  // trained
    InductionBatch eval;                     // the fixed evaluation batch
    std::vector<InductionEval> evals;        // at step 0, every eval_every steps, and at the end
    double seconds = 0;
};
InductionRun train_induction(const InductionConfig& config);

// The first evaluation at which the repeated half's loss is below half the first half's:
// the moment the repeats are learnt. -1 if it never is.
std::int64_t collapse_index(const std::vector<InductionEval>& evals);

// The (layer, head) with the highest score in `scores` [layer][head] among the given layers.
struct HeadId {
    std::int64_t layer = 0, head = 0;
};
HeadId best_head(const std::vector<std::vector<double>>& scores, std::int64_t layer);

// `model` re-evaluated on `batch` with head h of layer l switched off (then switched on again).
InductionEval ablate_head(nn::Transformer& model, const InductionBatch& batch, HeadId head, std::int64_t step);

}  // namespace attnlab::lab
