// mlm_batches.hpp — batches for masked-token prediction (a bidirectional encoder),
// and the exact floor under their loss.
//
// Rows are packed as for the causal model (data/packing.hpp), T tokens each; then
// every word is hidden behind [MASK] with probability mask_prob (at least one per
// row). The model sees the whole row at once and predicts each hidden word:
//   ids      <bos> the [MASK] sat on the mat <eos> the dogs [MASK] <eos> <pad>
//   targets   -100 -100 cat  -100 ...           -100 -100 sleep -100  -100
//   lengths  12    (tokens before the padding: attend to these, never to <pad>)
// Specials are never masked, so where each sentence begins and ends stays visible.
//
// The floor. The best possible prediction of a hidden word is its posterior given
// every visible token of the row. Sentences in a row are independent given where
// they start and end (the packing depends only on their lengths, which the visible
// <eos> tokens fix), so the posterior comes from the hidden word's own sentence:
//   P(w_j = w | visible) ∝ Σ over the other hidden words of P(sentence),
// summed exactly by a forward–backward pass over the grammar's automaton: forward
// probabilities α_j(s) of reaching state s at slot j, backward probabilities β_j(s)
// of completing the sentence from s, each hidden slot summing over all words. Then
//   P(w_j = w | visible) ∝ Σ_s α_j(s) · P(w | s) · β_{j+1}(step(s, w)).
// This is the marginal per hidden word — what a model that predicts each [MASK]
// separately should output — and it costs O(slots × states × words) per sentence.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "data/grammar.hpp"
#include "data/lm_batches.hpp"
#include "tensor/rng.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::data {

struct MLMBatch {
    Tensor ids;      // int64 [B, T]: packed rows, some words replaced by [MASK]
    Tensor targets;  // int64 [B, T]: the hidden word where ids is [MASK], kIgnoreIndex elsewhere
    Tensor lengths;  // int64 [B]: tokens before the padding; key slots >= length are masked out
};

MLMBatch make_mlm_batch(const Grammar& g, Generator& gen, std::int64_t B, std::int64_t T, double mask_prob = 0.15);

// −log P(hidden word | all visible tokens of its row) at each [MASK], float64 [B, T];
// 0 elsewhere. Throws ValueError if a row (with its hidden words restored) is not one
// make_mlm_batch makes.
Tensor bayes_floor_mlm_per_position(const Grammar& g, const MLMBatch& batch);
// The mean over the hidden words: the lowest mean cross-entropy any model can reach.
double bayes_floor_mlm(const Grammar& g, const MLMBatch& batch);
double bayes_floor_mlm(const Grammar& g, const std::vector<MLMBatch>& batches);

// The posterior itself, for one sentence: its words in order, [MASK] where hidden
// (no <bos>/<eos>). Returns, per slot, P(word | the visible words) over the whole
// vocabulary — empty for visible slots. Throws ValueError if no way of filling the
// hidden slots makes a sentence. (This is what a perfect encoder predicts for
// "the [MASK] sat on the mat".)
std::vector<std::vector<double>> masked_word_posteriors(const Grammar& g, std::span<const std::int64_t> sentence);

// Held-out batches from a Generator of their own (see make_lm_validation).
std::vector<MLMBatch> make_mlm_validation(const Grammar& g, std::int64_t n_batches, std::int64_t B, std::int64_t T,
                                          double mask_prob = 0.15, std::uint64_t seed = kValidationSeed);

}  // namespace attnlab::data
