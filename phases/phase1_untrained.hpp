// phase1_untrained.hpp — attention with nothing learned, in two small demonstrations, in phase 1
// after the worked examples (bodies in phases/sections/phase1_untrained.cpp).
//
//   three tokens with 4-dimensional embeddings and Q = K = V = X, no projections:
//        the scores are X Xᵀ / √4, so a token's weight on itself is its squared norm / 2.
//        By hand: XXᵀ = [[2,0,2],[0,8,4],[2,4,4]], so row 1 is [e, 1, e]/(2e + 1) and
//        token 3 ([1,1,1,1]) gives token 2 ([0,2,0,2]) as much weight as itself.
//   a SelfAttention layer (W_Q, W_K, W_V, no W_O) with random weights on 5 random
//        tokens of width 8, with W ~ N(0, 1/d_model): the weights are spread
//        out (nothing is learned) but not uniform, each row sums to 1, and the output keeps the
//        input's shape; beside it, how near uniform each init is, with and without 1/sqrt(d_k).
// tests/phases/test_course_examples.cpp checks the three tokens against the hand computation and
// the random layer's entropy / log T for both inits, scaled and not.
#pragma once
#include <optional>

#include "nn/attention.hpp"
#include "phases/phase_common.hpp"

namespace attnlab::phase1 {

using namespace attnlab::phase;

// The three tokens: X [3, 4]; Q = K = V = X.
Tensor three_tokens_example();

void section7_three_tokens(Frame& p);

// The random layer on random tokens: X [5, 8] and the weights drawn from Generator(seed), in that order.
// RandomInit::normal draws W_Q, W_K, W_V as N(0, 1) / sqrt(d_model), as numpy code often does; ::layer
// keeps nn::Linear's own U(±1/sqrt(d_model)) (PyTorch's default), whose std is 1/sqrt(3) of
// that, so its scores are 3 times smaller. scale: as SelfAttention::forward (1.0 = unscaled q·k).
enum class RandomInit { normal, layer };
struct RandomSelfAttention {
    nn::AttentionResult r;  // output (5, 8), weights (5, 5)
    std::int64_t parameters = 0;
    double entropy_ratio = 0;     // mean over rows of H(row) / log T: 1 = uniform, 0 = one key
    double max_from_uniform = 0;  // max |A - 1/T|
};
RandomSelfAttention random_self_attention(std::uint64_t seed, RandomInit init = RandomInit::normal,
                                                  std::optional<double> scale = std::nullopt);

void section8_random_self_attention(Frame& p);

}  // namespace attnlab::phase1
