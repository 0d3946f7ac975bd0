// test_raster.cpp — the raster back end: bitmap text, anti-aliased fills,
// blending and clipping, checked pixel by pixel.
#include <catch2/catch.hpp>

#include "plots/font.hpp"
#include "plots/raster.hpp"
#include "plots/text_metrics.hpp"

using namespace attnlab::plots;

namespace {
bool is_ink(const Image& im, int x, int y) { return im.at(x, y) == palette::ink; }
bool is_white(const Image& im, int x, int y) { return im.at(x, y) == palette::white; }
}  // namespace

TEST_CASE("raster text puts ink exactly where the glyphs have it", "[plots][raster][font]") {
    for (int scale : {1, 2}) {
        Figure f;
        f.width = 60, f.height = 30;
        f.add(Text{.at = {5, 4}, .text = "Ag", .scale = scale, .valign = VAlign::top});
        Image im = render_raster(f);
        int ink_pixels = 0;
        for (int y = 0; y < f.height; ++y)
            for (int x = 0; x < f.width; ++x) {
                int u = (x - 5) / scale, v = (y - 4) / scale, k = u / font::kAdvance, col = u % font::kAdvance;
                bool inside = x >= 5 && y >= 4 && k < 2 && col < font::kGlyphWidth && v < font::kGlyphRows;
                bool expected = inside && font::is_ink(font::glyph("Ag"[k]), v, col);
                INFO("scale " << scale << " pixel " << x << "," << y);
                REQUIRE((expected ? is_ink(im, x, y) : is_white(im, x, y)));
                ink_pixels += expected;
            }
        CHECK(ink_pixels > 20 * scale * scale);  // both glyphs really drew something
    }
}

TEST_CASE("vertical text reads bottom to top inside its bounds", "[plots][raster][font]") {
    Figure f;
    f.width = 30, f.height = 40;
    Text t{.at = {15, 20}, .text = "L", .halign = HAlign::center, .valign = VAlign::middle, .vertical = true};
    f.add(t);
    Image im = render_raster(f);
    Box b = text_bounds(t);
    CHECK(b.w == Approx(text_height()));
    CHECK(b.h == Approx(text_width("L")));
    // 'L' turned counter-clockwise: its stem (left column) becomes the bottom row,
    // its foot (bottom row) the right column.
    int left = int(std::lround(b.x)), top = int(std::lround(b.y));
    for (int row = 0; row < 7; ++row) CHECK(is_ink(im, left + row, top + 4));      // the stem
    for (int col = 0; col < 5; ++col) CHECK(is_ink(im, left + 6, top + 4 - col));  // the foot
    for (int y = 0; y < f.height; ++y)
        for (int x = 0; x < f.width; ++x)
            if (x < b.x || x >= b.right() || y < b.y || y >= b.bottom()) REQUIRE(is_white(im, x, y));
}

TEST_CASE("fills are anti-aliased, blended and clipped", "[plots][raster]") {
    Figure f;
    f.width = 20, f.height = 10;
    SECTION("a rectangle on whole pixels covers exactly its pixels") {
        f.add(Rect{.box = {2, 2, 4, 3}, .fill = rgb(0x000000)});
        Image im = render_raster(f);
        CHECK(im.at(2, 2) == rgb(0x000000));
        CHECK(im.at(5, 4) == rgb(0x000000));
        CHECK(im.at(6, 4) == palette::white);
        CHECK(im.at(5, 5) == palette::white);
    }
    SECTION("an edge through the middle of a pixel gives half coverage") {
        f.add(Rect{.box = {2.5, 0, 5, 10}, .fill = rgb(0x000000)});
        Image im = render_raster(f);
        CHECK(int(im.at(2, 5).r) == Approx(128).margin(2));
        CHECK(int(im.at(4, 5).r) == 0);
    }
    SECTION("50% alpha blends halfway, and overlapping stroke pieces are painted once") {
        f.add(Polyline{{{1, 5}, {10, 5}, {10, 9}}, Stroke{.color = with_alpha(rgb(0x000000), 0.5), .width = 4}});
        Image im = render_raster(f);
        CHECK(int(im.at(5, 5).r) == Approx(128).margin(2));
        CHECK(int(im.at(10, 5).r) == Approx(128).margin(2));  // the joint: union, not double
    }
    SECTION("a clip group stops drawing at its edge") {
        Group g{.clip = Box{0, 0, 10, 10}, .items = {}};
        g.add(Rect{.box = {0, 0, 20, 10}, .fill = rgb(0x000000)});
        f.add(std::move(g));
        Image im = render_raster(f);
        CHECK(im.at(9, 3) == rgb(0x000000));
        CHECK(im.at(10, 3) == palette::white);
    }
}

TEST_CASE("font: '|' is not 'l' (it runs through the descender rows)", "[plots][font]") {
    namespace font = attnlab::plots::font;
    const font::Glyph &bar = font::glyph('|'), &ell = font::glyph('l');
    int differing = 0;
    for (int r = 0; r < font::kGlyphRows; ++r)
        for (int c = 0; c < font::kGlyphWidth; ++c) differing += font::is_ink(bar, r, c) != font::is_ink(ell, r, c);
    CHECK(differing >= 4);
    for (int r = font::kAscent; r < font::kGlyphRows; ++r) {
        CHECK(font::is_ink(bar, r, 2));
        CHECK_FALSE(font::is_ink(ell, r, 2));
    }
}
