// logit_lens.hpp — what the residual stream "would predict" after each layer.
//
// The residual stream x_l after embedding (l = 0) and after each block (l = 1 … L) is read
// out as if it were the last one: p_l = softmax(head(ln_f(x_l))). p_L is the model's own
// prediction; the earlier ones show how the answer builds up layer by layer. Left out: the
// tuned lens (a learnt map per layer), which reads the early layers more faithfully.
#pragma once
#include <cstdint>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::lab {

struct LogitLens {
    std::vector<Tensor> probs;               // [L + 1] of [T, V]: p_l for every position
    std::vector<std::vector<std::int64_t>> top;  // [L + 1][T]: argmax of p_l
    std::vector<std::vector<double>> final_token_prob;  // [L + 1][T]: p_l of the token p_L ranks first
};

// ids: one row of token ids (at most the model's context). No gradient is recorded.
LogitLens logit_lens(nn::Transformer& model, const std::vector<std::int64_t>& ids);

// KL(p ‖ q) = Σ p ln(p / q) in nats over one distribution each (terms with p = 0 add nothing).
double kl_divergence(const std::vector<double>& p, const std::vector<double>& q);

}  // namespace attnlab::lab
