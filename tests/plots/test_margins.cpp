// test_margins.cpp — nothing a chart draws touches the edge of its canvas: every chart type,
// rendered with its own title and with a title far wider than its data, keeps a band of
// background pixels along all four edges of the raster. A title that sets its own width
// without growing the figure, or a legend pushed past the right edge, fails here.
#include <catch2/catch.hpp>

#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"
#include "plots/mask_chart.hpp"
#include "plots/raster.hpp"
#include "tests/plots/chart_fixtures.hpp"

using namespace attnlab::plots;

namespace {

// Pixels of background every chart keeps at each edge (layout::kPad is the intended 16).
constexpr int kMargin = 4;

// The first pixel within kMargin of an edge that differs from the background, as
// "left edge: pixel (2, 40) is #1f77b4"; "" if every one is background.
std::string touches_edge(const Figure& fig) {
    const Image im = render_raster(fig);
    const Color bg = fig.background;
    const auto differs = [&](int x, int y) {
        const Color c = im.at(x, y);
        return c.r != bg.r || c.g != bg.g || c.b != bg.b;
    };
    const auto report = [&](const char* edge, int x, int y) {
        return std::string(edge) + " edge: pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") is " + to_hex(im.at(x, y));
    };
    for (int y = 0; y < im.height; ++y)
        for (int d = 0; d < kMargin; ++d) {
            if (differs(d, y)) return report("left", d, y);
            if (differs(im.width - 1 - d, y)) return report("right", im.width - 1 - d, y);
        }
    for (int x = 0; x < im.width; ++x)
        for (int d = 0; d < kMargin; ++d) {
            if (differs(x, d)) return report("top", x, d);
            if (differs(x, im.height - 1 - d)) return report("bottom", x, im.height - 1 - d);
        }
    return "";
}

}  // namespace

TEST_CASE("every chart keeps a margin of background on all four edges, long titles included", "[plots][layout][margins]") {
    const std::string long_title =
        "A title far wider than any of the small charts underneath it, as a learner's own run names them";
    std::vector<std::pair<std::string, Figure>> charts = plots_test::every_chart();
    for (auto& [name, fig] : plots_test::every_chart(long_title)) charts.emplace_back(name + " (long title)", std::move(fig));
    const Matrix causal{{1, 0, 0}, {0.5, 0.5, 0}, {0.2, 0.3, 0.5}};
    charts.emplace_back("mask chart (long title)",
                        mask_chart({{{0, 1}, {0, 0}}, {{0, 0}, {1, 0}}}, {.title = long_title, .panel_titles = {"causal", "other"}}));
    charts.emplace_back("figure grid (long title)",
                        figure_grid({heatmap(causal, {.title = "one"}), heatmap(causal, {.title = "two"})},
                                    {.title = long_title, .columns = 2}));
    // Phase 2's heads sweep: a log x axis, a long legend entry and a title longer than both.
    charts.emplace_back("line chart, log x, long legend",
                        line_chart({{.name = "validation loss", .x = {1, 2, 4, 8, 16}, .y = {2.6, 2.5, 2.45, 2.5, 2.7}},
                                    {.name = "Bayes floor (no model can go lower)", .x = {1, 2, 4, 8, 16},
                                     .y = {2.3, 2.3, 2.3, 2.3, 2.3}, .markers = false, .dashed = true}},
                                   {.title = "Validation loss vs number of heads (d_model 64, same steps and seed)",
                                    .x_title = "heads H (log scale; d_k = 64 / H)", .y_title = "loss (nats)", .log_x = true}));
    for (const auto& [name, fig] : charts) {
        INFO(name << " (" << fig.width << " x " << fig.height << ")");
        CHECK(touches_edge(fig) == "");
    }
    SECTION("the check itself sees a shape on the edge") {
        Figure f;
        f.width = 40, f.height = 30;
        f.add(Rect{.box = {38, 10, 2, 2}, .fill = Color{0, 0, 0}});
        CHECK_THAT(touches_edge(f), Catch::Contains("right edge"));
    }
}
