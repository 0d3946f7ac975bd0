// causality.hpp — does the future reach the past? The check that a causal model's outputs
// at positions <= i never depend on the tokens after i, and the same weights read under
// another mask (how "remove the causal mask at evaluation" is done). Phase 4 runs them on
// the toy grammar's TinyGPT; `tinygpt heads` on any causal checkpoint.
//
//   with_mask         a copy of a model with another attention mask, its weights copied by name
//   logits_of         one sequence's logits [T, V], without a graph
//   max_abs_diff      the largest |a − b| of two tensors of one shape
//   check_causality   change / shuffle every token after i: did the logits at <= i move?
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::lab {

// A new Transformer with `model`'s weights and another mask: causal or not, and optionally
// local (window) or strided. The copy shares nothing with the original.
std::unique_ptr<nn::Transformer> with_mask(const nn::Transformer& model, bool causal, std::int64_t window = 0,
                                           std::int64_t stride = 0);

// Logits [T, V] of one sequence ids [T].
Tensor logits_of(nn::Transformer& model, const std::vector<std::int64_t>& ids);

// Largest |a − b| over two tensors of one shape; 0 means equal (for floats: bit-equal up to
// the sign of zero, and logits never hold NaN).
double max_abs_diff(const Tensor& a, const Tensor& b);

// For each position i that has tokens after it: replace every later token by a different
// random token, then (separately) shuffle the later tokens, and compare the logits at
// positions 0..i (the "prefix") and after i with those of `ids`. The replacements are ids in
// [first_token, V): a grammar model's words start at data::Vocab::kFirstWord (below it are
// <pad> <bos> <eos> [MASK]); a corpus model may take any id of its vocabulary (0). ValueError
// if fewer than 2 ids are in that range (no token differs from another).
struct CausalityRow {
    std::int64_t i;
    double prefix_changed, prefix_shuffled;  // max |Δ logits| at positions ≤ i: 0 for a causal model
    double after_changed;                    // max |Δ logits| at positions > i: the change did reach the model
};
std::vector<CausalityRow> check_causality(nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                          std::int64_t first_token, std::uint64_t seed = 4);

}  // namespace attnlab::lab
