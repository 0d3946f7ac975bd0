// test_chart_errors.cpp — bad input is refused with a typed error whose message
// names the chart and the sizes or values at fault.
#include <catch2/catch.hpp>

#include <cmath>

#include "plots/attention_flow.hpp"
#include "plots/bar_chart.hpp"
#include "plots/flow_diagram.hpp"
#include "plots/heatmap.hpp"
#include "plots/svg.hpp"
#include "plots/line_chart.hpp"
#include "plots/surface3d.hpp"
#include "plots/table.hpp"
#include "tensor/error.hpp"

using namespace attnlab::plots;
using attnlab::ShapeError;
using attnlab::ValueError;
using Catch::Contains;

TEST_CASE("heatmap rejects empty, ragged, mislabelled and NaN input", "[plots][errors]") {
    CHECK_THROWS_AS(heatmap({}), ValueError);
    CHECK_THROWS_WITH(heatmap({}), Contains("heatmap: the matrix is empty"));
    CHECK_THROWS_AS(heatmap({{1, 2}, {3}}), ShapeError);
    CHECK_THROWS_WITH(heatmap({{1, 2}, {3}}), Contains("row 1 has 1 values but row 0 has 2"));
    HeatmapOptions o;
    o.row_labels = {"a", "b", "c"};
    CHECK_THROWS_AS(heatmap({{1, 2}, {3, 4}}, o), ShapeError);
    CHECK_THROWS_WITH(heatmap({{1, 2}, {3, 4}}, o), Contains("heatmap: 3 row labels for 2 rows"));
    CHECK_THROWS_AS(heatmap({{1, NAN}}), ValueError);
    CHECK_THROWS_WITH(heatmap({{1, NAN}}), Contains("value at [0, 1] of the [1 x 2] matrix is nan"));
    CHECK_THROWS_AS(heatmap({{1, INFINITY}}), ValueError);
    CHECK_NOTHROW(heatmap({{1, -INFINITY}}));  // -inf means masked
    HeatmapOptions m;
    m.mask = {{true}};
    CHECK_THROWS_WITH(heatmap({{1, 2}}, m), Contains("heatmap: mask is [1 x 1"));
    HeatmapOptions words;
    words.cell_text = {{"cat"}};
    CHECK_THROWS_WITH(heatmap({{1, 2}}, words), Contains("heatmap: cell_text has 1 rows"));
    words.cell_text = {{"cat", "<eos>-wide-word"}};
    const Figure f = heatmap({{1, 2}}, words);  // the words replace the numbers, and the cells grow to hold them
    CHECK_THAT(attnlab::plots::render_svg(f), Contains(">cat<") && Contains("&lt;eos&gt;-wide-word"));
    CHECK(f.width > heatmap({{1, 2}}).width);
}

TEST_CASE("heatmap_grid needs equally shaped panels", "[plots][errors]") {
    CHECK_THROWS_AS(heatmap_grid({}), ValueError);
    CHECK_THROWS_AS(heatmap_grid({{{1, 2}}, {{1, 2, 3}}}), ShapeError);
    CHECK_THROWS_WITH(heatmap_grid({{{1, 2}}, {{1, 2, 3}}}), Contains("panel 1 is [1 x 3] but panel 0 is [1 x 2]"));
    HeatmapGridOptions o;
    o.panel_titles = {"only one"};
    CHECK_THROWS_WITH(heatmap_grid({{{1}}, {{2}}}, o), Contains("heatmap_grid: 1 panel titles for 2 panels"));
}

TEST_CASE("bar and line charts check sizes and values", "[plots][errors]") {
    CHECK_THROWS_AS(bar_chart({}, {}), ValueError);
    CHECK_THROWS_WITH(bar_chart({"a"}, {1, 2}), Contains("bar_chart: 1 labels for 2 values"));
    CHECK_THROWS_WITH(bar_chart({"a"}, {NAN}), Contains("bar_chart: values[0] of 1 is nan"));
    CHECK_THROWS_WITH(bar_chart({"a"}, {1}, {.value_max = NAN}), Contains("bar_chart: value_max"));
    // value_max puts several charts on one scale: a short bar's axis reaches it.
    CHECK(render_svg(bar_chart({"a"}, {0.1}, {.value_max = 0.9})).find(">0.8<") != std::string::npos);
    CHECK(render_svg(bar_chart({"a"}, {0.1})).find(">0.8<") == std::string::npos);
    CHECK_THROWS_AS(line_chart({}), ValueError);
    CHECK_THROWS_AS(line_chart({Series{.name = "s", .x = {1, 2}, .y = {1}}}), ShapeError);
    CHECK_THROWS_WITH(line_chart({Series{.name = "s", .x = {1, 2}, .y = {1}}}), Contains("has 2 x values but 1 y values"));
    CHECK_THROWS_WITH(line_chart({Series{.name = "s", .x = {0, 1}, .y = {1, 2}}}, {.log_x = true}),
                      Contains("which a log axis cannot show"));
    CHECK_THROWS_WITH(line_chart({Series{.name = "s", .x = {1, 2}, .y = {1, 2}}}, {.fit_slope = true}),
                      Contains("fit_slope needs log_x and log_y"));
}

TEST_CASE("fit_power_law recovers an exact exponent", "[plots][layout]") {
    PowerFit f = fit_power_law({1, 10, 100}, {3, 300, 30000});
    CHECK(f.slope == Approx(2.0));
    CHECK(f.intercept == Approx(std::log10(3.0)));
    CHECK_THROWS_AS(fit_power_law({1, 1}, {2, 3}), ValueError);
}

TEST_CASE("attention flow, flow diagram, 3-D view and table refuse bad input", "[plots][errors]") {
    CHECK_THROWS_WITH(attention_flow({"a", "b"}, {{1, 0}}), Contains("attention_flow: weights must be square"));
    CHECK_THROWS_WITH(attention_flow({"a"}, {{1, 0}, {0, 1}}), Contains("1 tokens for a [2 x 2] weight matrix"));
    CHECK_THROWS_WITH(attention_flow({"a"}, {{1.5}}), Contains("outside [0, 1]"));
    CHECK_THROWS_AS(flow_diagram({}, {}), ValueError);
    CHECK_THROWS_WITH(flow_diagram({{.id = "a", .lines = {"a"}}}, {{.from = "a", .to = "z"}}),
                      Contains("names an unknown box"));
    CHECK_THROWS_WITH(flow_diagram({{.id = "a", .lines = {"a"}}, {.id = "b", .lines = {"b"}}}, {{.from = "a", .to = "b"}}),
                      Contains("must go to a later column"));
    CHECK_THROWS_WITH(surface3d({{0.5, -1}}), Contains("surface3d: value at [0, 1] of the [1 x 2] matrix is -1"));
    Surface3DOptions tiny;
    tiny.width = 160, tiny.height = 120;
    tiny.col_labels = {"an-extremely-long-label-that-cannot-fit", "b"};
    CHECK_THROWS_AS(surface3d({{0.5, 1}}, tiny), ValueError);
    CHECK_THROWS_AS(table_figure({}, {}), ValueError);
    CHECK_THROWS_WITH(table_figure({"a", "b"}, {{"1"}}), Contains("table_figure: row 0 has 1 cells but the header has 2"));
}
