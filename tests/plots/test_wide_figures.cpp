// test_wide_figures.cpp — figures that would outgrow a screen's width turn or wrap instead:
// a flow diagram drawn top to bottom, a grid of wide heatmap panels with fewer a row.
#include <catch2/catch.hpp>

#include "plots/flow_diagram.hpp"
#include "plots/heatmap.hpp"

using namespace attnlab;
using namespace attnlab::plots;

namespace {

std::vector<Box> rects(const Figure& f) {
    std::vector<Box> out;
    for (const Primitive& p : f.items)
        if (const auto* r = std::get_if<Rect>(&p.shape)) out.push_back(r->box);
    return out;
}
std::vector<Arrow> arrows(const Figure& f) {
    std::vector<Arrow> out;
    for (const Primitive& p : f.items)
        if (const auto* a = std::get_if<Arrow>(&p.shape)) out.push_back(*a);
    return out;
}

}  // namespace

TEST_CASE("flow_diagram top to bottom: stages run down the page, arrows leave bottoms and enter tops",
          "[plots][flow]") {
    // a -> b -> c in stages 0, 1, 2; d beside b (row 1) also feeds c.
    const std::vector<FlowBox> boxes{{.id = "a", .lines = {"a wide first box"}},
                                     {.id = "b", .lines = {"b"}, .column = 1},
                                     {.id = "d", .lines = {"d"}, .column = 1, .row = 1},
                                     {.id = "c", .lines = {"c"}, .column = 2}};
    const std::vector<FlowEdge> edges{{.from = "a", .to = "b"}, {.from = "b", .to = "c"}, {.from = "d", .to = "c"}};
    const Figure across = flow_diagram(boxes, edges), down = flow_diagram(boxes, edges, {.top_to_bottom = true});
    CHECK(down.width < across.width);
    CHECK(down.height > across.height);
    const std::vector<Box> r = rects(down);
    REQUIRE(r.size() == 4);
    // Stages stack downwards; rows of one stage sit side by side at one height.
    CHECK(r[0].bottom() < r[1].y);
    CHECK(r[1].bottom() < r[3].y);
    CHECK(r[1].y == r[2].y);
    CHECK(r[1].right() < r[2].x);
    const std::vector<Arrow> a = arrows(down);
    REQUIRE(a.size() == 3);
    for (std::size_t e = 0; e < a.size(); ++e) {
        const Box& from = r[e == 2 ? 2 : e], &to = r[e == 0 ? 1 : 3];
        INFO("edge " << e);
        CHECK(a[e].points.front().y == from.bottom());
        CHECK(a[e].points.back().y == to.y);
        CHECK(a[e].points.front().x > from.x);
        CHECK(a[e].points.front().x < from.right());
        CHECK(a[e].points.back().x > to.x);
        CHECK(a[e].points.back().x < to.right());
    }
    CHECK_THROWS_WITH(flow_diagram(boxes, {{.from = "c", .to = "a"}}, {.top_to_bottom = true}),
                      Catch::Contains("must go to a later column (flow runs top to bottom)"));
}

TEST_CASE("heatmap_grid: wide panels wrap to fewer a row within max_width", "[plots][heatmap]") {
    // Eight panels of a 32-token sentence: four a row would be far wider than a screen.
    Matrix m(32, std::vector<double>(32, 0.5));
    HeatmapGridOptions o;
    o.columns = 4;
    for (int i = 0; i < 32; ++i) o.row_labels.push_back("token" + std::to_string(i)), o.col_labels.push_back("token" + std::to_string(i));
    const std::vector<Matrix> panels(8, m);
    o.max_width = 0;
    const Figure unlimited = heatmap_grid(panels, o);
    o.max_width = 2000;
    const Figure wrapped = heatmap_grid(panels, o);
    REQUIRE(unlimited.width > 2000);
    CHECK(wrapped.width <= 2000);
    // Two a row instead of four: twice the rows of panels, under one title and colour bar.
    CHECK(double(wrapped.height) > 1.8 * double(unlimited.height));
    o.max_width = -1;
    CHECK_THROWS_WITH(heatmap_grid(panels, o), Catch::Contains("max_width"));
}
