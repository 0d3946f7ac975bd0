// figure_grid.cpp — see figure_grid.hpp.
#include "plots/figure_grid.hpp"

#include <algorithm>
#include <cmath>

#include "plots/layout.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

namespace {

void move(Point& p, double dx, double dy) { p.x += dx, p.y += dy; }
void move(Box& b, double dx, double dy) { b.x += dx, b.y += dy; }

}  // namespace

void translate(std::vector<Primitive>& items, double dx, double dy) {
    for (Primitive& item : items) {
        std::visit(
            [&](auto& s) {
                using S = std::decay_t<decltype(s)>;
                if constexpr (std::is_same_v<S, Line>) move(s.from, dx, dy), move(s.to, dx, dy);
                else if constexpr (std::is_same_v<S, Rect>) move(s.box, dx, dy);
                else if constexpr (std::is_same_v<S, Circle>) move(s.center, dx, dy);
                else if constexpr (std::is_same_v<S, Text>) move(s.at, dx, dy);
                else if constexpr (std::is_same_v<S, Group>) {
                    if (s.clip) move(*s.clip, dx, dy);
                    translate(s.items, dx, dy);
                } else {  // Polyline, Polygon, Arrow: a list of points
                    for (Point& p : s.points) move(p, dx, dy);
                }
            },
            item.shape);
    }
}

Figure figure_grid(const std::vector<Figure>& figures, const FigureGridOptions& o) {
    if (figures.empty()) throw ValueError("figure_grid: no figures");
    if (o.columns < 0) throw ValueError("figure_grid: columns must be >= 0, got " + std::to_string(o.columns));
    if (!(o.gap >= 0)) throw ValueError("figure_grid: gap must be >= 0");
    const std::size_t n = figures.size();
    const std::size_t cols = o.columns == 0 ? n : std::min(n, static_cast<std::size_t>(o.columns));
    const std::size_t rows = (n + cols - 1) / cols;

    std::vector<double> col_w(cols, 0), row_h(rows, 0);
    for (std::size_t i = 0; i < n; ++i) {
        col_w[i % cols] = std::max(col_w[i % cols], static_cast<double>(figures[i].width));
        row_h[i / cols] = std::max(row_h[i / cols], static_cast<double>(figures[i].height));
    }
    const double gap = std::round(o.gap);
    double width = gap * static_cast<double>(cols - 1), height = gap * static_cast<double>(rows - 1);
    for (double w : col_w) width += w;
    for (double h : row_h) height += h;

    layout::check_size("figure_grid", width, height);
    Figure out;
    const double title_h = o.title.empty() ? 0 : layout::kPad + layout::title_band(o.title);
    out.width = layout::whole_pixels(std::max(width, layout::max_text_width({o.title}, layout::kTitleScale) + 2 * layout::kPad));
    out.height = layout::whole_pixels(height + title_h);
    out.description = o.title;
    layout::add_title(out, o.title, out.width / 2.0, layout::kPad);

    const double x0 = std::floor((out.width - width) / 2);
    double y = title_h;
    for (std::size_t r = 0; r < rows; ++r) {
        double x = x0;
        for (std::size_t c = 0; c < cols && r * cols + c < n; ++c) {
            const Figure& f = figures[r * cols + c];
            const double dx = x + std::floor((col_w[c] - f.width) / 2), dy = y + std::floor((row_h[r] - f.height) / 2);
            if (f.background != out.background)
                out.add(Rect{.box = {dx, dy, static_cast<double>(f.width), static_cast<double>(f.height)},
                             .fill = f.background});
            Group cell{.clip = Box{dx, dy, static_cast<double>(f.width), static_cast<double>(f.height)}, .items = f.items};
            translate(cell.items, dx, dy);
            out.add(std::move(cell));
            x += col_w[c] + gap;
        }
        y += row_h[r] + gap;
    }
    return out;
}

}  // namespace attnlab::plots
