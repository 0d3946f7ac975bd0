// phase4_experimental_setting.cpp — the bodies of phases/phase4_experimental_setting.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase4_experimental_setting.hpp"

namespace attnlab::phase4 {

double unigram_baseline(const std::vector<data::LMBatch>& batches) {
    std::map<std::int64_t, double> count;
    double n = 0;
    for (const data::LMBatch& b : batches)
        for (std::int64_t t : b.targets.to_vector<std::int64_t>())
            if (t != data::kIgnoreIndex) count[t] += 1, n += 1;
    double h = 0;
    // h − p·log p rounded once, written as the fused multiply-add that an optimising build
    // contracts it to: the narrative compiles at -Og (the Makefile), which contracts nothing,
    // and the recorded value must not depend on the optimisation level.
    for (const auto& [token, c] : count) h = std::fma(-(c / n), std::log(c / n), h);
    return h;
}

void section10_experimental_setting(phase::Frame& f, std::int64_t steps) {
    lab::TrainConfig c = lab::standard_config(lab::Task::causal);
    c.d_model = 128, c.n_heads = 8, c.context = 32, c.steps = steps, c.warmup = std::max<std::int64_t>(1, steps / 5);
    c.eval_every = steps, c.seed = f.seed, c.progress = lab::TrainConfig::Progress::quiet;
    phase::section("10. The experimental setting: d_model 128, H 8, 32 tokens; causal TinyGPT, " + std::to_string(steps) + " steps");
    const lab::TrainResult r = lab::train(c);
    const std::vector<data::LMBatch> val = data::make_lm_validation(data::toy_grammar(), c.val_batches, c.batch, c.context);
    const double unigram = unigram_baseline(val);
    std::printf("  %lld layers, d_k %lld, %lld parameters, %.1f ms per step; validation loss %.3f, accuracy %.3f; unigram baseline %.3f, "
                "Bayes floor %.3f:\n  %.0f%% of the way from the unigram baseline to the floor\n",
                static_cast<long long>(c.n_layers), static_cast<long long>(c.d_model / c.n_heads),
                static_cast<long long>(r.model->parameter_count()), 1000 * r.seconds / static_cast<double>(steps), r.final_eval.loss,
                r.final_eval.accuracy, unigram, r.final_eval.floor, 100 * (unigram - r.final_eval.loss) / (unigram - r.final_eval.floor));

    // ---- each of the 8 heads of layer 1 on one validation row of 32 tokens --------
    const Tensor ids = val.at(0).ids.narrow(0, 0, 1);                       // (1, T)
    const Tensor w = layer_weights(*r.model, ids, 0).select(0, 0);          // (H, T, T)
    const Tensor local = mean(lab::local_mass(w), -1), back = mean(lab::row_distance(w), -1), ent = mean(lab::row_entropy(w), -1);  // (H)
    const std::vector<std::string> vocab = lab::grammar_vocab();
    std::vector<std::string> tokens;
    for (std::int64_t id : ids.to_vector<std::int64_t>()) tokens.push_back(vocab.at(static_cast<std::size_t>(id)));
    lab::Table t({{"head", "head", 4, -1}, {"local", "local", 6, 3}, {"distance", "mean distance back", 18, 2},
                  {"entropy", "entropy", 7, 3}, {"kind", "kind", 6, -1}}, "  ");
    t.print_header();
    std::vector<plots::Matrix> panels;
    std::vector<std::string> titles;
    std::int64_t n_local = 0;
    for (std::int64_t h = 0; h < w.size(0); ++h) {
        const bool is_local = local.at({h}) > 0.5;
        n_local += is_local;
        t.row({h + 1, local.at({h}), back.at({h}), ent.at({h}), is_local ? "local" : "global"});
        panels.push_back(phase::to_matrix(w.select(0, h)));
        titles.push_back("head " + std::to_string(h + 1) + ": " + (is_local ? "local " : "global ") + fixed3(local.at({h})));
    }
    double uniform = 0;  // the mean entropy of a head that spreads its weight evenly over every visible key: mean_i ln(i + 1)
    for (std::int64_t i = 0; i < w.size(1); ++i) uniform += std::log(static_cast<double>(i + 1)) / static_cast<double>(w.size(1));
    std::printf("  %lld of %lld heads local (more than half their weight on the token itself and the one before); a head that\n"
                "  spreads its weight evenly over every visible key has entropy %.3f and looks back %.2f on average\n",
                static_cast<long long>(n_local), static_cast<long long>(w.size(0)), uniform, static_cast<double>(w.size(1) - 1) / 4.0);
    f.m["experimental_setting"] = Json::Object{
        {"d_model", c.d_model}, {"n_heads", c.n_heads}, {"context", c.context}, {"steps", steps},
        {"parameters", r.model->parameter_count()}, {"val_loss", r.final_eval.loss}, {"val_accuracy", r.final_eval.accuracy},
        {"unigram_baseline", unigram}, {"bayes_floor", r.final_eval.floor}, {"train_seconds", r.seconds},
        {"heads", t.json()}, {"local_heads", n_local}, {"uniform_entropy", uniform}};
    plots::HeatmapGridOptions go;
    go.title = "d_model 128, H 8: each head of layer 1 on a 32-token validation row (local = weight on itself and the previous token)";
    go.row_labels = go.col_labels = tokens, go.panel_titles = titles, go.columns = 4;
    go.vmin = 0.0, go.vmax = 1.0, go.colorbar_label = "attention weight";
    go.mask.assign(tokens.size(), std::vector<bool>(tokens.size(), false));
    for (std::size_t i = 0; i < tokens.size(); ++i)
        for (std::size_t j = i + 1; j < tokens.size(); ++j) go.mask[i][j] = true;  // the future: hidden by the causal mask
    f.out.figure(plots::heatmap_grid(panels, go), "experimental_setting_heads",
                 "Phase 4, step 10: the experimental setting (d_model 128, H 8, 32 tokens) trained " + std::to_string(steps) +
                     " steps: each of the 8 heads of layer 1 on one validation row, titled local or global with its weight on "
                     "the token itself and the one before (" + std::to_string(n_local) + " of 8 local).");
}

}  // namespace attnlab::phase4
