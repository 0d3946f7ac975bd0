// phase1_seed003.hpp — seed 003's two small demonstrations, in phase 1 after the seeds'
// worked examples (bodies in phases/sections/phase1_seed003.cpp).
//
//   §3.1 three tokens with 4-dimensional embeddings and Q = K = V = X, no projections:
//        the scores are X Xᵀ / √4, so a token's weight on itself is its squared norm / 2.
//        By hand: XXᵀ = [[2,0,2],[0,8,4],[2,4,4]], so row 1 is [e, 1, e]/(2e + 1) and
//        token 3 ([1,1,1,1]) gives token 2 ([0,2,0,2]) as much weight as itself.
//   §4   a SelfAttention layer (W_Q, W_K, W_V, no W_O) with random weights on 5 random
//        tokens of width 8, as the seed runs it (W ~ N(0, 1/d_model)): the weights are spread
//        out (nothing is learned) but not uniform, each row sums to 1, and the output keeps the
//        input's shape; beside it, how near uniform each init is, with and without 1/sqrt(d_k).
// tests/phases/test_seed_sections.cpp checks §3.1's numbers against the hand computation and
// §4's entropy / log T for both inits, scaled and not.
#pragma once
#include <optional>

#include "nn/attention.hpp"
#include "phases/phase_common.hpp"

namespace attnlab::phase {

// §3.1's input: X [3, 4]; Q = K = V = X.
Tensor seed003_three_tokens();

void section6_seed003_three_tokens(Frame& p);

// §4's layer on §4's input: X [5, 8] and the weights drawn from Generator(seed), in that order.
// Seed003Init::seed draws W_Q, W_K, W_V as the seed's numpy does, N(0, 1) / sqrt(d_model); ::layer
// keeps nn::Linear's own U(±1/sqrt(d_model)) (PyTorch's default), whose std is 1/sqrt(3) of the
// seed's, so its scores are 3x smaller. scale: as SelfAttention::forward (1.0 = unscaled q·k).
enum class Seed003Init { seed, layer };
struct RandomSelfAttention {
    nn::AttentionResult r;  // output (5, 8), weights (5, 5)
    std::int64_t parameters = 0;
    double entropy_ratio = 0;     // mean over rows of H(row) / log T: 1 = uniform, 0 = one key
    double max_from_uniform = 0;  // max |A - 1/T|
};
RandomSelfAttention seed003_random_self_attention(std::uint64_t seed, Seed003Init init = Seed003Init::seed,
                                                  std::optional<double> scale = std::nullopt);

void section7_seed003_random_self_attention(Frame& p);

}  // namespace attnlab::phase
