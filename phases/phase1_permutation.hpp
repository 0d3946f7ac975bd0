// phase1_permutation.hpp — attention is permutation equivariant without position
// encodings, measured on the trained single_head_model.
//
//   f(P X) = P f(X)   for every permutation matrix P,   if X carries no positions
//
// Attention mixes the rows of V with weights that depend only on the contents of q_i and
// k_j, and the LayerNorms, the MLP and the output head act on each row alone: shuffle the
// tokens and every row of every layer shuffles with them. The only thing that can break
// the symmetry is pos_emb, which adds a different vector at each position. So we run the
// model twice on the sentence and on a shuffled copy, once with tok_emb only and once with
// tok_emb + pos_emb, un-shuffle the second output and compare.
// In exact arithmetic the first difference is 0; in float32 the sums over keys run in a
// different order, so it is a few ulps (~1e-7 of values of order 1). Left out: the causal
// model (its mask is itself positional, so it is not equivariant even without pos_emb).
// Bodies in phases/sections/phase1_permutation.cpp.
#pragma once
#include "phases/phase_common.hpp"

namespace attnlab::phase1 {

using namespace attnlab::phase;

// A permutation of 0..T−1 from the seed (Fisher–Yates on our own generator, so every
// platform draws the same one); never the identity when T > 1, which would test nothing.
std::vector<std::int64_t> random_permutation(std::int64_t T, std::uint64_t seed);

// One forward of the model on a sentence, with or without pos_emb: logits [1, T, V] and
// the first layer's attention weights [T, T] (head 1).
struct EncoderRun {
    Tensor logits, weights;
};

// Run on ids and on ids[perm]; un-shuffle nothing, shuffle the first run instead:
// equivariance says run(ids[perm]) row i = run(ids) row perm[i], weights W'[i][j] = W[perm[i]][perm[j]].
struct PermutationCheck {
    EncoderRun original, shuffled;
    Tensor expected_weights;  // the original weights, shuffled: what equivariance predicts
    double max_diff_logits = 0, max_diff_weights = 0;
};
PermutationCheck check_permutation(nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                   const std::vector<std::int64_t>& perm, bool positions);

// Phase 1's section: both cases, printed and recorded from one table, drawn as four heatmaps.
// `ids` is the sentence, `tokens` its labels.
void section6_permutation_equivariance(Frame& p, nn::LoadedCheckpoint& ckpt, const std::vector<std::int64_t>& ids,
                                      const std::vector<std::string>& tokens);

}  // namespace attnlab::phase1
