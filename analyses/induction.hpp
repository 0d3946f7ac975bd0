// induction.hpp — the two attention patterns of an induction circuit, scored per head.
//
// An induction head completes a repeat: having seen "... A B ... A", it predicts B. It
// cannot see B from A alone; it needs a previous-token head in an earlier layer, which
// writes into every position j "the token before me was ids[j − 1]". The induction head's
// query (the current token A) then matches the key of the position whose previous token
// was A, the position just after A's previous occurrence, and copies B from there.
//
//   previous-token score   mean over queries i ≥ 1 of w[i, i − 1]
//   induction score        mean over the chosen queries i of w[i, m + 1], where m < i is the
//                          latest earlier position holding the same token (m + 1 ≤ i)
//
// Both are 1 for a head that does exactly that and about 1/(i + 1) for a causal head that
// attends uniformly. Weights are [B, H, T, T] (one layer, as nn::AttentionTrace records
// them), query i at position i and key j at position j.
#pragma once
#include <vector>

#include "nn/transformer.hpp"
#include "tensor/rng.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::lab {

// weights [B, H, T, T] -> [H]: the previous-token score of each head.
std::vector<double> previous_token_scores(const Tensor& weights);

// weights [B, H, T, T], ids [B, T] int64 -> [H]: the induction score of each head, averaged over
// the queries whose token occurred earlier in their row and, when `queries` is given ([B, T]
// int64 0 / 1), are chosen by it (the repeated half of a row, say). 0 if no query qualifies.
std::vector<double> induction_scores(const Tensor& weights, const Tensor& ids, const Tensor& queries = Tensor());

// The mean attention of a uniform causal head to one key, over queries i ≥ 1 of a row of T:
// mean of 1/(i + 1). What a head scores on either measure when it has learnt nothing.
double uniform_causal_score(std::int64_t T);

// Rows "prefix x_1 … x_n x_1 … x_n" with every x drawn uniformly from the token ids [lo, hi):
// a repeat any model of those tokens can only complete by induction. ids [B, T] int64 and
// repeat [B, T] int64 0 / 1 marking the second copy's positions (the queries to score).
struct RepeatedRows {
    Tensor ids, repeat;
};
RepeatedRows repeated_random_rows(std::int64_t rows, std::int64_t n, std::int64_t lo, std::int64_t hi,
                                  const std::vector<std::int64_t>& prefix, Generator& gen);

// Every head's two scores, [layer][head], from one forward pass of `model` on ids [B, T] with its
// attention traced (no gradient recorded); induction scores over `queries` as above.
struct HeadScores {
    std::vector<std::vector<double>> previous, induction;
};
HeadScores head_scores(nn::Transformer& model, const Tensor& ids, const Tensor& queries = Tensor());

}  // namespace attnlab::lab
