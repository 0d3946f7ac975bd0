// chart_fixtures.cpp — see chart_fixtures.hpp.
#include "tests/plots/chart_fixtures.hpp"

#include <cmath>

#include "plots/attention_flow.hpp"
#include "plots/bar_chart.hpp"
#include "plots/flow_diagram.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"
#include "plots/surface3d.hpp"
#include "plots/table.hpp"

using namespace attnlab::plots;

namespace plots_test {

std::vector<std::pair<std::string, Figure>> every_chart(const std::string& title) {
    const auto t = [&](const char* own) { return title.empty() ? std::string(own) : title; };
    const std::vector<std::string> tokens = {"<bos>", "a-very-long-token-name", "x", "&", "tokenization", "end"};
    const std::size_t n = tokens.size();
    Matrix w(n, std::vector<double>(n, 0));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) w[i][j] = (i == j ? 2.0 : 1.0) / double(i + 2);  // causal, rows sum to 1

    std::vector<std::pair<std::string, Figure>> out;
    HeatmapOptions h;
    h.title = t("A title much wider than the matrix underneath it");
    h.row_labels = h.col_labels = tokens;
    h.annotate = true;
    h.colorbar_label = "attention weight";
    Matrix scores = w;
    scores[0][5] = -INFINITY;
    out.emplace_back("heatmap", heatmap(scores, h));

    HeatmapGridOptions g;
    g.row_labels = g.col_labels = tokens;
    g.columns = 2;
    g.title = title;
    out.emplace_back("heatmap_grid", heatmap_grid({w, w, w}, g));

    BarChartOptions b;
    b.title = t("Bars");
    b.reference = 1.79;
    b.reference_label = "uniform max ln 6";
    out.emplace_back("bar", bar_chart(tokens, {0.5, 1.2, -0.3, 1.9, 0.1, 1.0}, b));
    b.horizontal = true;
    out.emplace_back("bar_horizontal", bar_chart(tokens, {0.5, 1.2, -0.3, 1.9, 0.1, 1.0}, b));

    Series s1{.name = "quadratic", .x = {16, 64, 256, 1024}, .y = {0.01, 0.16, 2.5, 41}};
    Series s2{.name = "a series with a long legend entry", .x = {16, 64, 256, 1024}, .y = {0.05, 0.2, 0.8, 3.3}};
    LineChartOptions l;
    l.title = t("Timing");
    l.x_title = "n";
    l.y_title = "ms";
    l.log_x = l.log_y = l.fit_slope = true;
    out.emplace_back("line_loglog", line_chart({s1, s2}, l));
    out.emplace_back("line_linear", line_chart({s2}, {.title = t("Linear"), .x_title = "step", .y_title = "loss"}));

    out.emplace_back("flow_two_rows", attention_flow(tokens, w, {.title = t("Flow")}));
    out.emplace_back("flow_one_row", attention_flow(tokens, w, {.title = t("Flow"), .layout = FlowLayout::one_row}));

    out.emplace_back("flow_diagram",
                     flow_diagram({{.id = "a", .lines = {"input", "x"}, .note = "[6 x 16]"},
                                   {.id = "b", .lines = {"output"}, .column = 1, .row = 1}},
                                  {{.from = "a", .to = "b", .label = "a label"}}, {.title = t("Boxes")}));
    out.emplace_back("flow_diagram_down",
                     flow_diagram({{.id = "a", .lines = {"input", "x"}, .note = "[6 x 16]"},
                                   {.id = "b", .lines = {"output"}, .column = 1, .row = 1}},
                                  {{.from = "a", .to = "b", .label = "a label"}},
                                  {.title = t("Boxes"), .top_to_bottom = true}));

    Surface3DOptions s;
    s.row_labels = s.col_labels = tokens;
    s.title = t("3-D");
    out.emplace_back("surface3d", surface3d(w, s));
    auto turntable = surface3d_turntable(w, s, 8);
    for (std::size_t k = 0; k < turntable.size(); ++k)
        out.emplace_back("turntable frame " + std::to_string(k), std::move(turntable[k]));

    out.emplace_back("table", table_figure({"head", "entropy"}, {{"1", "0.52"}, {"<2>", "1.70"}}, {.title = t("T")}));
    return out;
}

}  // namespace plots_test
