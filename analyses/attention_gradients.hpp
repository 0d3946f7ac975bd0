// attention_gradients.hpp — gradients through attention: dL/dA for every layer and head,
// straight from our autograd (the model's AttentionTrace keeps the weights in the graph
// with retain_grad), for the next-token loss of one sentence.
//
//   dL/dA[l, h, i, j]  how the loss would move if query i took a little more of key j
//   -A ⊙ dL/dA         gradient-weighted attention (Chefer et al. 2021, who differentiate
//                      the predicted logit; for a loss the helpful direction is -dL/dA):
//                      weight whose increase would lower the loss; its positive part,
//                      heads averaged, rows normalised, rolled out like plain rollout
//
// check_by_central_differences moves single entries of A by ±eps (AttentionTrace::nudges)
// and compares (L(A+eps) - L(A-eps)) / 2eps with the autograd value, in double.
// Left out: gradients for padded batches (one sentence at a time).
#pragma once
#include <cstdint>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::lab {

struct AttentionGradients {
    double loss = 0;                  // mean next-token cross-entropy over the sentence
    std::vector<Tensor> weights;      // [l]: A, [H, T, T]
    std::vector<Tensor> grads;        // [l]: dL/dA, [H, T, T] (0 where the mask blocks a pair)
    std::vector<Tensor> weighted;     // [l]: mean over heads of max(-A ⊙ dL/dA, 0), rows normalised, [T, T]
    Tensor weighted_rollout;          // rollout of `weighted`, [T, T]
    Tensor plain_rollout;             // rollout of A, [T, T]
};

// ids: [T] token ids with <bos> ... <eos>; the loss predicts ids[t+1] from positions <= t.
AttentionGradients attention_gradients(nn::Transformer& model, const std::vector<std::int64_t>& ids);

struct GradientCheckEntry {
    std::int64_t layer, head, query, key;
    double autograd, central;  // dL/dA by backward(), and by central differences
};
// The entries of each layer's largest |dL/dA| per head (one per head and layer).
std::vector<GradientCheckEntry> check_by_central_differences(nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                                            const AttentionGradients& g, double eps = 1e-3);

}  // namespace attnlab::lab
