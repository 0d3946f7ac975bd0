// label_placer.cpp — see label_placer.hpp.
#include "plots/label_placer.hpp"

#include <algorithm>
#include <utility>

#include "plots/text_metrics.hpp"

namespace attnlab::plots {

bool overlaps(const Box& a, const Box& b) {
    return a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom();
}

bool overlaps(const Box& box, const std::vector<Point>& polygon) {
    if (polygon.size() < 3) return false;
    const std::vector<Point> corners{{box.x, box.y}, {box.right(), box.y}, {box.right(), box.bottom()},
                                     {box.x, box.bottom()}};
    // Two convex shapes are apart iff some edge normal of either separates their projections.
    auto separated_along = [&](Point normal) {
        auto extent = [&](const std::vector<Point>& points) {
            double lo = 1e300, hi = -1e300;
            for (Point p : points) {
                const double along = p.x * normal.x + p.y * normal.y;
                lo = std::min(lo, along), hi = std::max(hi, along);
            }
            return std::pair{lo, hi};
        };
        const auto [p0, p1] = extent(polygon);
        const auto [b0, b1] = extent(corners);
        return p1 <= b0 || b1 <= p0;
    };
    if (separated_along({1, 0}) || separated_along({0, 1})) return false;  // the box's own normals
    for (std::size_t i = 0; i < polygon.size(); ++i) {
        const Point a = polygon[i], b = polygon[(i + 1) % polygon.size()];
        if ((a.x != b.x || a.y != b.y) && separated_along({a.y - b.y, b.x - a.x})) return false;
    }
    return true;
}

bool LabelPlacer::fits(const Text& label) const {
    const Box b = text_bounds(label);
    const Box grown{b.x - kClearance, b.y - kClearance, b.w + 2 * kClearance, b.h + 2 * kClearance};
    return std::none_of(boxes_.begin(), boxes_.end(), [&](const Box& o) { return overlaps(grown, o); }) &&
           std::none_of(obstacles_.begin(), obstacles_.end(), [&](const auto& poly) { return overlaps(grown, poly); });
}

int LabelPlacer::clashes(const std::vector<Text>& labels) const {
    return static_cast<int>(std::count_if(labels.begin(), labels.end(), [&](const Text& t) { return !fits(t); }));
}

bool LabelPlacer::add(const Text& label) {
    if (!fits(label)) return false;
    placed_.push_back(label);
    boxes_.push_back(text_bounds(label));
    return true;
}

}  // namespace attnlab::plots
