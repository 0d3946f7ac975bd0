// attention_distance.hpp — how far each head looks: the mean |i − j| weighted by its
// attention, over every query of some sequences, beside what uniform attention over the
// keys the model's mask allows would give (the distance of a head that learned nothing).
// Phase 3 measures it on the toy sentences; `tinygpt heads` on a run's held-out windows.
//
//   distance of query i = Σ_j w_ij |i − j|   (analyses/attention_stats.hpp's row_distance)
//   per head            = its mean over every query of every sequence
//   uniform             = the same for w_ij = 1 / (keys query i may see), the model's mask
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nn/transformer.hpp"
#include "plots/bar_chart.hpp"

namespace attnlab::lab {

// Uniform attention under the model's own mask: [T, T], each row 1 / (its allowed keys).
Tensor uniform_attention(const nn::Transformer& model, std::int64_t T);

struct AttentionDistance {
    Tensor per_head;      // float64 [L, H]: mean distance of each head
    double uniform = 0;   // mean distance of uniform attention over the same queries
    double queries = 0;   // how many queries the means are over
    double layer_mean(std::int64_t l) const;  // heads averaged
};

// sequences[s][l]: [H, T_s, T_s], the attention of `model` on sequence s (its rows sum to 1).
AttentionDistance attention_distance(const nn::Transformer& model, const std::vector<std::vector<Tensor>>& sequences);

// Several measurements as one: their means weighted by their queries. A long run's held-out
// rows are measured a batch at a time, so only one batch's weights are held at once.
AttentionDistance combine(const std::vector<AttentionDistance>& parts);

// One bar per head ("layer 1 head 2") and, last, uniform attention's under the same mask.
plots::Figure attention_distance_chart(const AttentionDistance& d, const std::string& title,
                                       plots::Color color = plots::palette::categorical(0));

}  // namespace attnlab::lab
