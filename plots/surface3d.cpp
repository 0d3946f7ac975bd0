// surface3d.cpp — see surface3d.hpp.
//
// World coordinates: x runs along the keys (columns, left to right), y along the
// queries (row 0 at the back, +y), z up; the grid is centred on the origin and
// every cell is 1 x 1. The camera looks at the origin from the direction
// (-sin a cos e, -cos a cos e, sin e).
#include "plots/surface3d.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "plots/bounds.hpp"
#include "plots/colorbar.hpp"
#include "plots/figure_grid.hpp"
#include "plots/label_placer.hpp"
#include "plots/layout.hpp"
#include "plots/save.hpp"
#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

using layout::kGap;
using layout::kPad;

namespace {

struct Vec3 {
    double x = 0, y = 0, z = 0;
};

double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

class Camera {
public:
    Camera(double azimuth_deg, double elevation_deg, bool perspective, double scene_radius) {
        double a = azimuth_deg * std::numbers::pi / 180, e = elevation_deg * std::numbers::pi / 180;
        ca_ = std::cos(a), sa_ = std::sin(a), ce_ = std::cos(e), se_ = std::sin(e);
        // Three scene radii away: clear perspective, no extreme distortion.
        distance_ = perspective ? 3 * scene_radius : 0;
    }
    Vec3 toward_camera() const { return {-sa_ * ce_, -ca_ * ce_, se_}; }
    // Larger = nearer the camera.
    double depth(Vec3 p) const { return dot(p, toward_camera()); }
    // Screen position before scaling: x right, y down, in world units.
    Point project(Vec3 p) const {
        double right = p.x * ca_ - p.y * sa_, y1 = p.x * sa_ + p.y * ca_;
        double up = y1 * se_ + p.z * ce_;
        double f = distance_ > 0 ? distance_ / (distance_ - depth(p)) : 1;
        return {right * f, -up * f};
    }
    // Is a face with this centre and outward normal turned towards the camera?
    bool faces_camera(Vec3 center, Vec3 normal) const {
        Vec3 d = toward_camera();
        if (distance_ > 0) d = {d.x * distance_ - center.x, d.y * distance_ - center.y, d.z * distance_ - center.z};
        return dot(normal, d) > 0;
    }

private:
    double ca_, sa_, ce_, se_, distance_;
};

struct Scene {
    const Matrix& m;
    const Surface3DOptions& o;
    std::vector<std::string> rows, cols;
    double half_w, half_h, top, vmax;  // grid half-extents, tallest bar height (world), largest value
    ColorbarSpec bar;
};

// The screen transform: world units -> pixels, fitted to a box.
struct Fit {
    double scale = 1;
    Point offset;
    Point apply(Point p) const { return {offset.x + p.x * scale, offset.y + p.y * scale}; }
};

Fit fit_scene(const Scene& s, const std::vector<double>& azimuths, const Box& area) {
    double x0 = 1e30, x1 = -1e30, y0 = 1e30, y1 = -1e30;
    double radius = std::sqrt(s.half_w * s.half_w + s.half_h * s.half_h + s.top * s.top);
    for (double az : azimuths) {
        Camera cam(az, s.o.elevation_deg, s.o.perspective, radius);
        for (double x : {-s.half_w, s.half_w})
            for (double y : {-s.half_h, s.half_h})
                for (double z : {0.0, s.top}) {
                    Point p = cam.project({x, y, z});
                    x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
                }
    }
    Fit f;
    f.scale = std::min(area.w / (x1 - x0), area.h / (y1 - y0));
    f.offset = {area.center().x - (x0 + x1) / 2 * f.scale, area.center().y - (y0 + y1) / 2 * f.scale};
    return f;
}

// Label alignment that makes text grow away from the scene's centre.
Text outward_text(Point at, Point from_center, const std::string& s, Color color = palette::ink) {
    double len = std::hypot(from_center.x, from_center.y);
    double dx = len > 0 ? from_center.x / len : 0, dy = len > 0 ? from_center.y / len : 0;
    return Text{.at = at, .text = s, .color = color,
                .halign = dx > 0.35 ? HAlign::left : dx < -0.35 ? HAlign::right : HAlign::center,
                .valign = dy > 0.35 ? VAlign::top : dy < -0.35 ? VAlign::bottom : VAlign::middle};
}

// How far outside the floor's edge a token label may stand, in cells: the first
// place that is free, trying nearest first. Further out is for the labels of rows
// behind a tall bar, which in a side-on view rises over the place nearest the edge.
constexpr double kLabelOffsets[] = {0.5, 0.75, 1.0, 1.5, 2.0};

// An axis title beside the floor edge a to b, on the side away from `center`, past the
// farthest of the edge's labels, so it can never sit in a gap between two and pass for one.
Text axis_title(Point a, Point b, Point center, const std::vector<Text>& edge_labels, const std::string& title) {
    const Point anchor{(a.x + b.x) / 2, (a.y + b.y) / 2};
    const double len = std::max(std::hypot(b.x - a.x, b.y - a.y), 1e-9);
    Point u{(a.y - b.y) / len, (b.x - a.x) / len};  // the edge's normal on screen
    if (u.x * (anchor.x - center.x) + u.y * (anchor.y - center.y) < 0) u = {-u.x, -u.y};
    double push = 0;
    for (const Text& t : edge_labels) {
        const Box box = text_bounds(t);
        for (double x : {box.x, box.right()})
            for (double y : {box.y, box.bottom()}) push = std::max(push, (x - anchor.x) * u.x + (y - anchor.y) * u.y);
    }
    push += kGap;
    return outward_text({anchor.x + u.x * push, anchor.y + u.y * push}, u, title, palette::muted);
}

// The value axis: a vertical line at a floor corner, with ticks and numbers on one side.
struct ValueAxis {
    Point foot, head;  // the line, from the floor to the tallest bar's height
    std::vector<Line> marks;
    std::vector<Text> labels;  // the numbers, bottom up, then the title
};

// side -1 puts the numbers left of the line, +1 right. As many ticks as the projected
// line has room for: 4 steps, fewer when the scene is small and the numbers would touch.
template <class Project>
ValueAxis value_axis(const Scene& s, Vec3 corner, double side, Project P) {
    ValueAxis a{P(corner), P({corner.x, corner.y, s.top}), {}, {}};
    const HAlign away = side < 0 ? HAlign::right : HAlign::left;
    for (int target = 4; target >= 1; --target) {
        const layout::Ticks ticks = layout::linear_ticks(0, s.vmax, target, false);
        a.marks.clear(), a.labels.clear();
        LabelPlacer own;
        for (std::size_t i = 0; i < ticks.values.size(); ++i) {
            const Point p = P({corner.x, corner.y, ticks.values[i] / s.vmax * s.top});
            a.marks.push_back(Line{p, {p.x + side * 4, p.y}, Stroke{.color = palette::ink}});
            a.labels.push_back(Text{.at = {p.x + side * 7, p.y}, .text = ticks.labels[i], .halign = away,
                                    .valign = VAlign::middle});
            own.add(a.labels.back());
        }
        if (own.placed().size() == a.labels.size()) break;
    }
    // Beside the line's top rather than centred on it, so a bar rising next to the axis cannot cover it.
    a.labels.push_back(Text{.at = {a.head.x + side * 2, a.head.y - 8}, .text = s.o.value_title, .color = palette::muted,
                            .halign = away, .valign = VAlign::bottom});
    return a;
}

// The faces of the bars that look at the camera, far to near: the painter's order.
template <class Project>
std::vector<Polygon> bar_faces(const Scene& s, const Camera& cam, Project P) {
    const double W = s.half_w, H = s.half_h;
    struct Bar {
        std::size_t r, c;
        double depth;
    };
    std::vector<Bar> bars;
    for (std::size_t r = 0; r < s.m.size(); ++r)
        for (std::size_t c = 0; c < s.m[r].size(); ++c)
            bars.push_back({r, c, cam.depth({double(c) + 0.5 - W, H - double(r) - 0.5, 0})});
    std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.depth < b.depth; });
    const double inset = (1 - s.o.bar_fill) / 2;
    std::vector<Polygon> out;
    for (const Bar& b : bars) {
        double v = s.m[b.r][b.c];
        double x0 = double(b.c) - W + inset, x1 = double(b.c) + 1 - W - inset;
        double y1 = H - double(b.r) - inset, y0 = H - double(b.r) - 1 + inset;
        double z = std::max(v / s.vmax * s.top, 0.02);  // a flat tile still shows a zero
        Color top = sample(s.o.colormap, s.bar.range(v));
        Stroke edge{.color = with_alpha(darker(top, 0.5), 0.8), .width = 0.8};
        struct Face {
            Vec3 normal;
            std::vector<Vec3> corners;
            double shade;
        };
        const Face faces[] = {
            {{-1, 0, 0}, {{x0, y0, 0}, {x0, y1, 0}, {x0, y1, z}, {x0, y0, z}}, 0.78},
            {{1, 0, 0}, {{x1, y0, 0}, {x1, y1, 0}, {x1, y1, z}, {x1, y0, z}}, 0.78},
            {{0, -1, 0}, {{x0, y0, 0}, {x1, y0, 0}, {x1, y0, z}, {x0, y0, z}}, 0.62},
            {{0, 1, 0}, {{x0, y1, 0}, {x1, y1, 0}, {x1, y1, z}, {x0, y1, z}}, 0.62},
            {{0, 0, 1}, {{x0, y0, z}, {x1, y0, z}, {x1, y1, z}, {x0, y1, z}}, 1.0},
        };
        for (const Face& f : faces) {
            Vec3 c{(x0 + x1) / 2 + f.normal.x * (x1 - x0) / 2, (y0 + y1) / 2 + f.normal.y * (y1 - y0) / 2,
                   f.normal.z > 0 ? z : z / 2};
            if (!cam.faces_camera(c, f.normal)) continue;
            std::vector<Point> pts;
            for (const Vec3& q : f.corners) pts.push_back(P(q));
            out.push_back(Polygon{.points = pts, .fill = darker(top, f.shade), .stroke = edge});
        }
    }
    return out;
}

// The scene alone (floor, axis, bars, labels), without title and colour bar.
Figure draw_scene(const Scene& s, double azimuth, const Fit& fit) {
    const Surface3DOptions& o = s.o;
    double radius = std::sqrt(s.half_w * s.half_w + s.half_h * s.half_h + s.top * s.top);
    Camera cam(azimuth, o.elevation_deg, o.perspective, radius);
    auto P = [&](Vec3 p) { return fit.apply(cam.project(p)); };
    Point center = P({0, 0, 0});
    auto away = [&](Point p) { return Point{p.x - center.x, p.y - center.y}; };
    const double W = s.half_w, H = s.half_h;
    const std::vector<Polygon> faces = bar_faces(s, cam, P);

    // Labels, most important first, each kept clear of the bars and of those before it:
    // the tokens along the two floor edges nearest the camera, the axis titles beyond
    // them, then the value axis's numbers.
    std::vector<std::vector<Point>> obstacles;
    for (const Polygon& f : faces) obstacles.push_back(f.points);
    LabelPlacer labels(std::move(obstacles));
    const double front_y = cam.depth({0, H, 0}) > cam.depth({0, -H, 0}) ? H : -H;
    const double front_x = cam.depth({W, 0, 0}) > cam.depth({-W, 0, 0}) ? W : -W;
    const double sy = front_y > 0 ? 1 : -1, sx = front_x > 0 ? 1 : -1;
    auto place_token = [&](std::vector<Text>& placed, const std::string& label, auto floor_point) {
        for (double offset : kLabelOffsets) {
            const Point p = P(floor_point(offset));
            if (Text t = outward_text(p, away(p), label); labels.add(t)) return placed.push_back(t);
        }
    };
    std::vector<Text> col_labels, row_labels;  // those placed
    for (std::size_t c = 0; c < s.cols.size(); ++c)
        place_token(col_labels, s.cols[c], [&](double off) { return Vec3{double(c) + 0.5 - W, front_y + sy * off, 0}; });
    for (std::size_t r = 0; r < s.rows.size(); ++r)
        place_token(row_labels, s.rows[r], [&](double off) { return Vec3{front_x + sx * off, H - double(r) - 0.5, 0}; });
    labels.add(axis_title(P({-W, front_y, 0}), P({W, front_y, 0}), center, col_labels, o.col_title));
    labels.add(axis_title(P({front_x, -H, 0}), P({front_x, H, 0}), center, row_labels, o.row_title));

    // The value axis stands at the floor corner drawn leftmost or rightmost: bars never
    // reach past either on screen, so nothing covers its numbers. Left is the habit;
    // right is taken when fewer of its labels meet the floor's, as in a side-on view
    // whose nearest corner is the leftmost, where the left numbers would sit among the
    // labels of both floor edges.
    Vec3 left{-W, -H, 0}, right = left;
    for (double x : {-W, W})
        for (double y : {-H, H}) {
            if (P({x, y, 0}).x < P(left).x) left = {x, y, 0};
            if (P({x, y, 0}).x > P(right).x) right = {x, y, 0};
        }
    ValueAxis axis = value_axis(s, left, -1, P);
    if (ValueAxis other = value_axis(s, right, 1, P); labels.clashes(other.labels) < labels.clashes(axis.labels))
        axis = std::move(other);
    for (const Text& t : axis.labels) labels.add(t);

    Figure fig;
    // Floor and its cell grid.
    fig.add(Polygon{.points = {P({-W, -H, 0}), P({W, -H, 0}), P({W, H, 0}), P({-W, H, 0})}, .fill = rgb(0xf3f4f6),
                    .stroke = Stroke{.color = palette::frame}});
    for (double x = -W + 1; x < W - 0.5; x += 1) fig.add(Line{P({x, -H, 0}), P({x, H, 0}), Stroke{.color = palette::grid}});
    for (double y = -H + 1; y < H - 0.5; y += 1) fig.add(Line{P({-W, y, 0}), P({W, y, 0}), Stroke{.color = palette::grid}});
    fig.add(Line{axis.foot, axis.head, Stroke{.color = palette::ink}});
    for (const Line& m : axis.marks) fig.add(m);
    for (const Polygon& f : faces) fig.add(f);
    for (const Text& t : labels.placed()) fig.add(t);
    return fig;
}

std::vector<std::string> numbered(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(std::to_string(i));
    return out;
}

// Validates, then renders the views at `azimuths`, all fitted together.
std::vector<Figure> render_views(const Matrix& m, const Surface3DOptions& o, const std::vector<double>& azimuths) {
    check_matrix("surface3d", m);
    check_label_count("surface3d", "row labels", o.row_labels.size(), m.size(), "rows");
    check_label_count("surface3d", "column labels", o.col_labels.size(), m[0].size(), "columns");
    for (std::size_t r = 0; r < m.size(); ++r)
        for (std::size_t c = 0; c < m[r].size(); ++c)
            if (m[r][c] < 0)
                throw ValueError("surface3d: value at [" + std::to_string(r) + ", " + std::to_string(c) + "] of the " +
                                 shape_string(m) + " matrix is " + std::to_string(m[r][c]) + "; heights must be >= 0");
    check_option("surface3d", "elevation_deg", o.elevation_deg, 5, 85);
    check_option("surface3d", "bar_fill", o.bar_fill, 0.1, 1);
    check_option("surface3d", "height_ratio", o.height_ratio, 0.05, 2);
    check_option("surface3d", "width", o.width, 160, 4000);
    check_option("surface3d", "height", o.height, 120, 4000);

    Scene s{m, o, o.row_labels.empty() ? numbered(m.size()) : o.row_labels,
            o.col_labels.empty() ? numbered(m[0].size()) : o.col_labels, 0, 0, 0, 0, {}};
    s.half_w = double(m[0].size()) / 2, s.half_h = double(m.size()) / 2;
    s.top = o.height_ratio * double(std::max(m.size(), m[0].size()));
    double lo = 0;
    for (const auto& row : m)
        for (double v : row) s.vmax = std::max(s.vmax, v);
    if (s.vmax <= 0) s.vmax = 1;
    s.bar = {o.colormap, choose_range(o.colormap, lo, s.vmax), o.value_title};

    // The scene goes left of the colour bar, below the title. Its geometry scales
    // with the fit but its labels do not, so fit the geometry first, then shrink
    // and re-centre until the union of all views, labels included, fits the area.
    double top = kPad + layout::title_band(o.title);
    double bar_band = colorbar_band(s.bar);
    Box area{kPad, top, o.width - 2 * kPad - bar_band - 2 * kGap, o.height - top - kPad};
    Fit fit = fit_scene(s, azimuths, area);
    std::vector<Figure> scenes;
    for (int attempt = 0; attempt < 8; ++attempt) {
        scenes.clear();
        Box used{};
        bool first = true;
        for (double az : azimuths) {
            scenes.push_back(draw_scene(s, az, fit));
            if (auto b = content_bounds(scenes.back().items)) {
                if (first) used = *b, first = false;
                double x0 = std::min(used.x, b->x), y0 = std::min(used.y, b->y);
                used = {x0, y0, std::max(used.right(), b->right()) - x0, std::max(used.bottom(), b->bottom()) - y0};
            }
        }
        bool fits = used.x >= area.x - 0.5 && used.y >= area.y - 0.5 && used.right() <= area.right() + 0.5 &&
                    used.bottom() <= area.bottom() + 0.5;
        if (fits && attempt > 0) break;
        // Shrink so that the labels' fixed size is paid for, then centre the union in the area.
        double shrink = std::min({1.0, area.w / used.w, area.h / used.h});
        Point c = used.center(), target = area.center();
        fit.offset = {target.x + (fit.offset.x - c.x) * shrink, target.y + (fit.offset.y - c.y) * shrink};
        fit.scale *= shrink * (fits ? 1 : 0.99);
        if (area.w < 40 || area.h < 40 || fit.scale < 1)
            throw ValueError("surface3d: a " + std::to_string(o.width) + " x " + std::to_string(o.height) +
                             " figure leaves no room for the scene and its labels; make it larger");
    }

    // A title wider than the requested size widens the figure (never the scene): the scene and
    // its colour bar move to the middle by whole pixels, so the title keeps kPad from each edge.
    const int width = std::max(o.width, layout::whole_pixels(layout::max_text_width({o.title}, layout::kTitleScale) + 2 * kPad));
    const double dx = std::floor((width - o.width) / 2.0);
    std::vector<Figure> out;
    for (Figure& scene : scenes) {
        Figure fig;
        fig.width = width, fig.height = o.height;
        fig.description = o.title.empty() ? "3-D bar landscape" : o.title;
        fig.add(Group{.items = std::move(scene.items)});
        draw_colorbar(fig, {std::round(area.right() + 2 * kGap), std::round(area.y + area.h * 0.2), kColorbarWidth,
                            std::round(area.h * 0.6)},
                      s.bar);
        translate(fig.items, dx, 0);
        layout::add_title(fig, o.title, width / 2.0, kPad);
        out.push_back(std::move(fig));
    }
    return out;
}

}  // namespace

Figure surface3d(const Matrix& values, const Surface3DOptions& options) {
    return render_views(values, options, {options.azimuth_deg}).front();
}

std::vector<Figure> surface3d_turntable(const Matrix& values, const Surface3DOptions& options, int frames) {
    check_option("surface3d_turntable", "frames", frames, 1, 720);
    std::vector<double> azimuths;
    for (int k = 0; k < frames; ++k) azimuths.push_back(options.azimuth_deg + 360.0 * k / frames);
    return render_views(values, options, azimuths);
}

void save_turntable_gif(const Matrix& values, const Surface3DOptions& options, const std::string& path, int frames,
                        int delay_cs) {
    save_gif(surface3d_turntable(values, options, frames), path, delay_cs);
}

}  // namespace attnlab::plots
