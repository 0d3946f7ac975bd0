// geometry.cpp — see geometry.hpp.
#include "plots/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attnlab::plots {
namespace {

double distance(Point a, Point b) { return std::hypot(b.x - a.x, b.y - a.y); }

Point lerp(Point a, Point b, double t) { return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t}; }

// Twice the signed area; positive = counter-clockwise in y-down coordinates seen as y-up.
double signed_area2(const Contour& c) {
    double s = 0;
    for (std::size_t i = 0, n = c.size(); i < n; ++i) {
        const Point &p = c[i], &q = c[(i + 1) % n];
        s += p.x * q.y - q.x * p.y;
    }
    return s;
}

// The union trick needs all contours wound the same way: windings then add up
// (never cancel) where pieces overlap.
void orient(Contour& c) {
    if (signed_area2(c) < 0) std::reverse(c.begin(), c.end());
}

}  // namespace

Contour circle_contour(Point center, double radius) {
    // Facets shorter than ~1.5 px are invisible after anti-aliasing.
    int n = std::clamp(static_cast<int>(std::ceil(2 * std::numbers::pi * radius / 1.5)), 12, 256);
    Contour c;
    c.reserve(n);
    for (int i = 0; i < n; ++i) {
        double a = 2 * std::numbers::pi * i / n;
        c.push_back({center.x + radius * std::cos(a), center.y + radius * std::sin(a)});
    }
    return c;
}

std::vector<Contour> stroke_outline(const std::vector<Point>& points, double width, LineCap cap, bool closed) {
    std::vector<Contour> out;
    if (points.empty() || width <= 0) return out;
    double half = width / 2;
    std::vector<Point> pts = points;
    if (closed && pts.size() > 2) pts.push_back(pts.front());
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
        Point a = pts[i], b = pts[i + 1];
        double len = distance(a, b);
        if (len < 1e-9) continue;
        double nx = -(b.y - a.y) / len * half, ny = (b.x - a.x) / len * half;
        Contour quad = {{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}};
        orient(quad);
        out.push_back(std::move(quad));
    }
    // Round joins at interior points (and at the closing point of a closed path).
    std::size_t first_joint = closed ? 0 : 1, last_joint = closed ? pts.size() - 1 : pts.size() - 1;
    for (std::size_t i = first_joint; i < last_joint; ++i) out.push_back(circle_contour(pts[i], half));
    if (!closed && cap == LineCap::round) {
        out.push_back(circle_contour(pts.front(), half));
        if (pts.size() > 1) out.push_back(circle_contour(pts.back(), half));
    }
    for (Contour& c : out) orient(c);
    return out;
}

std::vector<std::vector<Point>> dash_pieces(const std::vector<Point>& points, const std::vector<double>& pattern,
                                            bool closed) {
    std::vector<Point> pts = points;
    if (closed && pts.size() > 2) pts.push_back(pts.front());
    double period = 0;
    for (double d : pattern) period += std::max(d, 0.0);
    if (pattern.empty() || period <= 0) return {pts};

    std::vector<std::vector<Point>> pieces;
    std::size_t k = 0;              // index into the pattern
    double left = pattern[0];       // length left in the current on/off run
    bool on = true;
    std::vector<Point> current;
    if (pts.size() > 0) current.push_back(pts[0]);
    for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
        Point a = pts[i], b = pts[i + 1];
        double seg = distance(a, b), pos = 0;
        while (seg - pos > left) {
            pos += left;
            Point cut = lerp(a, b, pos / seg);
            if (on) {
                current.push_back(cut);
                pieces.push_back(std::move(current));
                current.clear();
            } else {
                current = {cut};
            }
            on = !on;
            k = (k + 1) % pattern.size();
            left = std::max(pattern[k], 0.0);
        }
        left -= seg - pos;
        if (on) current.push_back(b);
    }
    if (on && current.size() > 1) pieces.push_back(std::move(current));
    return pieces;
}

ArrowShape arrow_shape(const Arrow& arrow) {
    ArrowShape shape;
    const auto& pts = arrow.points;
    if (pts.size() < 2) return shape;
    Point tip = pts.back();
    // Direction of the head: from the last point that is far enough back to be stable.
    std::size_t j = pts.size() - 2;
    while (j > 0 && distance(pts[j], tip) < 1e-6) --j;
    double len = distance(pts[j], tip);
    if (len < 1e-9) return shape;
    double dx = (tip.x - pts[j].x) / len, dy = (tip.y - pts[j].y) / len;
    Point base = {tip.x - dx * arrow.head_length, tip.y - dy * arrow.head_length};
    double hw = arrow.head_width / 2;
    shape.head = {tip, {base.x - dy * hw, base.y + dx * hw}, {base.x + dy * hw, base.y - dx * hw}};

    // Walk back from the tip, dropping head_length of path, so the shaft ends at the base.
    double remaining = arrow.head_length;
    std::size_t end = pts.size() - 1;
    Point cut = tip;
    while (end > 0) {
        double seg = distance(pts[end - 1], pts[end]);
        if (seg >= remaining) {
            cut = lerp(pts[end], pts[end - 1], seg > 0 ? remaining / seg : 0);
            break;
        }
        remaining -= seg;
        --end;
        cut = pts[end];
    }
    if (end == 0) return shape;  // the path is shorter than the head: head only
    shape.shaft.assign(pts.begin(), pts.begin() + static_cast<std::ptrdiff_t>(end));
    shape.shaft.push_back(cut);
    return shape;
}

std::vector<Point> quadratic_curve(Point from, Point control, Point to, int segments) {
    std::vector<Point> pts;
    segments = std::max(segments, 1);
    for (int i = 0; i <= segments; ++i) {
        double t = double(i) / segments;
        pts.push_back(lerp(lerp(from, control, t), lerp(control, to, t), t));
    }
    return pts;
}

}  // namespace attnlab::plots
