// geometry.hpp — the shape computations both back ends must agree on.
//
// Arrow heads, dash patterns and curve flattening are computed here once; the SVG
// back end writes the resulting points and the raster back end fills them, so the
// two renderings have the same geometry. The raster back end also needs strokes as
// fillable outlines (stroke_outline): every piece is a counter-clockwise contour,
// and filling them together with the non-zero rule paints their union exactly
// once — that is why a translucent polyline is not darker at its joints.
// Left out: miter and bevel joins (joins are round), square caps, exact Bézier
// offsetting. To add a cap style, extend LineCap (scene.hpp), stroke_outline here
// and the stroke-linecap attribute in svg.cpp.
#pragma once
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

using Contour = std::vector<Point>;

// A circle as a polygon fine enough that its facets are invisible at radius r.
Contour circle_contour(Point center, double radius);

// The outline of a stroked polyline (closed = join the last point to the first):
// one quad per segment, a disc per joint, discs at the ends for round caps.
// Dashes are not applied here; see dash_pieces.
std::vector<Contour> stroke_outline(const std::vector<Point>& points, double width, LineCap cap, bool closed);

// Splits a polyline into the "on" pieces of a dash pattern (lengths in pixels,
// on/off alternating, restarting at the first point as SVG does). An empty
// pattern returns the polyline itself.
std::vector<std::vector<Point>> dash_pieces(const std::vector<Point>& points, const std::vector<double>& pattern,
                                            bool closed);

// An arrow split into its shaft (ending where the head starts) and its head.
struct ArrowShape {
    std::vector<Point> shaft;
    Contour head;  // triangle: tip, then the two corners of its base
};
ArrowShape arrow_shape(const Arrow& arrow);

// Points along the quadratic Bézier from -> to bending towards control.
std::vector<Point> quadratic_curve(Point from, Point control, Point to, int segments = 24);

}  // namespace attnlab::plots
