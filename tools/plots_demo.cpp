// plots_demo.cpp — draws one example of every chart attnlab's plotter offers.
//
// Usage: plots_demo [--out DIR] [--frames K]   (--help lists them)
// Writes <name>.svg + <name>.png per chart, the rotating 3-D view as a GIF, and
// DIR/index.html showing them all. --frames K also writes K of the GIF's 36 frames,
// evenly spaced, as PNGs (frame_00.png, ...) so the rotation can be checked frame by frame.
// The data imitates real attention on the toy sentence "the cat sat on the mat":
// rows are softmax distributions (they sum to one), causal rows stop at the
// diagonal, and every number comes from a tiny seeded generator below, so the
// output is identical on every run. To add a chart, write a demo_ function that
// saves it and returns its index entry, and call it from main.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "plots/attention_flow.hpp"
#include "plots/bar_chart.hpp"
#include "plots/flow_diagram.hpp"
#include "plots/heatmap.hpp"
#include "plots/layout.hpp"
#include "plots/line_chart.hpp"
#include "plots/save.hpp"
#include "plots/surface3d.hpp"
#include "plots/table.hpp"
#include "plots/svg.hpp"
#include "tensor/error.hpp"
#include "io/fileio.hpp"

using namespace attnlab::plots;

namespace {

const std::vector<std::string> kTokens = {"the", "cat", "sat", "on", "the", "mat"};

// xorshift64* (Vigna): a few lines, good enough for demo data, and the same
// numbers on every platform — unlike std:: distributions, whose output the
// standard leaves to the implementation.
class DemoRandom {
public:
    explicit DemoRandom(std::uint64_t seed) : state_(seed ? seed : 1) {}
    double uniform() {  // [0, 1)
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return double((state_ * 2685821657736338717ull) >> 11) / double(1ull << 53);
    }

private:
    std::uint64_t state_;
};

// Scores with a diagonal preference plus noise; causal rows get -inf after the diagonal.
Matrix attention_scores(DemoRandom& rng, std::size_t n, double diagonal, double previous, bool causal) {
    Matrix s(n, std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            s[i][j] = 2.0 * (rng.uniform() - 0.5) + (i == j ? diagonal : 0) + (j + 1 == i ? previous : 0);
            if (causal && j > i) s[i][j] = -INFINITY;
        }
    return s;
}

Matrix softmax_rows(const Matrix& scores) {
    Matrix w = scores;
    for (auto& row : w) {
        double m = -INFINITY, sum = 0;
        for (double v : row) m = std::max(m, v);
        for (double& v : row) sum += (v = std::exp(v - m));
        for (double& v : row) v /= sum;
    }
    return w;
}

std::vector<std::vector<bool>> causal_mask(std::size_t n) {
    std::vector<std::vector<bool>> mask(n, std::vector<bool>(n, false));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) mask[i][j] = true;
    return mask;
}

struct IndexEntry {
    std::string image, caption;
    std::string vector;  // the SVG, empty for the GIF
};

IndexEntry save_entry(const Figure& figure, const std::string& dir, const std::string& name,
                      const std::string& caption) {
    save(figure, dir + "/" + name);
    return {name + ".png", caption, name + ".svg"};
}

IndexEntry demo_heatmap(const std::string& dir, const Matrix& weights) {
    HeatmapOptions o;
    o.title = "Causal self-attention weights";
    o.row_labels = o.col_labels = kTokens;
    o.annotate = true;
    o.mask = causal_mask(kTokens.size());
    o.mask_label = "masked: future token (causal)";
    o.vmin = 0.0;  // weights are probabilities: show the full [0, 1] scale
    o.vmax = 1.0;
    o.colorbar_label = "attention weight";
    return save_entry(heatmap(weights, o), dir, "heatmap",
                      "Heatmap: causal attention weights, each row sums to 1; the future is hatched.");
}

IndexEntry demo_scores(const std::string& dir, DemoRandom& rng) {
    Matrix scores = attention_scores(rng, kTokens.size(), 1.5, 0.0, true);
    HeatmapOptions o;
    o.title = "Scaled scores q.k / sqrt(d)";
    o.row_labels = o.col_labels = kTokens;
    o.colormap = Colormap::red_blue;
    o.annotate = true;
    o.mask_label = "-inf: masked before softmax";
    o.colorbar_label = "score";
    return save_entry(heatmap(scores, o), dir, "heatmap_scores",
                      "Heatmap with a diverging map centred on zero; -inf scores are drawn as masked.");
}

// Eight heads: every third looks at itself, the next at the previous token, the rest are diffuse.
std::vector<Matrix> make_heads(DemoRandom& rng) {
    std::vector<Matrix> heads;
    for (int h = 0; h < 8; ++h)
        heads.push_back(softmax_rows(attention_scores(rng, kTokens.size(), 3.0 * (h % 3 == 0), 3.0 * (h % 3 == 1), false)));
    return heads;
}

IndexEntry demo_heads(const std::string& dir, const std::vector<Matrix>& heads) {
    HeatmapGridOptions o;
    o.title = "Attention weights of 8 heads";
    o.row_labels = o.col_labels = kTokens;
    o.columns = 4;
    o.colormap = Colormap::blues;
    o.colorbar_label = "attention weight";
    return save_entry(heatmap_grid(heads, o), dir, "heatmap_grid",
                      "Heatmap grid: 8 heads sharing one colour scale (diagonal, previous-token and diffuse heads).");
}

IndexEntry demo_entropy(const std::string& dir, const std::vector<Matrix>& heads) {
    std::vector<std::string> names;
    std::vector<double> entropy;  // mean over queries of -sum p ln p, in nats
    for (std::size_t h = 0; h < heads.size(); ++h) {
        double total = 0;
        for (const auto& row : heads[h])
            for (double p : row) total -= p > 0 ? p * std::log(p) : 0;
        names.push_back("head " + std::to_string(h + 1));
        entropy.push_back(total / double(heads[h].size()));
    }
    BarChartOptions o;
    o.title = "Mean attention entropy per head";
    o.value_title = "entropy (nats)";
    o.category_title = "head";
    o.reference = std::log(double(kTokens.size()));
    o.reference_label = "uniform max ln 6";
    return save_entry(bar_chart(names, entropy, o), dir, "bar_entropy",
                      "Bar chart: entropy per head against the uniform maximum ln 6 = 1.79 nats.");
}

IndexEntry demo_received(const std::string& dir, const Matrix& weights) {
    std::vector<std::string> names;
    std::vector<double> received;  // column sums: how much attention each key gets
    for (std::size_t j = 0; j < kTokens.size(); ++j) {
        double sum = 0;
        for (const auto& row : weights) sum += row[j];
        names.push_back(std::to_string(j) + ": " + kTokens[j]);
        received.push_back(sum);
    }
    BarChartOptions o;
    o.title = "Attention received per key";
    o.value_title = "sum of weights over queries";
    o.horizontal = true;
    o.color = palette::categorical(2);
    o.reference = 1.0;
    o.reference_label = "average (1.0)";
    return save_entry(bar_chart(names, received, o), dir, "bar_received",
                      "Horizontal bar chart: total attention each key receives (column sums of the causal weights).");
}

IndexEntry demo_loss(const std::string& dir, DemoRandom& rng) {
    Series train{.name = "train"}, val{.name = "validation"};
    for (int step = 0; step <= 2000; step += 50) {
        double base = 1.9 * std::exp(-step / 450.0) + 0.55;
        train.x.push_back(step);
        train.y.push_back(base + 0.06 * (rng.uniform() - 0.5));
        if (step % 200 == 0) {
            val.x.push_back(step);
            val.y.push_back(base + 0.12 + 0.00004 * step + 0.03 * (rng.uniform() - 0.5));
        }
    }
    train.markers = false;
    LineChartOptions o;
    o.title = "Training loss";
    o.x_title = "step";
    o.y_title = "cross-entropy (nats)";
    return save_entry(line_chart({train, val}, o), dir, "line_loss",
                      "Line chart: training and validation loss curves with a legend.");
}

IndexEntry demo_timing(const std::string& dir, DemoRandom& rng) {
    Series attention{.name = "attention (n x n scores)"}, projection{.name = "q/k/v projection"};
    for (int n = 16; n <= 2048; n *= 2) {
        attention.x.push_back(n);
        attention.y.push_back(2.1e-5 * n * n * (1 + 0.08 * (rng.uniform() - 0.5)) + 0.004);
        projection.x.push_back(n);
        projection.y.push_back(3.5e-3 * n * (1 + 0.08 * (rng.uniform() - 0.5)) + 0.004);
    }
    LineChartOptions o;
    o.title = "Forward time vs sequence length";
    o.x_title = "sequence length n";
    o.y_title = "time (ms)";
    o.log_x = o.log_y = true;
    o.fit_slope = true;
    return save_entry(line_chart({attention, projection}, o), dir, "line_timing",
                      "Log-log line chart with fitted slopes: attention grows like n^2, projections like n.");
}

IndexEntry demo_flow_rows(const std::string& dir, const Matrix& weights) {
    AttentionFlowOptions o;
    o.title = "Who attends to whom (causal)";
    return save_entry(attention_flow(kTokens, weights, o), dir, "flow_two_rows",
                      "Node-link attention flow: queries above, keys below; weights under 0.15 hidden.");
}

IndexEntry demo_flow_arcs(const std::string& dir, const Matrix& weights) {
    AttentionFlowOptions o;
    o.title = "Attention flow of head 2 (previous token)";
    o.layout = FlowLayout::one_row;
    return save_entry(attention_flow(kTokens, weights, o), dir, "flow_one_row",
                      "Node-link attention flow in one row: arcs to earlier tokens above, later below, loops to itself.");
}

IndexEntry demo_qkv(const std::string& dir) {
    std::vector<FlowBox> boxes = {
        {.id = "x", .lines = {"input x", "(embedded tokens)"}, .note = "[6 x 16]", .column = 0, .row = 1},
        {.id = "q", .lines = {"queries Q"}, .note = "[6 x 16]", .column = 1, .row = 0},
        {.id = "k", .lines = {"keys K"}, .note = "[6 x 16]", .column = 1, .row = 1},
        {.id = "v", .lines = {"values V"}, .note = "[6 x 16]", .column = 1, .row = 2},
        {.id = "s", .lines = {"scores", "Q K^T / sqrt(16)"}, .note = "[6 x 6]", .column = 2, .row = 0.5},
        {.id = "w", .lines = {"weights", "softmax(scores + mask)"}, .note = "[6 x 6]", .column = 3, .row = 0.5},
        {.id = "o", .lines = {"output", "weights V"}, .note = "[6 x 16]", .column = 4, .row = 1, .fill = rgb(0xfdf0e6)},
    };
    std::vector<FlowEdge> edges = {
        {.from = "x", .to = "q", .label = "x Wq"}, {.from = "x", .to = "k", .label = "x Wk"},
        {.from = "x", .to = "v", .label = "x Wv"}, {.from = "q", .to = "s"},
        {.from = "k", .to = "s"},                  {.from = "s", .to = "w", .label = "softmax"},
        {.from = "w", .to = "o"},                  {.from = "v", .to = "o"},
    };
    return save_entry(flow_diagram(boxes, edges, {.title = "Scaled dot-product attention"}), dir, "flow_qkv",
                      "Flow diagram: input to Q/K/V, scores, weights and output, with the shape of each tensor.");
}

IndexEntry demo_surface(const std::string& dir, const Matrix& weights, std::int64_t export_frames) {
    Surface3DOptions o;
    o.title = "Causal attention as a landscape";
    o.row_labels = o.col_labels = kTokens;
    save(surface3d(weights, o), dir + "/surface3d");
    std::vector<Figure> frames = surface3d_turntable(weights, o, 36);
    save_gif(frames, dir + "/surface3d_turntable.gif", 8);
    for (std::int64_t i = 0; i < export_frames; ++i) {
        const std::size_t k = static_cast<std::size_t>(i) * frames.size() / static_cast<std::size_t>(export_frames);
        char name[32];
        std::snprintf(name, sizeof name, "/frame_%02zu.png", k);
        save_png(frames[k], dir + name);
    }
    return {"surface3d.png", "3-D bar landscape: the causal weights as heights over the (query, key) grid.",
            "surface3d.svg"};
}

IndexEntry demo_turntable() {
    return {"surface3d_turntable.gif", "The same landscape turning through 360 degrees (36 frames, looping GIF).", ""};
}

IndexEntry demo_table(const std::string& dir, const std::vector<Matrix>& heads) {
    std::vector<std::vector<std::string>> rows;
    for (std::size_t h = 0; h < heads.size(); ++h) {
        double diagonal = 0, previous = 0, peak = 0;
        for (std::size_t i = 0; i < heads[h].size(); ++i) {
            diagonal += heads[h][i][i];
            if (i > 0) previous += heads[h][i][i - 1];
            for (double p : heads[h][i]) peak = std::max(peak, p);
        }
        double n = double(heads[h].size());
        const char* kind = diagonal / n > 0.5 ? "self" : previous / (n - 1) > 0.5 ? "previous token" : "diffuse";
        rows.push_back({"head " + std::to_string(h + 1), kind, layout::format_fixed(diagonal / n, 2),
                        layout::format_fixed(previous / (n - 1), 2), layout::format_fixed(peak, 2)});
    }
    return save_entry(table_figure({"head", "pattern", "mean diagonal", "mean previous", "max weight"}, rows,
                                   {.title = "What each head does"}),
                      dir, "table", "Table figure: a summary of the eight heads.");
}

void write_index(const std::string& dir, const std::vector<IndexEntry>& entries) {
    std::string html =
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<title>attnlab plots demo</title>\n<style>\n"
        "body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }\n"
        ".chart { margin: 2em 0; } img { max-width: 100%; border: 1px solid #ddd; }\n"
        ".caption { margin-top: .4em; }\n</style>\n</head>\n<body>\n"
        "<h1>attnlab plots demo</h1>\n<p>Every chart type of <code>plots/</code>, drawn from toy attention data "
        "on &quot;the cat sat on the mat&quot;. PNG shown; each links to its SVG.</p>\n";
    for (const IndexEntry& e : entries) {
        // div/p rather than figure/figcaption: xmllint --html (an HTML 4 parser) checks this page.
        html += "<div class=\"chart\">\n";
        if (!e.vector.empty()) html += "<a href=\"" + xml_escape(e.vector) + "\">";
        html += "<img src=\"" + xml_escape(e.image) + "\" alt=\"" + xml_escape(e.caption) + "\">";
        if (!e.vector.empty()) html += "</a>";
        html += "\n<p class=\"caption\">" + xml_escape(e.caption);
        if (!e.vector.empty()) html += " (<a href=\"" + xml_escape(e.vector) + "\">SVG</a>)";
        html += "</p>\n</div>\n";
    }
    html += "</body>\n</html>\n";
    attnlab::write_file_atomic(dir + "/index.html", html);
}

}  // namespace

int main(int argc, char** argv) {
    attnlab::lab::Options opt("plots_demo", "One example of every chart type of plots/, drawn from seeded toy attention data.");
    opt.add_folder("out", "out/plots_demo", "write DIR/<chart>.svg + .png, the GIF and DIR/index.html");
    opt.add("frames", "K", "0", "also write K of the rotating GIF's 36 frames as PNGs (0 to 36)");
    opt.parse(argc, argv);
    const std::string dir = opt.text("out");
    const std::int64_t frames = opt.integer("frames", 0, 36);
    try {
        auto start = std::chrono::steady_clock::now();
        DemoRandom rng(20240603);
        std::vector<IndexEntry> entries;
        Matrix causal = softmax_rows(attention_scores(rng, kTokens.size(), 2.0, 1.0, true));
        std::vector<Matrix> heads = make_heads(rng);
        entries.push_back(demo_heatmap(dir, causal));
        entries.push_back(demo_scores(dir, rng));
        entries.push_back(demo_heads(dir, heads));
        entries.push_back(demo_entropy(dir, heads));
        entries.push_back(demo_received(dir, causal));
        entries.push_back(demo_loss(dir, rng));
        entries.push_back(demo_timing(dir, rng));
        entries.push_back(demo_flow_rows(dir, causal));
        entries.push_back(demo_flow_arcs(dir, heads[1]));
        entries.push_back(demo_qkv(dir));
        entries.push_back(demo_surface(dir, causal, frames));
        entries.push_back(demo_turntable());
        entries.push_back(demo_table(dir, heads));
        write_index(dir, entries);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        std::printf("plots_demo: wrote %zu figures and index.html to %s in %.0f ms\n", entries.size(), dir.c_str(), ms);
    } catch (const attnlab::Error& e) {
        std::fprintf(stderr, "plots_demo: %s\n", e.what());
        return 1;
    }
    return 0;
}
