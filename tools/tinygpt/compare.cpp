// compare.cpp — tinygpt compare: two runs side by side. Their loss curves on one chart, the
// settings in which they differ, and, for a prompt, both models' heads with their difference.
//
// Any two training checkpoints can be compared by curve and settings; the heads need the
// same vocabulary (one prompt, the same tokens) and the same layers x heads (one difference
// per head).
#include "tools/tinygpt/common.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/report.hpp"
#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"
#include "plots/save.hpp"
#include "tensor/ops.hpp"
#include "training/loss_figure.hpp"
#include "training/run_config.hpp"

namespace attnlab::tinygpt {

void declare_compare(lab::Options& o) {
    o.add_path("checkpoint", "PATH", "", "run A: a checkpoint tinygpt train wrote");
    o.add_path("compare-checkpoint", "PATH", "", "run B, compared with A");
    o.add("prompt", "TEXT", "", "also draw both models' attention on this text, head by head, and B - A (the two "
                                "models need the same vocabulary and the same layers x heads)");
    o.add_path("out", "DIR", "", "where the figures go: loss_curves, and with --prompt compare_layer1, compare_layer2, ... "
                                 "(.svg and .png each) and explorer.html, both models live in one page (keys A-causal, "
                                 "B-bidirectional, ...: each model's real kind)");
}

namespace {

struct Run {
    std::string flag, path, stem, name;  // "--checkpoint", its path, "causal_model", "A (causal_model)"
    nn::LoadedCheckpoint ck;
    lab::StoredRun stored;
};

Run load_run(const lab::Options& o, const std::string& flag, const std::string& letter) {
    Run r{"--" + flag, path_flag(o, flag), "", "", {}, {}};
    if (r.path.empty()) throw UsageError("--" + flag + " PATH is required (tinygpt compare reads two checkpoints)");
    check_input(r.flag, r.path);
    r.ck = nn::load_checkpoint(r.path);
    try {
        r.stored = lab::stored_run(r.ck, r.path);
    } catch (const ValueError& e) {
        throw ValueError("compare: " + r.flag + " '" + r.path + "' holds no training run to compare (" + e.what() + ")");
    }
    r.stem = std::filesystem::path(r.path).stem().string();
    r.name = letter + " (" + r.stem + ")";
    return r;
}

// "causal", "multi-head on the words of 'notes.txt'": what a run learned, for the table.
std::string task_text(const lab::TrainConfig& c) {
    const std::string task = c.task == lab::Task::chars ? "chars" : lab::info(c.task).cli;
    return c.corpus.empty() ? task + " (toy grammar)" : task + " on '" + c.corpus + "'";
}

// The rows of the settings table: the task, the data, the steps done, then every setting that differs.
void print_differences(const Run& a, const Run& b) {
    std::vector<std::array<std::string, 3>> rows;
    const auto add = [&](const std::string& key, const std::string& x, const std::string& y) {
        if (x != y) rows.push_back({key, x, y});
    };
    add("task", task_text(a.stored.config), task_text(b.stored.config));
    if (!(a.stored.data == b.stored.data)) add("data", lab::describe(a.stored.data), lab::describe(b.stored.data));
    add("step", std::to_string(a.stored.step), std::to_string(b.stored.step));
    add("total_steps", std::to_string(a.stored.config.steps), std::to_string(b.stored.config.steps));
    for (const lab::Difference& d : lab::differences(a.stored.config, b.stored.config))
        if (d.key != "task") add(d.key, d.stored, d.requested);
    if (rows.empty()) {
        std::printf("settings: A and B were trained with the same settings, on the same data, for the same steps\n");
        return;
    }
    std::size_t wa = 1, wb = 1, wk = 7;
    for (const auto& r : rows) wk = std::max(wk, r[0].size()), wa = std::max(wa, r[1].size()), wb = std::max(wb, r[2].size());
    lab::Table t({{"setting", "setting", static_cast<int>(wk), -1}, {"a", "A", static_cast<int>(wa), -1},
                  {"b", "B", static_cast<int>(wb), -1}},
                 "  ");
    std::printf("settings that differ (A = %s, B = %s):\n", a.path.c_str(), b.path.c_str());
    t.print_header();
    for (const auto& r : rows) t.row({r[0], r[1], r[2]});
}

// A's and B's validation loss at their last evaluation, and at the last step both ran.
void print_losses(const Run& a, const Run& b) {
    const auto last_val = [](const lab::StoredRun& s, std::int64_t upto) {
        double v = NAN;
        std::int64_t at = 0;
        for (const lab::TrainPoint& p : s.curve)
            if (p.step <= upto && !std::isnan(p.val_loss)) v = p.val_loss, at = p.step;
        return std::pair{v, at};
    };
    for (const Run* r : {&a, &b}) {
        const auto [v, at] = last_val(r->stored, r->stored.step);
        std::printf("%s: validation loss %.4f at step %lld\n", r->name.c_str(), v, static_cast<long long>(at));
    }
}

// One layer's heads: A and B side by side (one colour scale), and B - A beside them (red: B
// attends more, blue: A does). Rows are heads.
plots::Figure layer_figure(const lab::AttentionOf& a, const lab::AttentionOf& b, std::size_t l, const std::string& prompt) {
    const std::int64_t H = a.layers[l].size(0);
    std::vector<plots::Matrix> both, diff;
    plots::HeatmapGridOptions side, delta;
    for (std::int64_t h = 0; h < H; ++h) {
        const std::string head = "head " + std::to_string(h + 1);
        both.push_back(lab::to_matrix(a.layers[l].select(0, h)));
        both.push_back(lab::to_matrix(b.layers[l].select(0, h)));
        diff.push_back(lab::to_matrix(b.layers[l].select(0, h) - a.layers[l].select(0, h)));
        side.panel_titles.push_back("A, " + head);
        side.panel_titles.push_back("B, " + head);
        delta.panel_titles.push_back("B - A, " + head);
    }
    for (plots::HeatmapGridOptions* g : {&side, &delta}) g->row_labels = g->col_labels = a.tokens;
    side.columns = 2, side.vmin = 0, side.vmax = 1, side.colorbar_label = "weight";
    delta.columns = 1, delta.vmin = -1, delta.vmax = 1, delta.colorbar_label = "B - A";
    delta.colormap = plots::Colormap::red_blue;
    return plots::figure_grid({plots::heatmap_grid(both, side), plots::heatmap_grid(diff, delta)},
                              {.title = "layer " + std::to_string(l + 1) + " on \"" + prompt + "\": A, B and B - A per head",
                               .columns = 2});
}

// One figure per layer (compare_layer1, ...), each checked before any is written.
std::vector<std::pair<plots::Figure, std::string>> head_figures(Run& a, Run& b, const std::string& prompt,
                                                                 std::vector<lab::AttentionOf>& listed) {
    if (a.ck.info.vocab != b.ck.info.vocab || is_chars(a.ck) != is_chars(b.ck))
        throw ValueError("compare --prompt: A reads " + std::to_string(a.ck.info.vocab.size()) + " tokens, B " +
                         std::to_string(b.ck.info.vocab.size()) +
                         (is_chars(a.ck) != is_chars(b.ck) ? " (one reads characters, the other words)" : " of another vocabulary") +
                         "; the heads are compared on one prompt, so the models need one vocabulary");
    const nn::TransformerConfig &ca = a.ck.model->config(), &cb = b.ck.model->config();
    if (ca.n_layers != cb.n_layers || ca.n_heads != cb.n_heads)
        throw ValueError("compare --prompt: A has " + std::to_string(ca.n_layers) + " layers x " + std::to_string(ca.n_heads) +
                         " heads, B " + std::to_string(cb.n_layers) + " x " + std::to_string(cb.n_heads) +
                         "; B - A is taken head by head (tinygpt show draws each model alone)");
    const std::vector<std::int64_t> ids = encode_prompt(a.ck, prompt);
    if (encode_prompt(b.ck, prompt) != ids)
        throw ValueError("compare --prompt '" + prompt + "': A and B frame it differently (one a grammar model, which opens "
                         "with <bos>, the other a corpus model); they need the same tokens");
    const lab::AttentionOf wa = attention_of(a.ck, ids, a.name, "--prompt '" + prompt + "'");
    const lab::AttentionOf wb = attention_of(b.ck, ids, b.name, "--prompt '" + prompt + "'");
    listed.push_back(wa);
    listed.back().text = prompt;
    std::vector<std::pair<plots::Figure, std::string>> figures;
    for (std::size_t l = 0; l < wa.layers.size(); ++l) {
        figures.emplace_back(layer_figure(wa, wb, l, prompt), "compare_layer" + std::to_string(l + 1));
        const double moved = mean(abs(wb.layers[l] - wa.layers[l])).item();
        std::printf("layer %zu: mean |B - A| over heads, queries and keys: %.4f\n", l + 1, moved);
    }
    return figures;
}

}  // namespace

int cmd_compare(const lab::Options& o) {
    const std::string dir = out_dir(o, "out");
    const std::string prompt = o.given("prompt") ? prompt_flag(o) : "";
    Run a = load_run(o, "checkpoint", "A"), b = load_run(o, "compare-checkpoint", "B");
    print_differences(a, b);
    print_losses(a, b);
    std::vector<std::pair<plots::Figure, std::string>> figures;  // all built (and checked) before the first is written
    figures.emplace_back(lab::loss_figure({{"A", a.stored.curve}, {"B", b.stored.curve}},
                                          "loss per step: A = " + a.stem + ", B = " + b.stem),
                         "loss_curves");
    std::vector<lab::AttentionOf> listed;  // the prompt, listed in the page
    if (!prompt.empty())
        for (auto& f : head_figures(a, b, prompt, listed)) figures.push_back(std::move(f));
    std::filesystem::create_directories(dir);
    std::vector<std::string> stems;
    for (const auto& [figure, name] : figures) {
        plots::save(figure, dir + "/" + name);
        stems.push_back(dir + "/" + name);
    }
    report(stems);
    if (!prompt.empty()) {  // one vocabulary (head_figures checked it): both models live in one page
        const auto kind = [](const Run& r) { return r.ck.model->config().causal ? "causal" : "bidirectional"; };
        std::printf("wrote %s\n", lab::write_explorer({{&a.ck, std::string("A-") + kind(a), a.name},
                                                        {&b.ck, std::string("B-") + kind(b), b.name}},
                                                       listed, dir)
                                       .c_str());
    }
    return 0;
}

}  // namespace attnlab::tinygpt
