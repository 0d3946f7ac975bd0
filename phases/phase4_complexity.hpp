// phase4_complexity.hpp — the course's complexity figures for a GPT-2-sized model, recomputed, beside ours (phase 4, after
// generation, which measures the KV cache). Bodies in phases/sections/phase4_complexity.cpp.
//
// The course counts attention at n = 2048 tokens, d = 768: "2048² × 768 ≈ 3.2 billion
// operations per attention layer", "38 billion" for 12 layers, "4.2 million floats = 16.8 MB
// per head", "1.6 GB" for 8 heads × 12 layers, and "KV caching makes generation 50-500x
// faster". Its operations are the multiply-adds of Q Kᵀ alone (weights · V doubles them, and
// a multiply-add is 2 flops); its MB are 10^6 bytes (16.0 MiB). The KV cache saves work in
// proportion to the length: without it, step k reruns the model on all p + k tokens.
#pragma once
#include <cmath>
#include <cstdio>

#include "app/report.hpp"
#include "nn/transformer.hpp"
#include "phases/phase_common.hpp"

namespace attnlab::phase4 {

using namespace attnlab::phase;

double macs_qk(double n, double d);
double weight_bytes(double n);
// Generating N tokens after a prompt of p: tokens run through the model, without / with the cache.
double kv_token_ratio(double p, double N);
// ... and score multiply-adds (per unit of d): Σ (p+k)² against p² + Σ (p+k).
double kv_score_ratio(double p, double N);

void section5b_complexity(Frame& p, const nn::TransformerConfig& c, std::int64_t prompt_tokens);

}  // namespace attnlab::phase4
