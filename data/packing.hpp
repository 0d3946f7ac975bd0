// packing.hpp — laying whole sentences into fixed-length rows, and what that does to
// the probabilities a model should predict.
//
// A row of `slots` tokens is
//     <bos> sentence <eos> sentence <eos> ... sentence <eos> <pad> ... <pad>
// It starts at a sentence boundary, holds only whole sentences, and is filled as far
// as it goes: while any sentence would still fit in the slots left, another one is
// drawn — from the grammar, conditioned to fit (as if drawing until one fits). Only
// the last few slots, too short for the shortest sentence, are padding.
//
// Why the conditioning matters. A sentence started four slots before the end of a
// row is a short one, and a model that knows its position can know that too: near
// the row's end <eos> is likelier than the grammar alone says. So the exact next-token
// probability in a packed row is the grammar's, conditioned on the rest of the
// sentence fitting in the slots that are left:
//     P(w | state, b) = P(w | state) · fit(next, b − 1) / fit(state, b),
//     P(<eos> | state, b) = P(<eos> | state) / fit(state, b),
// where b = slots − 1 − i is the number of words the slots from i on can still hold
// (one slot goes to the sentence's <eos>) and fit is Grammar::fit_prob. Far from the
// row's end every fit is exactly 1 and this is the grammar's own probability.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "data/grammar.hpp"
#include "tensor/rng.hpp"

namespace attnlab::data {

// One packed row of `slots` token ids. Throws ValueError if even the shortest
// sentence (with <bos> and <eos>) does not fit.
std::vector<std::int64_t> pack_row(const Grammar& g, Generator& gen, std::int64_t slots);

// For a packed row: p[i] = P(row[i] | row[0..i)) under the packing rule above, for
// every slot (p[0] = 1 for the <bos>; padding, where it must come, has probability 1).
// Throws ValueError naming the slot and token if the row is not one pack_row can make.
std::vector<double> packed_token_probs(const Grammar& g, std::span<const std::int64_t> row);

}  // namespace attnlab::data
