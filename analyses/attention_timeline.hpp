// attention_timeline.hpp — attention while it learns: a probe sentence's attention,
// recorded at every evaluation of a training run (TrainConfig::on_eval), without
// changing the run. Observing must not change training: the probe is read under
// NoGradGuard (no graph, no gradients), draws no random numbers, and the model's mode
// and attention trace are restored afterwards (a trace left on would switch the
// training forward from the fused kernel to the composed one, and so its bits).
// tests/analyses/test_attention_timeline.cpp trains with and without recording and
// compares the checkpoints byte for byte.
//
// When a head settles: its mean row entropy (nats) and its specialisation (cosine
// similarity of its pattern with its final one) per snapshot, and the first step from
// which a series stays within a tolerance of its final value. Phase 4 (step 9) draws it.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::lab {

struct AttentionTimeline {
    std::vector<std::int64_t> probe;          // token ids [T] the model reads at each snapshot
    std::vector<std::int64_t> steps;          // training step of each snapshot
    std::vector<std::vector<Tensor>> layers;  // [snapshot][layer]: [H, T, T]
    // Appends the probe's attention under `model` as it is at `step`.
    void record(std::int64_t step, nn::Transformer& model);
};

// [snapshot][head]: heads numbered layer by layer (layer 1's heads, then layer 2's, ...).
std::vector<std::vector<double>> head_entropy(const AttentionTimeline& t);         // mean over queries, nats
std::vector<std::vector<double>> head_similarity_to_final(const AttentionTimeline& t);  // cosine, 1 at the end
// The first of `steps` from which series stays within tol of its last value.
std::int64_t settle_step(const std::vector<std::int64_t>& steps, const std::vector<double>& series, double tol);

using OnEval = std::function<void(std::int64_t step, nn::Transformer& model)>;
// An on_eval that records into `timeline`, then calls `then` (the run's own on_eval), if any.
OnEval recording(AttentionTimeline& timeline, OnEval then = {});

}  // namespace attnlab::lab
