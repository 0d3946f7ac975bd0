// compose.cpp — see compose.hpp.
#include "plots/compose.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "plots/layout.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

namespace {

Point moved(Point p, double dx, double dy) { return {p.x + dx, p.y + dy}; }

// One primitive, moved; groups move their clip box and every item inside.
Primitive moved(const Primitive& p, double dx, double dy) {
    return std::visit(
        [&](const auto& s) -> Primitive {
            using S = std::decay_t<decltype(s)>;
            S out = s;
            if constexpr (std::is_same_v<S, Line>) out.from = moved(s.from, dx, dy), out.to = moved(s.to, dx, dy);
            else if constexpr (std::is_same_v<S, Rect>) out.box.x += dx, out.box.y += dy;
            else if constexpr (std::is_same_v<S, Circle>) out.center = moved(s.center, dx, dy);
            else if constexpr (std::is_same_v<S, Text>) out.at = moved(s.at, dx, dy);
            else if constexpr (std::is_same_v<S, Group>) {
                if (out.clip) out.clip->x += dx, out.clip->y += dy;
                for (Primitive& item : out.items) item = moved(item, dx, dy);
            } else {  // Polyline, Polygon, Arrow: a list of points
                for (Point& q : out.points) q = moved(q, dx, dy);
            }
            return Primitive{std::move(out)};
        },
        p.shape);
}

Figure stack(const std::vector<Figure>& panels, const std::string& title, double gap, bool across, const char* name) {
    if (panels.empty()) throw ValueError(std::string(name) + ": no panels");
    double along = 0, thick = 0;  // total length in the stacking direction, largest size across it
    for (const Figure& f : panels) {
        along += across ? f.width : f.height;
        thick = std::max<double>(thick, across ? f.height : f.width);
    }
    along += gap * static_cast<double>(panels.size() - 1);
    const double content_w = across ? along : thick, content_h = across ? thick : along;
    const double width = std::max(content_w, layout::max_text_width({title}, layout::kTitleScale)) + 2 * layout::kPad;

    Figure out;
    out.description = title;
    const double top = layout::add_title(out, title, width / 2, layout::kPad);
    double x = (width - content_w) / 2, y = top;
    for (const Figure& f : panels) {
        place(out, f, x, y);
        (across ? x : y) += (across ? f.width : f.height) + gap;
    }
    out.width = layout::whole_pixels(width);
    out.height = layout::whole_pixels(top + content_h + layout::kPad);
    return out;
}

}  // namespace

void place(Figure& into, const Figure& figure, double dx, double dy) {
    for (const Primitive& p : figure.items) into.items.push_back(moved(p, dx, dy));
}

Figure hstack(const std::vector<Figure>& panels, const std::string& title, double gap) {
    return stack(panels, title, gap, true, "hstack");
}

Figure vstack(const std::vector<Figure>& panels, const std::string& title, double gap) {
    return stack(panels, title, gap, false, "vstack");
}

}  // namespace attnlab::plots
