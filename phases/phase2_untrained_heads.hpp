// phase2_untrained_heads.hpp — four experiments with untrained multi-head attention, run as
// the course runs them (its input constructions, its layer sizes), after phase 2's own steps.
// Bodies in phases/sections/phase2_untrained_heads.cpp (each .cpp in phases/ is its own program).
//
//   a. MHA(64, 8) with dropout 0.1 on the weights: eval mode is deterministic; train mode
//      drops 10% of the weights and scales the rest by 1/0.9, so one draw differs from eval
//      but the mean of many draws returns to it.
//   b. structured embeddings ("The cat sat on the mat": the second "the" near the first,
//      "mat" near "cat") through a random MHA(64, 4): each head's strongest pair and mean
//      entropy, beside the trained model's heads on the same words.
//   c. MHA(48, 6) on the course's syntactic, semantic and positional cases: each head's
//      self / local / global attention (the course's "global" is 1 − local by construction).
//   d. one head vs 8 heads (random, d_model 64, 8 tokens with local and long-range
//      dependencies): average and standard deviation across heads, entropies, the norm of
//      the output difference, the mean pairwise cosine similarity of the heads and the
//      the course's verdict (diversity "High" if < 0.5).
// The layers are random: these measure what the course's code shows, which is how an
// untrained layer behaves, not what training teaches (phase 2's steps 2–4 do that).
#pragma once
#include <cmath>
#include <cstdio>
#include <map>

#include "autograd/node.hpp"
#include "analyses/attention_stats.hpp"
#include "app/report.hpp"
#include "nn/attention.hpp"
#include "nn/layers.hpp"
#include "phases/phase_common.hpp"
#include "plots/heatmap.hpp"

namespace attnlab::phase2 {

using namespace attnlab::phase;

// The strongest (query -> key) weight of one head's [T, T] pattern.
struct Strongest {
    std::int64_t i = 0, j = 0;
    double weight = 0;
};
Strongest strongest(const Tensor& w);

// The course's heatmap look: blues, annotated, 0..1 unless told.
plots::HeatmapGridOptions grid_options(std::string title, std::vector<std::string> labels, std::vector<std::string> panels);

// Experiment a's numbers: MHA(64, 8) with dropout 0.1 on the course's input (B 2, T 6, d_model 64).
struct DropoutTrial {
    nn::AttentionResult eval;  // eval mode: weights (B, H, T, T)
    Tensor dropped;            // (B, H, T, T): the eval weights as one training step mixes the values with them
    double eval_twice = 0, one_draw = 0, mean_of_draws = 0;  // |output - eval output| / |eval output|
    double zeroed = 0;         // the share of the B·H·T·T weights one draw zeroes
    std::int64_t d_k = 0;
};
DropoutTrial dropout_trial(std::uint64_t seed, int draws);

void section1_dropout(Frame& p);

// Experiment b's input, "The cat sat on the mat" as (T 6, d_model 64): random rows, then the second "the"
// near the first, "mat" near "cat" and "sat" nudged towards "cat", as the course builds them.
Tensor structured_embeddings(Generator& gen);

void section2_structured_embeddings(Frame& p, const Tensor& trained, const std::vector<std::string>& trained_tokens);

void section3_three_cases(Frame& p);

// Experiment d's similarity: the mean cosine similarity of every pair of distinct heads' patterns,
// weights (H, T, T) -> one number (1: all heads alike); the course calls diversity "High" below 0.5.
double mean_head_similarity(const Tensor& weights);
const char* diversity_verdict(double similarity);

void section5_single_vs_multi(Frame& p, const Tensor& trained);

// Phase 2's one call: the four experiments in the course's order. trained: (H, T, T), layer 1 of the trained model.
void section7_untrained_heads(Frame& p, const Tensor& trained, const std::vector<std::string>& trained_tokens);

}  // namespace attnlab::phase2
