// canvas.cpp — see canvas.hpp.
#include "plots/canvas.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab::plots {

Canvas::Canvas(Image& image) : image_(image) {
    clips_.push_back({0, 0, double(image.width), double(image.height)});
    coverage_.assign(static_cast<std::size_t>(image.width) + 1, 0.0f);
}

void Canvas::push_clip(const Box& box) {
    const Box& c = clips_.back();
    double x0 = std::max(c.x, box.x), y0 = std::max(c.y, box.y);
    double x1 = std::min(c.right(), box.right()), y1 = std::min(c.bottom(), box.bottom());
    clips_.push_back({x0, y0, std::max(0.0, x1 - x0), std::max(0.0, y1 - y0)});
}

void Canvas::pop_clip() {
    if (clips_.size() > 1) clips_.pop_back();
}

void Canvas::blend(int x, int y, Color c, double coverage) {
    double a = c.a * std::min(coverage, 1.0);
    if (a <= 0) return;
    std::uint8_t* p = &image_.rgb[(static_cast<std::size_t>(y) * image_.width + x) * 3];
    auto over = [a](std::uint8_t dst, std::uint8_t src) {
        return static_cast<std::uint8_t>(std::lround(dst + (double(src) - dst) * a));
    };
    p[0] = over(p[0], c.r);
    p[1] = over(p[1], c.g);
    p[2] = over(p[2], c.b);
}

void Canvas::fill(const std::vector<Contour>& contours, Color color) {
    if (color.a <= 0) return;
    const Box& clip = clips_.back();
    if (clip.w <= 0 || clip.h <= 0) return;

    std::vector<Edge> edges;
    double min_x = clip.right(), max_x = clip.x, min_y = clip.bottom(), max_y = clip.y;
    for (const Contour& c : contours) {
        for (std::size_t i = 0, n = c.size(); i < n; ++i) {
            Point a = c[i], b = c[(i + 1) % n];
            min_x = std::min({min_x, a.x, b.x});
            max_x = std::max({max_x, a.x, b.x});
            min_y = std::min({min_y, a.y, b.y});
            max_y = std::max({max_y, a.y, b.y});
            if (a.y == b.y) continue;  // horizontal edges never cross a scanline
            edges.push_back(a.y < b.y ? Edge{a.x, a.y, b.x, b.y, +1} : Edge{b.x, b.y, a.x, a.y, -1});
        }
    }
    if (edges.empty()) return;
    int row0 = std::max(static_cast<int>(std::floor(std::max(min_y, clip.y))), 0);
    int row1 = std::min(static_cast<int>(std::ceil(std::min(max_y, clip.bottom()))), image_.height);
    double span_lo = std::max(min_x, clip.x), span_hi = std::min(max_x, clip.right());
    if (span_hi <= span_lo) return;
    int col0 = std::max(static_cast<int>(std::floor(span_lo)), 0);
    int col1 = std::min(static_cast<int>(std::ceil(span_hi)), image_.width);
    // Process edges in order of their top, so each row scans only edges that can reach it.
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.y0 < b.y0; });

    const float weight = 1.0f / kSubRows;
    for (int row = row0; row < row1; ++row) {
        std::fill(coverage_.begin() + col0, coverage_.begin() + col1 + 1, 0.0f);
        bool any = false;
        for (int s = 0; s < kSubRows; ++s) {
            double sy = row + (s + 0.5) / kSubRows;
            if (sy < clip.y || sy >= clip.bottom()) continue;
            crossings_.clear();
            for (const Edge& e : edges) {
                if (e.y0 > sy) break;
                if (sy >= e.y1) continue;
                double t = (sy - e.y0) / (e.y1 - e.y0);
                crossings_.push_back({e.x0 + (e.x1 - e.x0) * t, e.winding});
            }
            std::sort(crossings_.begin(), crossings_.end());
            int winding = 0;
            for (std::size_t i = 0; i + 1 < crossings_.size(); ++i) {
                winding += crossings_[i].second;
                if (winding == 0) continue;
                double xa = std::max(crossings_[i].first, span_lo), xb = std::min(crossings_[i + 1].first, span_hi);
                if (xb <= xa) continue;
                any = true;
                // Exact horizontal coverage: partial first and last pixels, full ones between.
                int ia = static_cast<int>(std::floor(xa)), ib = static_cast<int>(std::floor(xb));
                if (ia == ib) {
                    coverage_[ia] += float(xb - xa) * weight;
                } else {
                    coverage_[ia] += float(ia + 1 - xa) * weight;
                    for (int x = ia + 1; x < ib; ++x) coverage_[x] += weight;
                    if (ib < image_.width) coverage_[ib] += float(xb - ib) * weight;
                }
            }
        }
        if (!any) continue;
        for (int x = col0; x < col1; ++x)
            if (coverage_[x] > 0.002f) blend(x, row, color, coverage_[x]);
    }
}

void Canvas::fill_pixels(int x0, int y0, int x1, int y1, Color color) {
    const Box& clip = clips_.back();
    // A pixel is inside the clip when its centre is.
    x0 = std::max(x0, static_cast<int>(std::ceil(clip.x - 0.5)));
    y0 = std::max(y0, static_cast<int>(std::ceil(clip.y - 0.5)));
    x1 = std::min(x1, static_cast<int>(std::ceil(clip.right() - 0.5)));
    y1 = std::min(y1, static_cast<int>(std::ceil(clip.bottom() - 0.5)));
    x0 = std::max(x0, 0), y0 = std::max(y0, 0);
    x1 = std::min(x1, image_.width), y1 = std::min(y1, image_.height);
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) blend(x, y, color, 1.0);
}

}  // namespace attnlab::plots
