// attention_weights.hpp — a model's attention weights on a text, from one place.
//
//   layers[l] = softmax(q kᵀ / √d_k + mask) of layer l,   [B, H, T, T] (one text: [H, T, T])
//
// The weights come from the model's attention trace (nn/attention.hpp: AttentionTrace),
// which records every layer's weights while it is enabled. Here, and only here, the trace
// is switched on for a forward pass and everything is put back as it was found: the trace
// (on or off, what it held, keep_graph, nudges) and the model's train/eval mode. A trace
// left on would switch every later forward from the fused kernel to the composed one (the
// same function, other bits), and a model left in eval mode would train without dropout.
// The forward runs in eval mode (no dropout: the weights of the model, not of a sample of
// it) under NoGradGuard: never under autograd (analyses/attention_gradients.hpp reads dL/dA
// through the trace's keep_graph instead).
//
// Who reads them: the phases' heatmaps, head roles, induction scores, attention while it
// learns, tinygpt show / eval / generate --show, and the explorer's reference numbers.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::lab {

struct TracedForward {
    Tensor logits;               // [B, T, V]
    std::vector<Tensor> layers;  // layers[l]: [B, H, T, T], rows sum to 1 (0 where every key is masked)
};

// ids [B, T] int64 -> the logits and every layer's weights; `extra` as in Transformer::forward
// (padding, ANDed with the model's own mask).
TracedForward traced_forward(nn::Transformer& model, const Tensor& ids, const nn::Mask& extra = nn::Mask());

// One text: ids [T] -> layers[l]: [H, T, T], contiguous.
std::vector<Tensor> attention_weights(nn::Transformer& model, const std::vector<std::int64_t>& ids);

// The weights recorded while `forward` runs the model's own modules (phase 1 runs its blocks
// without the positional embedding): layers[l] as the trace records them, [B, H, T, T].
std::vector<Tensor> recorded_attention(nn::Transformer& model, const std::function<void()>& forward);

}  // namespace attnlab::lab
