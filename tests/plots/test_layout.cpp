// test_layout.cpp — properties every chart must have, checked on all of them:
// every label and shape inside the figure, no two labels overlapping in the
// heatmap, valid SVG that keeps its text as text, and tick and colour-map rules.
#include <catch2/catch.hpp>
#include <cmath>

#include "plots/bounds.hpp"
#include "plots/colormap.hpp"
#include "plots/heatmap.hpp"
#include "plots/image.hpp"
#include "tensor/error.hpp"
#include "plots/layout.hpp"
#include "plots/svg.hpp"
#include "plots/text_metrics.hpp"
#include "tests/plots/chart_fixtures.hpp"
#include "tests/plots/decoders.hpp"

using namespace attnlab::plots;

TEST_CASE("every chart keeps every label and shape inside its figure", "[plots][layout]") {
    for (const auto& chart : plots_test::every_chart()) {
        // Variables, not a structured binding: the lambda below captures fig (clang 14 cannot).
        const std::string& name = chart.first;
        const Figure& fig = chart.second;
        INFO(name << " (" << fig.width << " x " << fig.height << ")");
        int texts = 0;
        for_each_text(fig.items, [&](const Text& t) {
            Box b = text_bounds(t);
            INFO("label '" << t.text << "' at " << b.x << "," << b.y << " size " << b.w << "x" << b.h);
            CHECK(b.x >= 0);
            CHECK(b.y >= 0);
            CHECK(b.right() <= fig.width);
            CHECK(b.bottom() <= fig.height);
            ++texts;
        });
        CHECK(texts > 0);
        auto all = content_bounds(fig.items);
        REQUIRE(all);
        CHECK(all->x >= 0);
        CHECK(all->y >= 0);
        CHECK(all->right() <= fig.width);
        CHECK(all->bottom() <= fig.height);
    }
}

TEST_CASE("heatmap labels never overlap each other", "[plots][layout]") {
    auto charts = plots_test::every_chart();
    const Figure& fig = charts.front().second;  // the heatmap with long labels and annotations
    std::vector<Box> boxes;
    for_each_text(fig.items, [&](const Text& t) { boxes.push_back(text_bounds(t)); });
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (std::size_t j = i + 1; j < boxes.size(); ++j) {
            const Box &a = boxes[i], &b = boxes[j];
            bool overlap = a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom();
            INFO("boxes " << i << " and " << j);
            CHECK_FALSE(overlap);
        }
}

TEST_CASE("a long column label turns vertical and grows the figure", "[plots][layout]") {
    Matrix m = {{0.5, 0.5}, {0.2, 0.8}};
    HeatmapOptions short_labels;
    short_labels.col_labels = {"a", "b"};
    HeatmapOptions long_labels;
    long_labels.col_labels = {"a", "an-extremely-long-label"};
    Figure s = heatmap(m, short_labels), l = heatmap(m, long_labels);
    bool turned = false;
    for_each_text(l.items, [&](const Text& t) { turned |= t.vertical && t.text == "an-extremely-long-label"; });
    CHECK(turned);
    CHECK(l.height >= s.height + text_width("an-extremely-long-label") - text_height() - 1);
}

TEST_CASE("SVG output of every chart is well-formed and keeps labels as text", "[plots][svg]") {
    for (const auto& [name, fig] : plots_test::every_chart()) {
        INFO(name);
        std::string svg = render_svg(fig);
        CHECK(plots_test::xml_problem(svg) == "");
        CHECK(svg.find("<text") != std::string::npos);
    }
    SECTION("special characters are escaped, in text and in the title") {
        Figure f;
        f.description = "a < b & \"c\"";
        f.add(Text{.at = {5, 5}, .text = "x<y & y>z"});
        std::string svg = render_svg(f);
        CHECK(plots_test::xml_problem(svg) == "");
        CHECK(svg.find("x&lt;y &amp; y&gt;z") != std::string::npos);
        CHECK(svg.find("a &lt; b &amp; &quot;c&quot;") != std::string::npos);
    }
    SECTION("the checker itself rejects broken XML") {
        CHECK(plots_test::xml_problem("<a><b></a>") != "");
        CHECK(plots_test::xml_problem("<a x=1/>") != "");
        CHECK(plots_test::xml_problem("<a>1 & 2</a>") != "");
        CHECK(plots_test::xml_problem("<a>") != "");
    }
}

TEST_CASE("colour maps hit their published end points", "[plots][colormap]") {
    CHECK(to_hex(sample(Colormap::viridis, 0)) == "#440154");
    CHECK(to_hex(sample(Colormap::viridis, 1)) == "#fde725");
    CHECK(to_hex(sample(Colormap::greys, 0)) == "#ffffff");
    CHECK(to_hex(sample(Colormap::greys, 1)) == "#000000");
    CHECK(to_hex(sample(Colormap::blues, 1)) == "#08306b");
    CHECK(to_hex(sample(Colormap::reds, 1)) == "#67000d");
    CHECK(to_hex(sample(Colormap::red_blue, 0)) == "#053061");  // negative: blue
    CHECK(to_hex(sample(Colormap::red_blue, 0.5)) == "#f7f7f7");  // zero: neutral
    CHECK(to_hex(sample(Colormap::red_blue, 1)) == "#67001f");  // positive: red
    CHECK(to_hex(sample(Colormap::viridis, -3)) == "#440154");  // clamped
    SECTION("a diverging range is centred on zero") {
        Normalizer n = choose_range(Colormap::red_blue, -0.5, 2.0);
        CHECK(n.lo == Approx(-2.0));
        CHECK(n(0) == Approx(0.5));
        Normalizer flat = choose_range(Colormap::viridis, 3, 3);
        CHECK(flat.hi > flat.lo);
    }
    CHECK(contrasting_text(sample(Colormap::viridis, 0)) == palette::white);
    CHECK(contrasting_text(sample(Colormap::viridis, 1)) == palette::ink);
}

TEST_CASE("tick rules give nice, in-range numbers", "[plots][layout]") {
    auto t = layout::linear_ticks(0.03, 0.97, 5);
    CHECK(t.labels.front() == "0.0");
    CHECK(t.labels.back() == "1.0");
    CHECK(t.values.size() == 6);
    auto inside = layout::linear_ticks(0.03, 0.97, 5, false);
    CHECK(inside.values.front() >= 0.03);
    CHECK(inside.values.back() <= 0.97);
    auto logt = layout::log_ticks(16, 2048);
    CHECK(logt.lo < 16);
    CHECK(logt.hi > 2048);
    CHECK(std::find(logt.labels.begin(), logt.labels.end(), "100") != logt.labels.end());
    CHECK(layout::format_fixed(-0.001, 2) == "0.00");
}

TEST_CASE("log_ticks_at: a sweep's axis ticks at the swept values", "[plots][layout]") {
    using attnlab::plots::layout::log_ticks_at;
    const auto heads = log_ticks_at({16, 1, 2, 4, 8, 2, 1});  // unsorted, repeated (several series)
    CHECK(heads.values == std::vector<double>{1, 2, 4, 8, 16});
    CHECK(heads.labels == std::vector<std::string>{"1", "2", "4", "8", "16"});
    CHECK(heads.lo < 1);  // the margin keeps the end points off the frame
    CHECK(heads.hi > 16);
    const auto d_k = log_ticks_at({8, 32, 128});
    CHECK(d_k.labels == std::vector<std::string>{"8", "32", "128"});
    // More than a sweep's few values: a curve, ticked at 1, 2, 5 x 10^k as before.
    std::vector<double> curve;
    for (int i = 1; i <= 40; ++i) curve.push_back(i * 1.5);
    const auto t = log_ticks_at(curve);
    CHECK(std::find(t.values.begin(), t.values.end(), 10.0) != t.values.end());
    CHECK(std::find(t.values.begin(), t.values.end(), 1.5) == t.values.end());
}

TEST_CASE("a figure too large to render fails before it is drawn", "[plots][layout][bad-input]") {
    CHECK_NOTHROW(layout::check_size("chart", 16384, 2048));  // 2^25 pixels: the most
    CHECK_THROWS_WITH(layout::check_size("chart", 16385, 10), Catch::Contains("chart: the figure would be 16385 x 10 pixels"));
    CHECK_THROWS_WITH(layout::check_size("chart", 16384, 2049), Catch::Contains("16384 per side and 33554432 in all"));
    CHECK_THROWS_AS(layout::check_size("chart", 0, 10), attnlab::ValueError);
    CHECK_THROWS_AS(layout::check_size("chart", NAN, 10), attnlab::ValueError);
    // A heatmap grid of 4 x 4 panels of 300 x 300 cells: refused from its layout, at once.
    const Matrix big(300, std::vector<double>(300, 0.5));
    HeatmapGridOptions o;
    o.columns = 4;
    CHECK_THROWS_WITH(heatmap_grid(std::vector<Matrix>(16, big), o), Catch::Contains("heatmap_grid: the figure would be"));
    // And the raster itself: 2^25 pixels at most.
    CHECK_THROWS_WITH(Image(8192, 8192), Catch::Contains("at most 2^25 pixels"));
}
