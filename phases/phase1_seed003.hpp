// phase1_seed003.hpp — seed 003's two small demonstrations, in phase 1 after the seeds'
// worked examples (header-only: each .cpp in phases/ is its own program).
//
//   §3.1 three tokens with 4-dimensional embeddings and Q = K = V = X, no projections:
//        the scores are X Xᵀ / √4, so a token's weight on itself is its squared norm / 2.
//        By hand: XXᵀ = [[2,0,2],[0,8,4],[2,4,4]], so row 1 is [e, 1, e]/(2e + 1) and
//        token 3 ([1,1,1,1]) gives token 2 ([0,2,0,2]) as much weight as itself.
//   §4   a SelfAttention layer (W_Q, W_K, W_V, no W_O) with random weights on 5 random
//        tokens of width 8, as the seed runs it: the weights are spread out (nothing is
//        learned), each row sums to 1, and the output keeps the input's shape.
// tests/phases/test_seed_sections.cpp checks §3.1's numbers against the hand computation.
#pragma once
#include <cstdio>
#include <iostream>

#include "lab/report.hpp"
#include "nn/attention.hpp"
#include "phases/phase_common.hpp"
#include "plots/heatmap.hpp"

namespace attnlab::phase {

// §3.1's input: X [3, 4]; Q = K = V = X.
inline Tensor seed003_three_tokens() { return tensor({{1.0, 0.0, 1.0, 0.0}, {0.0, 2.0, 0.0, 2.0}, {1.0, 1.0, 1.0, 1.0}}); }

inline plots::HeatmapOptions seed003_heatmap_options(std::string title, std::vector<std::string> labels, std::string x, std::string y) {
    plots::HeatmapOptions ho;
    ho.title = std::move(title);
    ho.row_labels = ho.col_labels = std::move(labels);
    ho.x_title = std::move(x), ho.y_title = std::move(y);
    ho.annotate = true, ho.decimals = 3;
    ho.vmin = 0.0, ho.vmax = 1.0;
    ho.colormap = plots::Colormap::blues;
    ho.colorbar_label = "weight (rows sum to 1)";
    return ho;
}

inline void section6_seed003_three_tokens(Frame& p) {
    section("7. Seed 003, section 3.1: three tokens, Q = K = V = X");
    const Tensor X = seed003_three_tokens();                            // (3, 4)
    const nn::AttentionResult r = nn::scaled_dot_product_attention(X, X, X);  // scale 1/sqrt(4)
    std::cout << "X = Q = K = V:\n" << X << "\nscores X X^T / sqrt(4):\n" << matmul(X, X.mT()) / 2.0
              << "\nweights:\n" << r.weights << "\noutput:\n" << r.output << "\n";
    lab::Table t({{"token", "token", 7, -1}, {"self_weight", "w(self)", 8, 3}, {"max_weight", "max w", 7, 3},
                  {"argmax", "argmax", 7, -1}, {"row_sum", "row sum", 8, 6}}, "  ");
    t.print_header();
    for (std::int64_t i = 0; i < 3; ++i) {
        const Tensor w = r.weights.select(0, i);
        t.row({i + 1, w.at({i}), max(w).item(), static_cast<std::int64_t>(argmax(w, 0).item()) + 1, sum(w).item()});
    }
    std::printf("token 3 = [1,1,1,1] weighs token 2 (norm^2 8) as much as itself (e^2 each): with Q = K, a token need not attend most to itself\n");
    p.m["seed003_three_tokens"] = Json::Object{{"weights", to_json(r.weights)}, {"output", to_json(r.output)}, {"rows", t.json()}};
    const std::vector<std::string> labels{"Token 1", "Token 2", "Token 3"};
    p.out.figure(plots::heatmap(to_matrix(r.weights), seed003_heatmap_options("Seed 003 sec. 3.1: Q = K = V = X (3 tokens)", labels,
                                                                               "Attending to (keys)", "Attending from (queries)")),
                 "seed003_three_tokens",
                 "Phase 1: seed 003's three-token example with Q = K = V = X: weights softmax(X X^T / 2); token 2 (the largest) draws the most weight.");
}

inline void section7_seed003_random_self_attention(Frame& p) {
    section("8. Seed 003, section 4: a random SelfAttention layer (5 tokens, d_model = d_k = 8)");
    Generator gen(p.seed);
    const Tensor X = randn({5, 8}, kFloat32, gen);  // (T, d_model): random tokens
    nn::SelfAttention attn(8, 8, gen);             // W_Q, W_K, W_V: random, untrained
    const nn::AttentionResult r = attn.forward(X);
    std::printf("input %s -> output %s, weights %s; %lld parameters (3 d_model d_k)\n", X.shape().str().c_str(),
                r.output.shape().str().c_str(), r.weights.shape().str().c_str(), static_cast<long long>(attn.parameter_count()));
    std::cout << "weights:\n" << r.weights << "\nrow sums: " << sum(r.weights, -1) << "\n";
    const double max_w = max(r.weights).item(), min_w = -max(-r.weights).item();
    std::printf("weights range from %.3f to %.3f (uniform: 0.200): random projections give spread-out attention\n", min_w, max_w);
    p.m["seed003_random_self_attention"] = Json::Object{{"weights", to_json(r.weights)}, {"max_weight", max_w}, {"min_weight", min_w},
                                                        {"parameters", attn.parameter_count()}};
    p.out.figure(plots::heatmap(to_matrix(r.weights), seed003_heatmap_options("Seed 003 sec. 4: random SelfAttention",
                                                                               {"1", "2", "3", "4", "5"}, "Attending to (position)",
                                                                               "Attending from (position)")),
                 "seed003_random_self_attention",
                 "Phase 1: seed 003's SelfAttention with random W_Q, W_K, W_V on 5 random tokens: weights near uniform (0.2), each row sums to 1.");
}

}  // namespace attnlab::phase
