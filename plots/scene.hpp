// scene.hpp — the drawing description: a Figure is a list of primitives.
//
// Charts never touch pixels or SVG syntax. They emit these primitives in figure
// coordinates (pixels, origin top-left, y down) and either back end renders the
// same list: svg.hpp keeps it vector (text stays text), raster.hpp turns it into
// an RGB image. One description, two renderings — that is what keeps the SVG and
// the PNG of a figure in agreement.
//
// Left out, on purpose: general transforms (only text may turn, by 90°), gradients,
// curves (charts flatten Béziers into polylines with geometry.hpp), clip shapes
// other than rectangles. To add a primitive: define its struct here, add it to
// Primitive::Shape, and handle it in svg.cpp and raster.cpp (their std::visit calls
// stop compiling until you do).
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "plots/color.hpp"

namespace attnlab::plots {

struct Point {
    double x = 0, y = 0;
};

struct Box {
    double x = 0, y = 0, w = 0, h = 0;
    double right() const { return x + w; }
    double bottom() const { return y + h; }
    Point center() const { return {x + w / 2, y + h / 2}; }
};

enum class LineCap { butt, round };

// How a line is drawn. Joins are always round (the same in SVG and raster).
struct Stroke {
    Color color = palette::ink;
    double width = 1;
    LineCap cap = LineCap::butt;
    std::vector<double> dash{};  // on/off lengths in pixels; empty = solid
};

struct Line {
    Point from{}, to{};
    Stroke stroke{};
};

struct Polyline {
    std::vector<Point> points{};
    Stroke stroke{};
};

struct Rect {
    Box box{};
    std::optional<Color> fill{};
    std::optional<Stroke> stroke{};  // centred on the border, as in SVG
};

struct Polygon {
    std::vector<Point> points{};  // implicitly closed; filled with the non-zero rule
    std::optional<Color> fill{};
    std::optional<Stroke> stroke{};
};

struct Circle {
    Point center{};
    double radius = 1;
    std::optional<Color> fill{};
    std::optional<Stroke> stroke{};
};

// A stroked path ending in a filled triangular head whose tip is the last point.
// The shaft stops where the head begins, so a translucent arrow is not darker there.
struct Arrow {
    std::vector<Point> points{};  // at least two; curves are passed flattened
    Stroke stroke{};
    double head_length = 8;
    double head_width = 7;
};

enum class HAlign { left, center, right };
// top = top of the tallest glyph, middle = half-way up the capitals (what looks
// centred for labels), baseline, bottom = bottom of the descenders.
enum class VAlign { top, middle, baseline, bottom };

// One line of printable ASCII (other bytes render as '?' in both back ends), drawn
// with the project's bitmap font (font.hpp) at an integer scale: scale 1 is a
// 6 px advance and 7 px capitals, scale 2 doubles both.
struct Text {
    Point at{};  // the anchor; halign/valign say which point of the text sits on it
    std::string text{};
    Color color = palette::ink;
    int scale = 1;
    HAlign halign = HAlign::left;
    VAlign valign = VAlign::baseline;
    bool vertical = false;  // turned 90° counter-clockwise (reads bottom to top), about the anchor
};

struct Primitive;

// A list of primitives, optionally clipped to a rectangle (clips of nested groups intersect).
struct Group {
    std::optional<Box> clip{};
    std::vector<Primitive> items;  // no `{}` here: clang 14 would need Primitive complete (so write .items = {})
    template <class Shape>
    void add(Shape shape);
};

struct Primitive {
    using Shape = std::variant<Line, Polyline, Rect, Polygon, Circle, Arrow, Text, Group>;
    Shape shape;
};

template <class Shape>
void Group::add(Shape shape) {
    items.push_back(Primitive{std::move(shape)});
}

struct Figure {
    int width = 640, height = 480;
    Color background = palette::white;
    std::string description{};  // becomes the SVG <title> (for screen readers and tooltips)
    std::vector<Primitive> items{};
    template <class Shape>
    void add(Shape shape) {
        items.push_back(Primitive{std::move(shape)});
    }
};

// Calls visit(const Text&) for every text primitive, descending into groups;
// used by layout checks (every label inside the image) and the tests.
template <class Visitor>
void for_each_text(const std::vector<Primitive>& items, Visitor&& visit) {
    for (const Primitive& p : items) {
        if (const auto* t = std::get_if<Text>(&p.shape)) visit(*t);
        if (const auto* g = std::get_if<Group>(&p.shape)) for_each_text(g->items, visit);
    }
}

}  // namespace attnlab::plots
