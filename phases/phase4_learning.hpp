// phase4_learning.hpp — phase 4, step 9: attention while it learns.
//
// Step 4's run with the mask records the sentence's attention at every evaluation
// (lab/attention_timeline.hpp: observing does not change the run, a test checks the
// checkpoint bytes). Drawn: each head at a few steps, in a strip above the training
// loss, and an animated GIF of all heads at every recorded step. Numbers: the step
// from which each head's mean entropy stays within a tenth of its whole movement over
// the run from its final value, and the same for its specialisation (the cosine
// similarity of its pattern with its final pattern). Header-only because every .cpp in phases/ is a program.
#pragma once
#include <algorithm>
#include <string>

#include "lab/attention_timeline.hpp"
#include "lab/report.hpp"
#include "phases/phase_common.hpp"
#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::phase {

// tl: the recorded run's snapshots; run: that run (its loss curve); vocab: id -> word.
inline void section9_attention_while_it_learns(Frame& f, const lab::AttentionTimeline& tl, const lab::TrainResult& run,
                                               const std::vector<std::string>& vocab) {
    section("9. Attention while it learns: the sentence's attention at every recorded step");
    std::vector<std::string> tokens;
    for (std::int64_t id : tl.probe) tokens.push_back(vocab.at(static_cast<std::size_t>(id)));
    const std::vector<std::vector<double>> entropy = lab::head_entropy(tl), similarity = lab::head_similarity_to_final(tl);
    const std::size_t n = tl.steps.size(), heads = entropy.at(0).size();
    const std::int64_t H = tl.layers[0][0].size(0);
    auto head_name = [&](std::size_t k) { return "L" + std::to_string(k / H + 1) + "H" + std::to_string(k % H + 1); };
    lab::Table t({{"head", "head", 5, -1}, {"entropy_start", "entropy at 0", 13, 3}, {"entropy_end", "at the end", 11, 3},
                  {"entropy_settles", "entropy settles", 16, -1}, {"pattern_settles", "pattern settles", 16, -1}});
    t.print_header();
    for (std::size_t k = 0; k < heads; ++k) {
        std::vector<double> e, s;
        for (std::size_t i = 0; i < n; ++i) e.push_back(entropy[i][k]), s.push_back(similarity[i][k]);
        // settled: within a tenth of the series' whole movement over the run from its final value
        auto tenth = [](const std::vector<double>& v) { return 0.1 * (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())); };
        t.row({head_name(k), e.front(), e.back(), lab::settle_step(tl.steps, e, tenth(e)), lab::settle_step(tl.steps, s, tenth(s))});
    }
    f.m["attention_while_it_learns"] = Json::Object{{"steps", Json::Array(tl.steps.begin(), tl.steps.end())}, {"heads", t.json()}};

    // The strip: a row per head, a column per chosen step (first, quarters, last).
    std::vector<std::size_t> chosen;
    for (std::size_t q = 0; q <= 4; ++q)
        if (chosen.empty() || chosen.back() != q * (n - 1) / 4) chosen.push_back(q * (n - 1) / 4);
    std::vector<plots::Matrix> panels;
    plots::HeatmapGridOptions so;
    for (std::size_t k = 0; k < heads; ++k)
        for (std::size_t i : chosen) {
            panels.push_back(to_matrix(tl.layers[i][k / H].select(0, static_cast<std::int64_t>(k % H))));
            so.panel_titles.push_back(head_name(k) + ", step " + std::to_string(tl.steps[i]));
        }
    so.title = "Each head's attention on the sentence as training goes on", so.columns = static_cast<int>(chosen.size());
    so.row_labels = so.col_labels = tokens, so.vmin = 0.0, so.vmax = 1.0, so.colorbar_label = "weight";
    plots::Series loss{.name = "training loss", .markers = false};
    for (const lab::TrainPoint& pt : run.curve) loss.x.push_back(double(pt.step)), loss.y.push_back(pt.loss);
    const plots::Figure curve = plots::line_chart({loss}, {.title = "Training loss of the same run", .x_title = "step",
                                                          .y_title = "loss (nats)", .plot_width = 900, .plot_height = 200});
    f.out.figure(plots::figure_grid({plots::heatmap_grid(panels, so), curve}, {.columns = 1}), "attention_while_it_learns",
                 "Phase 4, step 9: every head's attention on the sentence at a few steps of step 4's masked run (rows: "
                 "heads), above that run's training loss; the sentence was read at each evaluation without changing the run.");

    std::vector<plots::Figure> frames;  // all heads at every recorded step
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<plots::Matrix> all;
        plots::HeatmapGridOptions fo;
        for (std::size_t k = 0; k < heads; ++k)
            all.push_back(to_matrix(tl.layers[i][k / H].select(0, static_cast<std::int64_t>(k % H)))), fo.panel_titles.push_back(head_name(k));
        fo.title = "Attention at step " + std::to_string(tl.steps[i]), fo.columns = static_cast<int>(H);
        fo.row_labels = fo.col_labels = tokens, fo.vmin = 0.0, fo.vmax = 1.0, fo.colorbar_label = "weight";
        frames.push_back(plots::heatmap_grid(all, fo));
    }
    plots::save_gif(frames, f.out.dir() + "/attention_while_it_learns.gif", 50);
    std::printf("  wrote %s/attention_while_it_learns.gif (%zu frames)\n", f.out.dir().c_str(), n);
}

}  // namespace attnlab::phase
