// reversal.hpp — the sequence-reversal task of encoder-decoder attention: read a sequence of
// digits, write it backwards.
//
//   source  3 7 1 5            (digits 0–9, length 4–10)
//   target  5 1 7 3 <eos>
//
// Output token t is source token L − 1 − t, so a model that attends learns an
// anti-diagonal alignment; one that must squeeze the source into a single vector
// has to memorise up to 10 digits in order.
//
// Tokens: digits 0..9, then <pad> 10, <bos> 11, <eos> 12 (vocabulary 13, shared by
// source and target). A batch pads its sources on the right to its longest one,
// and the decoder's teacher-forced input / target pairs are
//   tgt_in  = <bos> y_1 ... y_L          <pad> ...
//   tgt_out = y_1   ... y_L   <eos>     −100 ... (ignored by the loss)
//
// Held out means never trained on: a fixed hash of the digits assigns every
// sequence to the evaluation split (1 in 8) or the training split, and each sampler
// draws only from its own split, so no evaluation sequence is ever a training
// sequence — even for length 4, where 10⁴ sequences would otherwise all be seen.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/rng.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::data {

inline constexpr std::int64_t kReversalDigits = 10;
inline constexpr std::int64_t kReversalPad = 10, kReversalBos = 11, kReversalEos = 12;
inline constexpr std::int64_t kReversalVocab = 13;
inline constexpr std::int64_t kReversalIgnore = -100;  // PyTorch's ignore_index, as nn::kIgnoreIndex

struct ReversalConfig {
    std::int64_t min_len = 4, max_len = 10;
};

using Digits = std::vector<std::int64_t>;

struct ReversalBatch {
    Tensor src;                         // int64 [B, S], S = longest source; <pad> after each
    std::vector<std::int64_t> lengths;  // source lengths, one per row
    Tensor tgt_in;                      // int64 [B, S + 1]: <bos> then the reversed source
    Tensor tgt_out;                     // int64 [B, S + 1]: the reversed source then <eos>; −100 after
};

// True for the 1 in 8 sequences reserved for evaluation (FNV-1a hash of the digits).
bool is_held_out(const Digits& source);

// One source of uniform length in [min_len, max_len] and uniform digits, from the
// chosen split (rejection sampling).
Digits sample_source(Generator& gen, const ReversalConfig& config, bool held_out);

// Pads and lays out the given sources (each of length ≥ 1, digits only).
ReversalBatch make_reversal_batch(const std::vector<Digits>& sources);

// B training-split sources drawn with gen.
ReversalBatch sample_reversal_batch(Generator& gen, std::int64_t batch_size, const ReversalConfig& config);

// `per_length` distinct held-out sources of every length min_len..max_len, in order of length.
std::vector<Digits> held_out_sources(Generator& gen, std::int64_t per_length, const ReversalConfig& config);

Digits reversed(const Digits& source);
std::string to_string(const Digits& tokens);  // "3 7 1 5"; <pad>, <bos>, <eos> spelled out

}  // namespace attnlab::data
