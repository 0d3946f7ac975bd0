// phase1_untrained.cpp — the bodies of phases/phase1_untrained.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase1_untrained.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "autograd/node.hpp"
#include "analyses/attention_stats.hpp"
#include "app/report.hpp"
#include "plots/heatmap.hpp"

namespace attnlab::phase1 {

using namespace attnlab::phase;

namespace {

plots::HeatmapOptions small_heatmap_options(std::string title, std::vector<std::string> labels, std::string x, std::string y) {
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

}  // namespace

Tensor three_tokens_example() { return tensor({{1.0, 0.0, 1.0, 0.0}, {0.0, 2.0, 0.0, 2.0}, {1.0, 1.0, 1.0, 1.0}}); }

void section7_three_tokens(Frame& p) {
    section("7. Three tokens, Q = K = V = X, no projections");
    const Tensor X = three_tokens_example();                            // (3, 4)
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
    p.m["three_tokens"] = Json::Object{{"weights", to_json(r.weights)}, {"output", to_json(r.output)}, {"rows", t.json()}};
    const std::vector<std::string> labels{"Token 1", "Token 2", "Token 3"};
    p.out.figure(plots::heatmap(to_matrix(r.weights), small_heatmap_options("Q = K = V = X (3 tokens)", labels,
                                                                               "Attending to (keys)", "Attending from (queries)")),
                 "three_tokens",
                 "Phase 1: three tokens with Q = K = V = X: weights softmax(X X^T / 2); token 2 (the largest) draws the most weight.");
}

RandomSelfAttention random_self_attention(std::uint64_t seed, RandomInit init, std::optional<double> scale) {
    NoGradGuard no_grad;  // a forward only: nothing is trained
    Generator gen(seed);
    const Tensor X = randn({5, 8}, kFloat32, gen);  // (T, d_model): random tokens
    nn::SelfAttention attn(8, 8, gen);             // W_Q, W_K, W_V [d_k, d_model], no bias, no W_O
    if (init == RandomInit::normal) {
        for (nn::Linear* l : {&attn.w_q, &attn.w_k, &attn.w_v}) copy_(l->weight, randn({8, 8}, kFloat32, gen) / std::sqrt(8.0));
    }
    RandomSelfAttention a{attn.forward(X, nn::Mask(), scale), attn.parameter_count()};
    a.entropy_ratio = mean(lab::row_entropy(a.r.weights)).item() / std::log(5.0);
    a.max_from_uniform = max(abs(a.r.weights - 0.2)).item();
    return a;
}

void section8_random_self_attention(Frame& p) {
    section("8. A random SelfAttention layer (5 tokens, d_model = d_k = 8)");
    const RandomSelfAttention a = random_self_attention(p.seed);  // N(0, 1/d_model), scaled
    const Tensor& w = a.r.weights;
    std::printf("input [5, 8] -> output %s, weights %s; %lld parameters (3 d_model d_k); W ~ N(0, 1/d_model)\n",
                a.r.output.shape().str().c_str(), w.shape().str().c_str(), static_cast<long long>(a.parameters));
    std::cout << "weights:\n" << w << "\nrow sums: " << sum(w, -1) << "\n";
    const double max_w = max(w).item(), min_w = -max(-w).item();
    std::printf("weights range from %.4f to %.4f (uniform: 0.2); entropy / log 5 = %.3f, max |A - 0.2| = %.3f\n", min_w, max_w,
                a.entropy_ratio, a.max_from_uniform);
    // How near uniform a random layer is depends on its init and on the 1/sqrt(d_k): the mean over 100 draws.
    lab::Table t({{"init", "init", 34, -1}, {"scaled", "scores", 10, -1}, {"entropy_ratio", "H / log 5", 9, 3},
                  {"max_from_uniform", "max |A - 0.2|", 13, 3}}, "  ");
    t.print_header();
    for (RandomInit init : {RandomInit::normal, RandomInit::layer})
        for (bool scaled : {true, false}) {
            double h = 0, d = 0;
            for (std::uint64_t s = 0; s < 100; ++s) {
                const RandomSelfAttention b = random_self_attention(p.seed + s, init, scaled ? std::nullopt : std::optional<double>(1.0));
                h += b.entropy_ratio / 100, d += b.max_from_uniform / 100;
            }
            t.row({init == RandomInit::normal ? "N(0, 1/d_model)" : "nn::Linear's U(+-1/sqrt(d_model))",
                   scaled ? "/ sqrt(8)" : "unscaled", h, d});
        }
    std::printf("  the layer has learned nothing, yet its weights are not uniform; without 1/sqrt(d_k) they are peakier,\n"
                "  and with PyTorch's default init (std 1/sqrt(3) of that: scores 3 times smaller) near uniform\n");
    p.m["random_self_attention"] = Json::Object{{"weights", to_json(w)}, {"max_weight", max_w}, {"min_weight", min_w},
                                                        {"entropy_ratio", a.entropy_ratio}, {"max_from_uniform", a.max_from_uniform},
                                                        {"parameters", a.parameters}, {"mean_of_100", t.json()}};
    p.out.figure(plots::heatmap(to_matrix(w), small_heatmap_options("Random SelfAttention (nothing learned)",
                                                                       {"1", "2", "3", "4", "5"}, "Attending to (position)",
                                                                       "Attending from (position)")),
                 "random_self_attention",
                 "Phase 1: a random SelfAttention, W_Q, W_K, W_V ~ N(0, 1/8), on 5 random tokens: nothing learned, yet not uniform (0.2); rows sum to 1.");
}

}  // namespace attnlab::phase1
