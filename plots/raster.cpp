// raster.cpp — see raster.hpp.
#include "plots/raster.hpp"

#include <cmath>

#include "plots/canvas.hpp"
#include "plots/font.hpp"
#include "plots/text_metrics.hpp"

namespace attnlab::plots {
namespace {

class RasterWriter {
public:
    explicit RasterWriter(Canvas& canvas) : canvas_(canvas) {}

    void draw(const std::vector<Primitive>& items) {
        for (const Primitive& p : items) std::visit([&](const auto& shape) { draw(shape); }, p.shape);
    }

private:
    Canvas& canvas_;

    void stroke(const std::vector<Point>& pts, const Stroke& s, bool closed) {
        if (s.width <= 0 || s.color.a <= 0 || pts.size() < 2) return;
        std::vector<Contour> outline;
        for (const auto& piece : dash_pieces(pts, s.dash, closed)) {
            // A dash is an open piece of the path; the undashed path keeps its closedness.
            bool piece_closed = closed && s.dash.empty();
            auto o = stroke_outline(piece, s.width, s.cap, piece_closed);
            outline.insert(outline.end(), o.begin(), o.end());
        }
        canvas_.fill(outline, s.color);
    }
    void fill_and_stroke(const Contour& shape, const std::optional<Color>& fill,
                         const std::optional<Stroke>& outline) {
        if (fill) canvas_.fill({shape}, *fill);
        if (outline) stroke(shape, *outline, true);
    }

    void draw(const Line& l) { stroke({l.from, l.to}, l.stroke, false); }
    void draw(const Polyline& p) { stroke(p.points, p.stroke, false); }
    void draw(const Rect& r) {
        const Box& b = r.box;
        fill_and_stroke({{b.x, b.y}, {b.right(), b.y}, {b.right(), b.bottom()}, {b.x, b.bottom()}}, r.fill, r.stroke);
    }
    void draw(const Polygon& p) { fill_and_stroke(p.points, p.fill, p.stroke); }
    void draw(const Circle& c) { fill_and_stroke(circle_contour(c.center, c.radius), c.fill, c.stroke); }
    void draw(const Arrow& a) {
        ArrowShape shape = arrow_shape(a);
        if (shape.shaft.size() > 1) stroke(shape.shaft, a.stroke, false);
        if (!shape.head.empty()) canvas_.fill({shape.head}, a.stroke.color);
    }
    void draw(const Text& t) {
        std::string text = printable(t.text);
        TextFrame f = text_frame(t);
        const int s = t.scale;
        // Whole-pixel origin of the text's frame, so every font pixel is a crisp s x s block.
        Point origin = to_figure(t, t.vertical ? f.left + f.width : f.left, f.top);
        int ox = static_cast<int>(std::lround(origin.x)), oy = static_cast<int>(std::lround(origin.y));
        for (std::size_t k = 0; k < text.size(); ++k) {
            const font::Glyph& g = font::glyph(text[k]);
            for (int row = 0; row < font::kGlyphRows; ++row) {
                for (int col = 0; col < font::kGlyphWidth; ++col) {
                    if (!font::is_ink(g, row, col)) continue;
                    int u = static_cast<int>(k) * font::kAdvance + col;  // font pixels along the reading direction
                    if (!t.vertical) {
                        canvas_.fill_pixels(ox + u * s, oy + row * s, ox + (u + 1) * s, oy + (row + 1) * s, t.color);
                    } else {
                        // Reading upwards from the bottom of the turned box; rows run left to right.
                        int bottom = oy + static_cast<int>(std::lround(f.width));
                        canvas_.fill_pixels(ox + row * s, bottom - (u + 1) * s, ox + (row + 1) * s, bottom - u * s,
                                            t.color);
                    }
                }
            }
        }
    }
    void draw(const Group& g) {
        if (g.clip) canvas_.push_clip(*g.clip);
        draw(g.items);
        if (g.clip) canvas_.pop_clip();
    }
};

}  // namespace

Image render_raster(const Figure& figure) {
    Image image(figure.width, figure.height, figure.background);
    Canvas canvas(image);
    RasterWriter writer(canvas);
    writer.draw(figure.items);
    return image;
}

}  // namespace attnlab::plots
