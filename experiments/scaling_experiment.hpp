// scaling_experiment.hpp — why attention scales its scores by 1/√d_k, measured:
// what dividing the scores by √d_k does to their variance, to the softmax, to the
// gradients through it, and to training.
//
// Queries and keys are projections of unit-variance inputs, q = x W_Q, k = x W_K,
// with W ~ N(0, 1/d_k), so every component of q and k has unit variance — the
// the course's assumption. Then q · k sums d_k products of unit variance: its variance is
// d_k, and scaling by 1/√d_k brings it back to 1.
//
// Left out: masks, multiple heads, and the learned projections of a real model
// (phase 1 shows those on the trained model). The formula is written out here
// rather than calling scaled_dot_product_attention, because the experiment needs
// the gradient at the softmax input. To try another scale, change `scale` below.
#pragma once
#include <cstdint>
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab::lab {

struct ScalingStats {
    std::int64_t d_k = 0;
    bool scaled = false;
    double score_variance = 0;     // Var(q·k · scale): what softmax receives
    double mean_max_weight = 0;    // mean over rows of max_j w_ij: 1/T = uniform, 1 = one-hot
    double mean_entropy = 0;       // mean over rows of −Σ w ln w, nats: ln T = uniform, 0 = one-hot
    double saturated_rows = 0;     // share of rows whose max weight exceeds 0.99
    double grad_norm_logits = 0;   // ‖dL/d(softmax input)‖ per sequence, mean over sequences
    double median_row_grad = 0;    // median over all rows of ‖dL/d(softmax input)_i‖: a saturated row gets ~0
    double grad_norm_w_q = 0;      // ‖dL/dW_Q‖ per sequence, mean over sequences
};

// n_seq sequences of T tokens, each with its own random W_Q, W_K [d_k, d_k].
// The loss is L = Σ (weights ⊙ R) for a fixed random R ~ N(0, 1) [T, T]: dL/dweights
// is then the same for every d_k, so the gradient at the softmax input measures the
// softmax alone (diag(w) − w wᵀ applied to R), not the size of the values behind it.
// (A plain Σ weights would give zero gradient: every row sums to 1.) Deterministic in seed.
ScalingStats measure_scaling(std::int64_t d_k, bool scaled, std::int64_t n_seq = 256, std::int64_t T = 16,
                             std::uint64_t seed = 0);

// The small task trained with and without scaling: pointer lookup. A row holds
// T data tokens (from `vocab` symbols) and then a pointer token naming a position p;
// the model must output the data token at p. Its one attention layer has to put
// its weight on one key — exactly where a saturated softmax stops learning.
//   ids -> tok_emb + pos_emb [B, T+1, d_k] -> SelfAttention(d_k, d_k) -> last query -> Linear -> [B, vocab]
// Embeddings N(0, 1) and Linear U(±1/√in) as PyTorch initialises them; AdamW.
struct PointerTaskConfig {
    std::int64_t d_k = 128;
    std::int64_t T = 8;        // data tokens per row (then one pointer token)
    std::int64_t vocab = 16;   // data symbols; chance loss is ln(vocab)
    std::int64_t batch = 64;
    std::int64_t steps = 200;
    double lr = 1e-3;
    std::uint64_t seed = 0;    // same seed => same initial weights and the same batches
};
struct PointerTaskResult {
    std::vector<double> loss;  // training loss of every step's batch
    double final_loss = 0;     // mean loss on 16 held-out batches after training
    double final_accuracy = 0;
};
PointerTaskResult train_pointer_task(const PointerTaskConfig& config, bool scaled);

}  // namespace attnlab::lab
