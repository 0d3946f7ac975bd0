// gallery.cpp — the last step of `make all`: one sheet and one page for every phase.
//
//   out/summary_all_phases.svg/.png  one key figure per phase, redrawn by our plotter
//                                    from the matrices the phases saved in out/data/
//   out/index.html                   every figure of every phase with a caption (in the
//                                    phase's order, tools/gallery_order.hpp), links to
//                                    the SVGs and the explorer, and each phase's headline
//                                    numbers from its metrics.json
//
// It reads only what the phases wrote; a phase that has not run is left out, and
// the page says so. Usage: build/gallery [--out DIR]   (default out; --help lists it)
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <cmath>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"
#include "plots/save.hpp"
#include "io/fileio.hpp"
#include "io/json.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tools/gallery_order.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

std::string html_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

// The captions a phase recorded beside its figures (phase::Output writes <dir>/captions.json
// from the same call that draws each figure). A figure without one is shown by its name.
std::map<std::string, std::string> read_captions(const std::string& dir) {
    std::map<std::string, std::string> captions;
    const std::string path = dir + "/captions.json";
    if (!fs::exists(path)) return captions;
    const Json j = load_json(path);
    if (!j.is_object()) throw IOError("'" + path + "' is not a JSON object of figure name -> caption");
    for (const auto& [name, caption] : j.as_object()) {
        if (!caption.is_string()) throw IOError("'" + path + "': the caption of '" + name + "' is not a string");
        captions[name] = caption.as_string();
    }
    return captions;
}

// The numbers each phase is about, as paths into its metrics.json (an array step is an
// index). A path a phase does not write is an error: the page must not go quietly stale.
struct Headline {
    std::string label;
    std::vector<std::string> path;
    int decimals = 3;
};
const std::map<int, std::vector<Headline>> kHeadlines = {
    {1, {{"weight of 'sat' on 'cat'", {"sat", "weights", "1"}},
         {"pointer task at d_k 128, unscaled: loss", {"scaling_training", "unscaled", "final_loss"}},
         {"unscaled: accuracy", {"scaling_training", "unscaled", "final_accuracy"}},
         {"scaled by 1/sqrt(d_k): loss", {"scaling_training", "scaled", "final_loss"}},
         {"scaled: accuracy", {"scaling_training", "scaled", "final_accuracy"}}}},
    {2, {{"MHA parameters, d_model 64, 4 heads", {"parameter_counts", "0", "parameters"}, 0},
         {"single_head_model val loss", {"single_vs_multi", "single_head_model", "val_loss"}},
         {"multi_head_model val loss", {"single_vs_multi", "multi_head_model", "val_loss"}},
         {"Bayes floor", {"single_vs_multi", "multi_head_model", "bayes_floor"}},
         {"heads sweep, 1 head: val loss", {"heads_sweep", "results", "0", "val_loss"}},
         {"heads sweep, 4 heads: val loss", {"heads_sweep", "results", "2", "val_loss"}},
         {"heads sweep, 16 heads: val loss", {"heads_sweep", "results", "4", "val_loss"}}}},
    {3, {{"attention distance / uniform, causal_model layer 1", {"distance_over_uniform", "causal_model", "0"}, 2},
         {"causal_model layer 2", {"distance_over_uniform", "causal_model", "1"}, 2},
         {"multi_head_model layer 1", {"distance_over_uniform", "multi_head_model", "0"}, 2},
         {"multi_head_model layer 2", {"distance_over_uniform", "multi_head_model", "1"}, 2}}},
    {4, {{"largest causal weight above the diagonal", {"bidirectional_vs_causal", "causal_upper_triangle_max"}},
         {"Bayes floor", {"causality_experiment", "bayes_floor"}},
         {"trained and evaluated with the mask", {"causality_experiment", "val_loss", "trained_with_mask/eval_with_mask", "val_loss"}},
         {"trained without, evaluated with", {"causality_experiment", "val_loss", "trained_without_mask/eval_with_mask", "val_loss"}},
         {"training loss without the mask", {"causality_experiment", "train_loss_last20_without_mask"}},
         {"KV-cache speed-up, 256 tokens", {"generation", "kv_cache", "context_259_random", "speedup"}, 1},
         {"local +-2 mask: val loss", {"custom_masks", "val_loss", "local +-2"}},
         {"strided 2 mask: val loss", {"custom_masks", "val_loss", "strided 2"}}}},
    {5, {{"reversal, held out: exact accuracy", {"reversal", "exact_sequence_accuracy"}},
         {"anti-diagonal share of attention", {"reversal", "anti_diagonal_share"}},
         {"no attention: exact accuracy", {"comparisons", "no attention", "exact_sequence_accuracy"}},
         {"cost exponent of softmax(QK^T)V", {"attention_cost", "core_exponent"}, 2},
         {"cost exponent of the projections", {"attention_cost", "projections_exponent"}, 2}}},
    {6, {{"step at which the repeats are learnt", {"induction", "collapse_step"}, 0},
         {"loss on the repeated half", {"induction", "final", "loss_repeated"}},
         {"induction score of the induction head", {"induction", "final", "induction_score"}},
         {"previous-token score of its partner", {"induction", "final", "previous_token_score"}},
         {"logit lens: KL(exact || reading) after the embedding", {"logit_lens", "kl_embedding"}},
         {"logit lens: KL(exact || model), after the last block", {"logit_lens", "kl_model"}},
         {"next-word entropy at T 1 (nats)", {"sampling", "settings", "T 1", "entropy"}},
         {"the grammar's exact next-word entropy", {"sampling", "settings", "exact", "entropy"}}}},
};

std::vector<std::string> headline_numbers(int phase, const Json& metrics, const std::string& file) {
    std::vector<std::string> lines;
    auto it = kHeadlines.find(phase);
    if (it == kHeadlines.end()) return lines;
    for (const Headline& h : it->second) {
        const Json* node = &metrics;
        std::string where;
        for (const std::string& step : h.path) {
            where += "/" + step;
            if (node->is_array() && !step.empty() && std::isdigit(static_cast<unsigned char>(step[0])) &&
                std::stoul(step) < node->size())
                node = &node->as_array()[std::stoul(step)];
            else if (node->is_object() && node->find(step))
                node = node->find(step);
            else
                throw IOError("'" + file + "' has no number at " + where + " (for \"" + h.label + "\")");
        }
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", h.decimals, node->as_double());
        lines.push_back(h.label + ": " + buf);
    }
    return lines;
}

// The key matrix of each phase, as saved by the phase, and the title it gets on the sheet.
struct KeyFigure {
    std::string file, title;
};
const std::vector<KeyFigure> kKeyFigures = {
    {"data/attention_weights.npy", "Phase 1: single head"},
    {"data/multi_head_patterns.npy", "Phase 2: multi-head (head 1 of each)"},
    {"data/phase3_rollout.npy", "Phase 3: attention rollout"},
    {"data/phase4_causal_weights.npy", "Phase 4: causal attention"},
    {"data/phase5_reversal_attention.npy", "Phase 5: reversal alignment"},
    {"data/phase6_induction_head.npy", "Phase 6: an induction head"},
};

// The first [T, T] matrix of the file at `path` (head 1 of [H, T, T]); errors name the file.
plots::Matrix first_matrix(const Tensor& t, const std::string& path) {
    Tensor m = t;
    while (m.dim() > 2 && m.size(0) > 0) m = m.select(0, 0);  // [H, T, T] -> head 1
    if (m.dim() != 2 || m.numel() == 0)
        throw ShapeError("'" + path + "' holds shape " + t.shape().str() + ", not a non-empty matrix");
    plots::Matrix out(static_cast<std::size_t>(m.size(0)));
    for (std::int64_t i = 0; i < m.size(0); ++i)
        for (std::int64_t j = 0; j < m.size(1); ++j) out[static_cast<std::size_t>(i)].push_back(m.at({i, j}));
    return out;
}

// Row and column labels from <stem>.labels.txt (written by phase::save_key_matrix), checked
// against the matrix; a missing file leaves the plotter's 0, 1, 2, ... in place.
void read_labels(const std::string& npy_path, const plots::Matrix& m, plots::HeatmapOptions& o) {
    const std::string path = npy_path.substr(0, npy_path.size() - 4) + ".labels.txt";
    if (!fs::exists(path)) return;
    const std::string text = read_file(path, 1 << 20);
    std::vector<std::vector<std::string>> lines(1);
    std::string word;
    for (char c : text + "\n") {
        if (c == ' ' || c == '\n') {
            if (!word.empty()) lines.back().push_back(word), word.clear();
            if (c == '\n') lines.emplace_back();
        } else {
            word += c;
        }
    }
    const std::size_t cols = m.empty() ? 0 : m[0].size();
    if (lines.size() < 2 || lines[0].size() != m.size() || lines[1].size() != cols)
        throw IOError("'" + path + "' must hold " + std::to_string(m.size()) + " row labels and " +
                      std::to_string(cols) + " column labels, one line each");
    o.row_labels = lines[0];
    o.col_labels = lines[1];
}

}  // namespace

int main(int argc, char** argv) {
    lab::Options opt("gallery", "The summary sheet and out/index.html: every figure the phases drew, with its caption.");
    opt.add_folder("out", "out", "read DIR/phaseN/ and DIR/data/; write DIR/summary_all_phases and DIR/index.html");
    opt.parse(argc, argv);
    const std::string out = opt.text("out");
    try {
        // ---- the summary sheet
        std::vector<plots::Figure> panels;
        for (const KeyFigure& k : kKeyFigures) {
            const std::string path = out + "/" + k.file;
            if (!fs::exists(path)) continue;
            plots::HeatmapOptions o;
            o.title = k.title;
            o.vmin = 0, o.vmax = 1;
            const plots::Matrix m = first_matrix(load_npy(path), path);
            read_labels(path, m, o);
            // A long sequence (phase 6's 32 tokens) keeps the sheet's panels of one size: its cells
            // shrink so the matrix is about kPanelPixels across, as the short sentences' are.
            constexpr double kPanelPixels = 400;
            const std::size_t n = std::max(m.size(), m.empty() ? 0 : m[0].size());
            if (n > 16) o.cell_size = std::floor(kPanelPixels / static_cast<double>(n));
            panels.push_back(plots::heatmap(m, o));
        }
        if (!panels.empty()) {
            plots::FigureGridOptions g;
            g.title = "attnlab: one key figure per phase";
            g.columns = 3;
            plots::save(plots::figure_grid(panels, g), out + "/summary_all_phases");
        }

        // ---- the page
        std::string html =
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>attnlab gallery</title>\n"
            "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
            "figure{display:inline-block;vertical-align:top;width:31%;margin:0 1% 1.5em 0}"
            "figure img{width:100%;border:1px solid #ddd}figcaption{font-size:0.85em}"
            "ul.numbers{columns:2;font-family:monospace;font-size:0.85em}</style>\n</head>\n<body>\n"
            "<h1>attnlab: attention, phase by phase</h1>\n<p>Everything below was computed and drawn by the programs "
            "in <code>phases/</code> (<code>make all</code>). Click a figure for its SVG.</p>\n";
        if (!panels.empty())
            html += "<p><a href=\"summary_all_phases.svg\"><img src=\"summary_all_phases.png\" alt=\"summary of all phases\" "
                    "style=\"max-width:100%\"></a></p>\n";
        int phases_found = 0;
        for (int n = 1; n <= 9; ++n) {
            const std::string dir = out + "/phase" + std::to_string(n);
            if (!fs::is_directory(dir)) continue;
            ++phases_found;
            html += "<h2>Phase " + std::to_string(n) + "</h2>\n";
            if (fs::exists(dir + "/explorer.html"))
                html += "<p><a href=\"phase" + std::to_string(n) + "/explorer.html\">Open the interactive attention explorer</a></p>\n";
            if (fs::exists(dir + "/metrics.json")) {
                html += "<ul class=\"numbers\">\n";
                for (const std::string& line : headline_numbers(n, load_json(dir + "/metrics.json"), dir + "/metrics.json"))
                    html += "<li>" + html_escape(line) + "</li>\n";
                html += "</ul>\n";
            }
            const std::map<std::string, std::string> captions = read_captions(dir);
            // A figure is a .png (its .svg linked) or an animation, a .gif alone (phase::Output::animation);
            // a .gif beside a .png of the same name is that still's animated form, under one caption.
            std::set<std::string> stems;
            for (const auto& e : fs::directory_iterator(dir))
                if (e.path().extension() == ".png" || e.path().extension() == ".gif") stems.insert(e.path().stem().string());
            for (const std::string& s : gallery::ordered_figures(n, stems)) {  // the phase's order, key figure first
                const std::string base = "phase" + std::to_string(n) + "/" + s;
                const bool gif = fs::exists(dir + "/" + s + ".gif");
                const std::string link = fs::exists(dir + "/" + s + ".svg") ? ".svg" : fs::exists(dir + "/" + s + ".png") ? ".png" : ".gif";
                html += "<figure><a href=\"" + base + link + "\"><img src=\"" +
                        base + (gif ? ".gif" : ".png") + "\" alt=\"" + html_escape(s) + "\"></a><figcaption><b>" +
                        html_escape(s) + "</b>: " + html_escape(captions.count(s) ? captions.at(s) : "(no caption recorded)") +
                        "</figcaption></figure>\n";
            }
        }
        if (phases_found == 0) html += "<p>No phase has run yet: <code>make all</code> runs them.</p>\n";
        html += "</body>\n</html>\n";
        write_file_atomic(out + "/index.html", html);
        std::printf("gallery: %d phases, %zu panels in the summary -> %s/index.html\n", phases_found, panels.size(), out.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gallery: %s\n", e.what());
        return 1;
    }
    return 0;
}
