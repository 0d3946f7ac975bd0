// phase3_gradients.cpp — the bodies of phases/phase3_gradients.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase3_gradients.hpp"

#include <cmath>

#include "analyses/attention_gradients.hpp"
#include "app/report.hpp"
#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"

namespace attnlab::phase3 {

using namespace attnlab::phase;

void section8_attention_gradients(Frame& f, nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                  const std::vector<std::string>& tokens, const std::string& text) {
    section("8. Gradients through attention: dL/dA for the next-token loss");
    const lab::AttentionGradients g = lab::attention_gradients(model, ids);
    std::printf("next-token loss on '%s': %.4f\n", text.c_str(), g.loss);
    const std::int64_t L = static_cast<std::int64_t>(g.grads.size()), H = g.grads[0].size(0);

    // The check: autograd's dL/dA against (L(A + eps) - L(A - eps)) / 2 eps.
    lab::Table check({{"layer", "layer", 5, -1}, {"head", "head", 4, -1}, {"query", "query", 5, -1}, {"key", "key", 4, -1},
                      {"autograd", "dL/dA autograd", 15, 6}, {"central", "central diff.", 13, 6}, {"rel_error", "rel. error", 11, 6}});
    check.print_header();
    double worst = 0;
    for (const lab::GradientCheckEntry& e : lab::check_by_central_differences(model, ids, g)) {
        const double rel = std::abs(e.autograd - e.central) / std::max(1e-8, std::abs(e.autograd));
        worst = std::max(worst, rel);
        check.row({e.layer + 1, e.head + 1, e.query, e.key, e.autograd, e.central, rel});
    }
    std::printf("worst relative difference: %.2e (float32 forward, eps 1e-3)\n", worst);
    if (worst > 0.05) throw ValueError("phase 3: dL/dA differs from central differences by " + std::to_string(worst));

    std::printf("per head: max |dL/dA|, and how much of its weight helps the prediction (sum of max(-A * dL/dA, 0)):\n");
    Json per_head = Json::array();
    std::vector<plots::Matrix> a_panels, g_panels;
    std::vector<std::string> titles;
    for (std::int64_t l = 0; l < L; ++l)
        for (std::int64_t h = 0; h < H; ++h) {
            const Tensor A = g.weights[l].select(0, h), dA = g.grads[l].select(0, h);
            a_panels.push_back(to_matrix(A)), g_panels.push_back(to_matrix(dA));
            titles.push_back("L" + std::to_string(l + 1) + " H" + std::to_string(h + 1));
            const double biggest = max(abs(dA)).item(), leaning = sum(relu(-(A * dA))).item();
            std::printf("  layer %lld head %lld: max |dL/dA| %.4f, sum of max(-A * dL/dA, 0) %.4f\n", static_cast<long long>(l + 1),
                        static_cast<long long>(h + 1), biggest, leaning);
            per_head.push_back(Json::Object{{"layer", l + 1}, {"head", h + 1}, {"max_abs_grad", biggest}, {"helpful_mass", leaning}});
        }
    f.m["attention_gradients"] = Json::Object{{"loss", g.loss}, {"check", check.json()}, {"check_worst_rel_error", worst},
                                              {"per_head", per_head}};

    plots::HeatmapGridOptions ao;
    ao.title = "A (attention weights)", ao.panel_titles = titles, ao.columns = static_cast<int>(H);
    ao.row_labels = ao.col_labels = tokens, ao.vmin = 0.0, ao.vmax = 1.0, ao.colorbar_label = "weight";
    plots::HeatmapGridOptions go = ao;
    go.title = "dL/dA (next-token loss)", go.colormap = plots::Colormap::red_blue, go.vmin.reset(), go.vmax.reset();
    go.colorbar_label = "dL/dA (red: more weight raises the loss)";
    f.out.figure(plots::figure_grid({plots::heatmap_grid(a_panels, ao), plots::heatmap_grid(g_panels, go)},
                                    {.title = "Attention and its gradient, causal model, per layer (L) and head (H)", .columns = 1}),
                 "attention_gradients",
                 "Phase 3, step 8: each head's attention weights A (top) and the gradient dL/dA of the sentence's "
                 "next-token loss (below; blue: more weight there would lower the loss, red: raise it; masked pairs are 0).");

    plots::HeatmapGridOptions ro;
    ro.title = "Rollout: plain vs gradient-weighted", ro.columns = 2, ro.row_labels = ro.col_labels = tokens;
    ro.panel_titles = {"rollout of A", "rollout of max(-A * dL/dA, 0)"}, ro.vmin = 0.0, ro.vmax = 1.0;
    ro.colorbar_label = "share of the query's input";
    f.out.figure(plots::heatmap_grid({to_matrix(g.plain_rollout), to_matrix(g.weighted_rollout)}, ro),
                 "gradient_weighted_rollout",
                 "Phase 3, step 8: attention rollout through the layers (left) beside the rollout of gradient-weighted "
                 "attention (right: positive part of -A * dL/dA, the weight that lowers the next-token loss, heads averaged, "
                 "rows normalised).");
}

}  // namespace attnlab::phase3
