// phase4_learning.cpp — the bodies of phases/phase4_learning.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase4_learning.hpp"

namespace attnlab::phase::learning {

std::string head_name(std::size_t k, std::int64_t H) {
    return "L" + std::to_string(k / static_cast<std::size_t>(H) + 1) + "H" + std::to_string(k % static_cast<std::size_t>(H) + 1);
}

plots::Matrix head_at(const lab::AttentionTimeline& tl, std::size_t i, std::size_t k, std::int64_t H) {
    return to_matrix(tl.layers[i][k / static_cast<std::size_t>(H)].select(0, static_cast<std::int64_t>(k % static_cast<std::size_t>(H))));
}

plots::Figure settle_chart(const lab::Table& t) {
    std::vector<std::string> names;
    std::vector<double> entropy, pattern;
    for (const Json& r : t.json().as_array()) {
        names.push_back(r.at("head").as_string());
        entropy.push_back(r.at("entropy_settles").as_double()), pattern.push_back(r.at("pattern_settles").as_double());
    }
    const plots::BarChartOptions o{.value_title = "training step", .category_title = "head", .decimals = 0, .plot_length = 200};
    plots::BarChartOptions oe = o, op = o;
    oe.title = "Step from which each head's entropy stays settled", op.title = "... and its pattern";
    op.color = plots::palette::categorical(1);
    return plots::hstack({plots::bar_chart(names, entropy, oe), plots::bar_chart(names, pattern, op)});
}

std::vector<plots::Figure> every_step_frames(const lab::AttentionTimeline& tl, const std::vector<std::string>& tokens,
                                             std::size_t heads, std::int64_t H) {
    std::vector<plots::Figure> frames;
    for (std::size_t i = 0; i < tl.steps.size(); ++i) {
        std::vector<plots::Matrix> all;
        plots::HeatmapGridOptions fo;
        for (std::size_t k = 0; k < heads; ++k) all.push_back(head_at(tl, i, k, H)), fo.panel_titles.push_back(head_name(k, H));
        fo.title = "Attention at step " + std::to_string(tl.steps[i]), fo.columns = static_cast<int>(H);
        fo.row_labels = fo.col_labels = tokens, fo.vmin = 0.0, fo.vmax = 1.0, fo.colorbar_label = "weight";
        frames.push_back(plots::heatmap_grid(all, fo));
    }
    return frames;
}

}  // namespace attnlab::phase::learning

namespace attnlab::phase4 {

using namespace attnlab::phase;

void section9_attention_while_it_learns(Frame& f, const lab::AttentionTimeline& tl, const lab::TrainResult& run,
                                        const std::vector<std::string>& vocab) {
    section("9. Attention while it learns: the sentence's attention at every evaluation of the whole run (" +
            std::to_string(tl.steps.back()) + " steps)");
    std::vector<std::string> tokens;
    for (std::int64_t id : tl.probe) tokens.push_back(vocab.at(static_cast<std::size_t>(id)));
    const std::vector<std::vector<double>> entropy = lab::head_entropy(tl), similarity = lab::head_similarity_to_final(tl);
    const std::size_t n = tl.steps.size(), heads = entropy.at(0).size();
    const std::int64_t H = tl.layers[0][0].size(0);
    lab::Table t({{"head", "head", 5, -1}, {"entropy_start", "entropy at 0", 13, 3}, {"entropy_end", "at the end", 11, 3},
                  {"entropy_settles", "entropy settles", 16, -1}, {"pattern_settles", "pattern settles", 16, -1}});
    t.print_header();
    for (std::size_t k = 0; k < heads; ++k) {
        std::vector<double> e, s;
        for (std::size_t i = 0; i < n; ++i) e.push_back(entropy[i][k]), s.push_back(similarity[i][k]);
        // settled: within a tenth of the series' whole movement over the run from its final value
        auto tenth = [](const std::vector<double>& v) { return 0.1 * (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())); };
        t.row({learning::head_name(k, H), e.front(), e.back(), lab::settle_step(tl.steps, e, tenth(e)),
               lab::settle_step(tl.steps, s, tenth(s))});
    }
    f.m["attention_while_it_learns"] = Json::Object{{"steps", Json::Array(tl.steps.begin(), tl.steps.end())}, {"heads", t.json()}};
    const std::string whole = "causal_model's whole training run (" + std::to_string(tl.steps.back()) + " steps, replayed in step 8)";

    // The strip: a row per head, a column per chosen step (first, quarters, last).
    std::vector<std::size_t> chosen;
    for (std::size_t q = 0; q <= 4; ++q)
        if (chosen.empty() || chosen.back() != q * (n - 1) / 4) chosen.push_back(q * (n - 1) / 4);
    std::vector<plots::Matrix> panels;
    plots::HeatmapGridOptions so;
    for (std::size_t k = 0; k < heads; ++k)
        for (std::size_t i : chosen)
            panels.push_back(learning::head_at(tl, i, k, H)), so.panel_titles.push_back(learning::head_name(k, H) + ", step " + std::to_string(tl.steps[i]));
    so.title = "Each head's attention on the sentence as training goes on", so.columns = static_cast<int>(chosen.size());
    so.row_labels = so.col_labels = tokens, so.vmin = 0.0, so.vmax = 1.0, so.colorbar_label = "weight";
    plots::Series loss{.name = "training loss", .markers = false};
    for (const lab::TrainPoint& pt : run.curve) loss.x.push_back(double(pt.step)), loss.y.push_back(pt.loss);
    const plots::Figure curve = plots::line_chart({loss}, {.title = "Training loss of the same run", .x_title = "step",
                                                          .y_title = "loss (nats)", .plot_width = 900, .plot_height = 200});
    f.out.figure(plots::figure_grid({plots::heatmap_grid(panels, so), curve, learning::settle_chart(t)}, {.columns = 1}),
                 "attention_while_it_learns",
                 "Phase 4, step 9: every head's attention on the sentence at a few steps of " + whole +
                     " (rows: heads), above that run's training loss and the step from which each head's entropy and "
                     "pattern stay within a tenth of their movement of their final values; the sentence was read at each "
                     "evaluation without changing the run.");
    f.out.animation(learning::every_step_frames(tl, tokens, heads, H), "attention_while_it_learns_animated",
                    "Phase 4, step 9, animated: all " + std::to_string(heads) + " heads' attention on the sentence at each of the " +
                        std::to_string(n) + " evaluations of " + whole + ", one frame per evaluation, looping.",
                    50);
}

}  // namespace attnlab::phase4
