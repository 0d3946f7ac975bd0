// test_figure_grid.cpp — placing finished figures in a grid.
#include <catch2/catch.hpp>

#include "plots/figure_grid.hpp"
#include "tensor/error.hpp"

using namespace attnlab;
using namespace attnlab::plots;

namespace {

Figure square(int size) {  // a figure with one rectangle filling it and a label at its centre
    Figure f;
    f.width = f.height = size;
    f.add(Rect{.box = {0, 0, double(size), double(size)}, .fill = palette::ink});
    f.add(Text{.at = {size / 2.0, size / 2.0}, .text = "x"});
    return f;
}

const Group& cell(const Figure& f, std::size_t i) { return std::get<Group>(f.items.at(i).shape); }

}  // namespace

TEST_CASE("figure_grid sizes rows and columns from their largest figures and moves each into its cell",
          "[plots][figure_grid]") {
    const Figure grid = figure_grid({square(100), square(40), square(60)}, {.columns = 2, .gap = 10});
    CHECK(grid.width == 100 + 10 + 40);
    CHECK(grid.height == 100 + 10 + 60);
    REQUIRE(grid.items.size() == 3);
    // Cell 1 (row 0, column 1) is 40 wide and 100 tall: the 40 px figure is centred vertically.
    const Rect& moved = std::get<Rect>(cell(grid, 1).items[0].shape);
    CHECK(moved.box.x == 110);
    CHECK(moved.box.y == 30);
    CHECK(cell(grid, 1).clip->x == 110);
    // Cell 2 (row 1, column 0) is 100 wide: the 60 px figure is centred horizontally.
    const Text& label = std::get<Text>(cell(grid, 2).items[1].shape);
    CHECK(label.at.x == 20 + 30);
    CHECK(label.at.y == 110 + 30);
}

TEST_CASE("figure_grid: one row by default, a title above, errors for no figures", "[plots][figure_grid]") {
    const Figure row = figure_grid({square(50), square(50), square(50)}, {.gap = 0});
    CHECK(row.width == 150);
    CHECK(row.height == 50);
    const Figure titled = figure_grid({square(50)}, {.title = "a title wider than the figure"});
    CHECK(titled.width > 50);
    CHECK(titled.height > 50);
    CHECK(std::holds_alternative<Text>(titled.items.at(0).shape));
    CHECK_THROWS_AS(figure_grid({}), ValueError);
    CHECK_THROWS_AS(figure_grid({square(5)}, {.columns = -1}), ValueError);
}

TEST_CASE("translate moves every kind of primitive, nested groups and clips included", "[plots][figure_grid]") {
    std::vector<Primitive> items;
    Group inner{.clip = Box{1, 1, 2, 2}, .items = {}};
    inner.add(Circle{.center = {1, 2}});
    items.push_back({Line{.from = {0, 0}, .to = {1, 1}}});
    items.push_back({Polygon{.points = {{0, 0}, {1, 0}, {0, 1}}}});
    items.push_back({Arrow{.points = {{0, 0}, {2, 2}}}});
    items.push_back({inner});
    translate(items, 10, 20);
    CHECK(std::get<Line>(items[0].shape).to.x == 11);
    CHECK(std::get<Polygon>(items[1].shape).points[2].y == 21);
    CHECK(std::get<Arrow>(items[2].shape).points[1].x == 12);
    const Group& g = std::get<Group>(items[3].shape);
    CHECK(g.clip->y == 21);
    CHECK(std::get<Circle>(g.items[0].shape).center.x == 11);
}
