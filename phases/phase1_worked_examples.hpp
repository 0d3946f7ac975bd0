// phase1_worked_examples.hpp — two hand-computed attention examples,
// as data: phase 1 computes and prints them, tests/phases/test_phase12.cpp checks
// them. Bodies in phases/sections/phase1_worked_examples.cpp.
//
// Both are easy to get slightly wrong by rounding too early, and the course does:
//   one query, three keys, no scaling. The weights [0.474, 0.174, 0.351] are right to
//     3 decimals, but multiplying the values by those rounded weights gives
//     [2.751, 3.750]; the exact output is
//     [2.754, 3.754] (the rounded weights sum to 0.999, which costs 0.003).
//   Q 3x2, K 4x2, V 4x2, scaled by 1/sqrt(2). Row 0 of QK^T is
//     [1, 0, 1, 0], so its weights are [a, b, a, b] with a = e^(1/sqrt2)/(2e^(1/sqrt2) + 2)
//     = 0.335 and b = 0.165; an "approximate [0.31, 0.17, 0.31, 0.20]" is
//     not symmetric, as the scores are, and does not sum to 1.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "nn/attention.hpp"

namespace attnlab::phase {

struct WorkedExample {
    std::string name;
    Tensor q, k, v;                     // (n, d_k), (m, d_k), (m, d_v)
    std::optional<double> scale;        // nullopt = 1/sqrt(d_k)
    std::vector<double> expected_row0;  // exact weights of query 0, to 3 decimals
    std::vector<double> course_row0;      // what the course prints for them
    std::vector<double> expected_out0;  // exact output of query 0, to 3 decimals (empty = not given)
    std::vector<double> course_out0;      // what the course prints for it
    nn::AttentionResult run() const { return nn::scaled_dot_product_attention(q, k, v, nn::Mask(), scale); }
};

WorkedExample unscaled_one_query_example();

WorkedExample scaled_four_keys_example();

}  // namespace attnlab::phase
