// phase2_parameter_counts.cpp — the bodies of phases/phase2_parameter_counts.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase2_parameter_counts.hpp"

namespace attnlab::phase2 {

std::vector<AttentionLayerCount> attention_layer_counts(std::int64_t d_model, std::int64_t n_heads) {
    const std::int64_t d2 = d_model * d_model;
    Generator gen(0);  // the values do not matter, only how many there are
    return {{"SelfAttention (the course's single head)", "3 d^2", 1, nn::SelfAttention(d_model, 0, gen).parameter_count(), 3 * d2},
            {"MHA, qkv-only (no bias, no W_O)", "3 d^2", n_heads,
             nn::MultiHeadAttention(d_model, n_heads, 0, 0, gen, true).parameter_count(), 3 * d2},
            {"MultiHeadAttention with W_O", "4 d^2 + 4 d", n_heads, nn::MultiHeadAttention(d_model, n_heads, 0, 0, gen).parameter_count(),
             4 * d2 + 4 * d_model}};
}

void section6b_single_vs_multi_parameters(Frame& p, std::int64_t d_model, std::int64_t n_heads) {
    section("6b. Single head vs multi-head, parameters: the course's 3 d^2 vs 4 d^2, counted on the layers");
    lab::Table t({{"layer", "layer", 36, -1}, {"n_heads", "H", 3, -1}, {"parameters", "parameters", 10, -1},
                  {"formula", "formula", 11, -1}, {"formula_value", "= ", 8, -1}, {"ratio_to_single", "/ single", 8, 3}});
    t.print_header();
    const std::vector<AttentionLayerCount> counts = attention_layer_counts(d_model, n_heads);
    for (const AttentionLayerCount& c : counts)
        t.row({c.layer, c.n_heads, c.parameters, c.formula, c.expected,
               static_cast<double>(c.parameters) / static_cast<double>(counts.front().parameters)});
    std::printf("at d_model = %lld: the course's 4/3 is the output projection W_O (plus our 4 d biases), whatever H is\n",
                static_cast<long long>(d_model));
    p.m["single_vs_multi_parameters"] = Json::Object{{"d_model", d_model}, {"layers", t.json()}};
    std::vector<std::string> labels;
    for (const AttentionLayerCount& c : counts) labels.push_back(c.layer + ", H = " + std::to_string(c.n_heads));
    plots::BarChartOptions bo{.title = "Parameters of one attention layer at d_model " + std::to_string(d_model),
                              .value_title = "parameters", .horizontal = true, .decimals = 0};
    p.out.figure(plots::bar_chart(labels, t.column("parameters"), bo), "single_vs_multi_parameters",
                 "Phase 2: the course's single head (W_Q, W_K, W_V: 3 d^2) against multi-head attention with W_O "
                 "(4 d^2 + 4 d), counted on the layers.");
}

}  // namespace attnlab::phase2
