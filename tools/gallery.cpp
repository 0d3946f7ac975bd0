// gallery.cpp — the last step of `make all`: one sheet and one page for every phase.
//
//   out/summary_all_phases.svg/.png  one key figure per phase, redrawn by our plotter
//                                    from the matrices the phases saved in out/data/
//   out/index.html                   every figure of every phase with a caption (in the
//                                    phase's order, tools/gallery_order.hpp), links to
//                                    the SVGs and the explorer, and the headline numbers
//                                    each phase declared in its metrics.json
//
// It reads only what the phases wrote; a phase that has not run is left out, and
// the page says so. Usage: build/gallery [--out DIR]   (default out; --help lists it)
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

// The numbers a phase is about, as it declared them (lab::headline) in the "headlines" object
// of its metrics.json: {key: {value, caption, decimals}} in the phase's order. The page shows
// these and nothing else, so a headline is the number the phase recorded, not a copy of it.
std::vector<std::string> headline_numbers(const Json& metrics, const std::string& file) {
    std::vector<std::string> lines;
    const Json* all = metrics.is_object() ? metrics.find("headlines") : nullptr;
    if (all == nullptr) return lines;
    if (!all->is_object()) throw IOError("'" + file + "': \"headlines\" is not an object of key -> {value, caption, decimals}");
    for (const auto& [key, h] : all->as_object()) {
        const Json* value = h.is_object() ? h.find("value") : nullptr;
        const Json* caption = h.is_object() ? h.find("caption") : nullptr;
        const Json* decimals = h.is_object() ? h.find("decimals") : nullptr;
        if (!value || !value->is_number() || !caption || !caption->is_string() || !decimals || !decimals->is_integer() ||
            decimals->as_int64() < 0 || decimals->as_int64() > 12)
            throw IOError("'" + file + "': headline '" + key + "' is not {value: number, caption: text, decimals: 0..12}");
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(decimals->as_int64()), value->as_double());
        lines.push_back(caption->as_string() + ": " + buf);
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
                for (const std::string& line : headline_numbers(load_json(dir + "/metrics.json"), dir + "/metrics.json"))
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
