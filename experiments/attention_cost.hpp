// attention_cost.hpp — what self-attention costs as the sequence grows (quadratic in T).
//
// For one layer with H heads of width d_k on T tokens (d_model = H · d_k):
//   the core, softmax(Q Kᵀ / √d_k) V, does 2 · 2·H·T²·d_k flops and holds two H×T×T
//   matrices (the scores and the weights) — quadratic in T;
//   the projections (W_Q, W_K, W_V, W_O) do 4 · 2·T·d_model² flops — linear in T.
// The timing (time_median, which bench/bench_workloads.cpp uses too): warm-up (≥ 3 calls and ≥ 0.2 s), an
// inner loop calibrated to ~0.15 s (at least one call), 7 repetitions, the median. Both times are
// wall time whatever the machine does, so a caller that needs only the shape of the curve (phase 5)
// passes shorter ones: the median of 7 stays, each repetition averages fewer calls.
#pragma once
#include <cstdint>
#include <functional>

namespace attnlab::lab {

struct Timing {
    double median_ms = 0, min_ms = 0, max_ms = 0;
};

// Times fn() as described above.
Timing time_median(const std::function<void()>& fn, int reps = 7, double rep_seconds = 0.15, double warmup_seconds = 0.2);

struct AttentionCost {
    std::int64_t T = 0;
    Timing core;            // softmax(Q Kᵀ/√d_k) V on [B, H, T, d_k], no grad
    Timing projections;     // the four d_model × d_model projections of [B, T, d_model], no grad
    double score_bytes = 0; // B·H·T² floats for the scores, the same again for the weights: this is one
};

AttentionCost measure_attention_cost(std::int64_t T, std::int64_t B = 1, std::int64_t H = 8, std::int64_t d_k = 64,
                                     double rep_seconds = 0.15, double warmup_seconds = 0.2);

}  // namespace attnlab::lab
