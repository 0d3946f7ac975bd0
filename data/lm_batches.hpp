// lm_batches.hpp — batches for next-token prediction (a causal language model), and
// the exact floor under their loss.
//
// A row is a packed row of T + 1 tokens (data/packing.hpp) cut into
//   ids     = tokens 0 .. T-1      <bos> the cat sat on the mat <eos> the dogs ...
//   targets = tokens 1 .. T        the  cat sat on the mat <eos> the  dogs ...
// so targets[b][t] is the token after ids[b][t]. Where the target is <pad> there is
// nothing to predict and the target is kIgnoreIndex (-100, PyTorch's ignore_index),
// which the cross-entropy loss skips.
//
// The floor. Because the grammar's state is known after every prefix, the probability
// with which each target was generated is known exactly; its mean −log over the
// non-ignored targets is the loss of the Bayes-optimal predictor on exactly these
// tokens — no model can do better in expectation, and a good one gets close. A
// training curve above it measures what is left to learn; one below it on held-out
// batches means a bug (usually a causal mask that lets a position see its target).
#pragma once
#include <cstdint>
#include <vector>

#include "data/grammar.hpp"
#include "tensor/rng.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::data {

inline constexpr std::int64_t kIgnoreIndex = -100;

struct LMBatch {
    Tensor ids;      // int64 [B, T]
    Tensor targets;  // int64 [B, T]: the next token, or kIgnoreIndex where it is <pad>
};

// B packed rows drawn with `gen`. T must leave room for the shortest sentence.
LMBatch make_lm_batch(const Grammar& g, Generator& gen, std::int64_t B, std::int64_t T);

// −log P(target | everything before it) at each position, float64 [B, T]; 0 where
// the target is ignored. Throws ValueError if a row is not one make_lm_batch makes.
Tensor bayes_floor_per_position(const Grammar& g, const LMBatch& batch);
// The mean of that over the non-ignored targets: the lowest mean cross-entropy (in
// nats) any model can reach on this batch.
double bayes_floor(const Grammar& g, const LMBatch& batch);
// The same over several batches, weighted by their number of targets.
double bayes_floor(const Grammar& g, const std::vector<LMBatch>& batches);

// ---- a held-out split ------------------------------------------------------------------
// Validation batches come from a Generator of their own, seeded with kValidationSeed,
// so they are the same on every run and every machine, and drawing training batches
// (from another generator) never moves them. Train and validation are independent
// draws from one distribution: short sentences ("the dog sees the cat") recur in
// both, as they would in any corpus, and the floor is what says how well a model
// generalises beyond memorising them.
inline constexpr std::uint64_t kValidationSeed = 0x76616c6964;  // "valid" in ASCII
std::vector<LMBatch> make_lm_validation(const Grammar& g, std::int64_t n_batches, std::int64_t B, std::int64_t T,
                                        std::uint64_t seed = kValidationSeed);

// ---- character-level batches --------------------------------------------------------------
// For a corpus of unknown distribution (any text file through CharTokenizer): B random
// windows of T + 1 consecutive tokens, cut into ids and targets as above. No padding,
// and no floor — nobody knows the distribution of real text. Needs tokens.size() > T.
LMBatch make_char_lm_batch(const std::vector<std::int64_t>& tokens, Generator& gen, std::int64_t B, std::int64_t T);

}  // namespace attnlab::data
