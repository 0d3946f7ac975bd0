// attention_stats.hpp — numbers that describe attention patterns (entropy, self,
// local and global weight, how alike heads are). Inputs are attention weights [..., Tq, Tk]
// whose rows sum to 1 (or are all zero: a fully masked row, which counts as no attention).
//
//   entropy            −Σ_j w_ij ln w_ij per row: 0 = all weight on one key, ln Tk = uniform
//   distance           Σ_j w_ij |i − j| per row: how far a query looks
//   diagonal_mass      w_ii: attention to itself
//   local_mass         Σ_{|i−j|≤1} w_ij: to itself and its neighbours
//   previous_mass      w_{i,i−1}: to the previous token
//   rollout            Abnar & Zuidema (2020): Ã_l = ½A_l + ½I (the residual), heads
//                      averaged, multiplied through the layers: R = Ã_L ··· Ã_1
//
// Query i is taken to sit at position i (and key j at j): the usual self-attention layout.
#pragma once
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab::lab {

Tensor row_entropy(const Tensor& weights);      // [..., Tq, Tk] -> [..., Tq]
Tensor row_distance(const Tensor& weights);     // [..., Tq, Tk] -> [..., Tq]
Tensor diagonal_mass(const Tensor& weights);    // [..., Tq, Tk] -> [..., Tq]
Tensor local_mass(const Tensor& weights);       // [..., Tq, Tk] -> [..., Tq]
Tensor previous_mass(const Tensor& weights);    // [..., Tq, Tk] -> [..., Tq] (0 for query 0)

// Mean over the batch and the queries, per head: weights [B, H, T, T] -> [H]
Tensor per_head_mean(const Tensor& per_query);  // [B, H, Tq] -> [H]

// layers[l]: [H, T, T] (one sequence) -> the rollout [T, T]
Tensor attention_rollout(const std::vector<Tensor>& layers);

// Cosine similarity of every pair of heads' flattened patterns: [H, T, T] -> [H, H]
Tensor head_similarity(const Tensor& heads);

}  // namespace attnlab::lab
