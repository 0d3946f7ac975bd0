// bounds.cpp — see bounds.hpp.
#include "plots/bounds.hpp"

#include <algorithm>

#include "plots/text_metrics.hpp"

namespace attnlab::plots {
namespace {

struct Extent {
    double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
    void add(Point p, double pad) {
        x0 = std::min(x0, p.x - pad), y0 = std::min(y0, p.y - pad);
        x1 = std::max(x1, p.x + pad), y1 = std::max(y1, p.y + pad);
    }
    void add(const Box& b) {
        add({b.x, b.y}, 0);
        add({b.right(), b.bottom()}, 0);
    }
};

double half(const std::optional<Stroke>& s) { return s ? s->width / 2 : 0; }

void collect(const std::vector<Primitive>& items, Extent& e) {
    for (const Primitive& p : items) {
        std::visit(
            [&](const auto& s) {
                using T = std::decay_t<decltype(s)>;
                if constexpr (std::is_same_v<T, Line>) {
                    e.add(s.from, s.stroke.width / 2);
                    e.add(s.to, s.stroke.width / 2);
                } else if constexpr (std::is_same_v<T, Polyline>) {
                    for (Point q : s.points) e.add(q, s.stroke.width / 2);
                } else if constexpr (std::is_same_v<T, Arrow>) {
                    for (Point q : s.points) e.add(q, std::max(s.stroke.width, s.head_width) / 2);
                } else if constexpr (std::is_same_v<T, Rect>) {
                    e.add({s.box.x, s.box.y}, half(s.stroke));
                    e.add({s.box.right(), s.box.bottom()}, half(s.stroke));
                } else if constexpr (std::is_same_v<T, Polygon>) {
                    for (Point q : s.points) e.add(q, half(s.stroke));
                } else if constexpr (std::is_same_v<T, Circle>) {
                    e.add(s.center, s.radius + half(s.stroke));
                } else if constexpr (std::is_same_v<T, Text>) {
                    if (!s.text.empty()) e.add(text_bounds(s));
                } else if constexpr (std::is_same_v<T, Group>) {
                    collect(s.items, e);
                }
            },
            p.shape);
    }
}

}  // namespace

std::optional<Box> content_bounds(const std::vector<Primitive>& items) {
    Extent e;
    collect(items, e);
    if (e.x1 < e.x0) return std::nullopt;
    return Box{e.x0, e.y0, e.x1 - e.x0, e.y1 - e.y0};
}

}  // namespace attnlab::plots
