// loss.hpp — cross-entropy (fused log-softmax + negative log-likelihood) and MSE.
#pragma once
#include "tensor/tensor.hpp"

namespace attnlab::nn {

inline constexpr std::int64_t kIgnoreIndex = -100;  // PyTorch's default ignore_index

// Mean over the non-ignored positions of −log softmax(logits)[target].
// logits [..., V] float, targets [...] int64 with values in [0, V) or ignore_index.
// One fused op: the backward is (softmax − one_hot(target)) / count, computed
// directly rather than through log_softmax and a gather (same numbers, a third of
// the work). If every target is ignored the loss is 0 with zero gradient (PyTorch: NaN).
Tensor cross_entropy(const Tensor& logits, const Tensor& targets, std::int64_t ignore_index = kIgnoreIndex);

// The same loss composed from log_softmax, one_hot and sum — the readable reference
// the fused op is tested against.
Tensor cross_entropy_reference(const Tensor& logits, const Tensor& targets, std::int64_t ignore_index = kIgnoreIndex);

// mean((a − b)²)
Tensor mse_loss(const Tensor& a, const Tensor& b);

}  // namespace attnlab::nn
