// phase2_parameter_counts.hpp — parameters of single-head (3 d²) and multi-head attention
// (4 d², any H), counted on the real layers.
//
// The table's single head is the course's phase-1 layer: W_Q, W_K, W_V of d_model × d_model,
// no bias, no output projection (nn::SelfAttention; the same layer per block of
// `tinygpt train --model qkv-head`). Its multi-head layer adds W_O (d_model × d_model),
// so the difference is W_O, not the number of heads: the count of a MultiHeadAttention
// does not depend on H (d_k = d_model / H), and our layers also carry biases (+4 d).
#pragma once
#include "app/report.hpp"
#include "nn/attention.hpp"
#include "phases/phase_common.hpp"
#include "plots/bar_chart.hpp"

namespace attnlab::phase2 {

using namespace attnlab::phase;

struct AttentionLayerCount {
    std::string layer, formula;
    std::int64_t n_heads = 0, parameters = 0, expected = 0;
};

// The three layers at d_model, counted from their registered parameters; expected is the course's formula.
std::vector<AttentionLayerCount> attention_layer_counts(std::int64_t d_model, std::int64_t n_heads);

void section6b_single_vs_multi_parameters(Frame& p, std::int64_t d_model, std::int64_t n_heads);

}  // namespace attnlab::phase2
