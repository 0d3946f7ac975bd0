// test_mask_chart.cpp — binary mask grids: white 1s, black 0s, the 0/1 written in
// each cell, everything inside the figure, and bad input refused.
#include <catch2/catch.hpp>

#include "plots/bounds.hpp"
#include "plots/colormap.hpp"
#include "plots/mask_chart.hpp"
#include "plots/text_metrics.hpp"

using namespace attnlab::plots;

TEST_CASE("mask_chart paints allowed cells white and blocked ones black, with their 0/1", "[plots][mask]") {
    const Matrix causal = {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}};
    const Figure fig = mask_chart({causal, causal}, {.title = "causal", .panel_titles = {"a", "b"},
                                                        .row_labels = {"x", "y", "z"}, .col_labels = {"x", "y", "z"}});
    int ones = 0, zeros = 0;
    for_each_text(fig.items, [&](const Text& t) {
        if (t.text == "1") {
            ++ones;
            CHECK(t.color == palette::ink);
        }
        if (t.text == "0") {
            ++zeros;
            CHECK(t.color == palette::white);
        }
        const Box b = text_bounds(t);
        INFO("label '" << t.text << "'");
        CHECK((b.x >= 0 && b.y >= 0 && b.right() <= fig.width && b.bottom() <= fig.height));
    });
    CHECK(ones == 2 * 6);
    CHECK(zeros == 2 * 3);
    int white = 0, black = 0;  // cell fills (the legend adds one swatch of each)
    for (const Primitive& p : fig.items)
        if (const auto* r = std::get_if<Rect>(&p.shape); r && r->fill && r->box.w == r->box.h) {
            white += *r->fill == palette::white, black += *r->fill == sample(Colormap::greys, 1);
        }
    CHECK(white == 2 * 6 + 1);
    CHECK(black == 2 * 3 + 1);
    const auto all = content_bounds(fig.items);
    REQUIRE(all);
    CHECK((all->x >= 0 && all->right() <= fig.width && all->bottom() <= fig.height));
}

TEST_CASE("mask_chart refuses what is not a mask", "[plots][mask][errors]") {
    CHECK_THROWS_WITH(mask_chart({}), Catch::Contains("no masks"));
    CHECK_THROWS_WITH(mask_chart({{{1, 0.5}}}), Catch::Contains("only 0 (blocked) and 1 (allowed)"));
    CHECK_THROWS_WITH(mask_chart({{{1, 0}}, {{1}}}), Catch::Contains("panel 1"));
    CHECK_THROWS_WITH(mask_chart({{{1, 0}}}, {.panel_titles = {"a", "b"}}), Catch::Contains("panel titles"));
    CHECK_THROWS_WITH(mask_chart({{{1, 0}}}, {.row_labels = {"a", "b"}}), Catch::Contains("row labels"));
}
