// test_surface3d.cpp — the 3-D landscape's labels as it turns: in no frame may two
// labels overlap or a bar face stand on a label, and in the phase 3 figure no label
// may be left out. Also the placer (plots/label_placer.hpp) that keeps them apart.
//
// The checks here are written separately from the placer's: boxes by their edges,
// polygons by point-in-polygon and edge crossings (the placer uses separating axes).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "plots/label_placer.hpp"
#include "plots/surface3d.hpp"
#include "plots/text_metrics.hpp"

using namespace attnlab::plots;

namespace {

// The phase 3 landscape: causal_model, layer 2 head 1, on "<bos> the cat sat on the mat <eos>",
// rounded to 3 decimals. Its tall bars stand at the front in some side-on frames.
const Matrix kPhase3Head = {
    {1.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000}, {0.883, 0.117, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000},
    {0.005, 0.071, 0.923, 0.000, 0.000, 0.000, 0.000, 0.000}, {0.215, 0.220, 0.329, 0.236, 0.000, 0.000, 0.000, 0.000},
    {0.068, 0.152, 0.540, 0.172, 0.067, 0.000, 0.000, 0.000}, {0.404, 0.064, 0.008, 0.058, 0.406, 0.060, 0.000, 0.000},
    {0.105, 0.136, 0.230, 0.151, 0.104, 0.137, 0.137, 0.000}, {0.087, 0.120, 0.243, 0.131, 0.085, 0.122, 0.137, 0.074}};
const std::vector<std::string> kPhase3Tokens = {"<bos>", "the", "cat", "sat", "on", "the", "mat", "<eos>"};

Surface3DOptions phase3_options() {
    return {.title = "causal_model, layer 2 head 1", .row_labels = kPhase3Tokens, .col_labels = kPhase3Tokens,
            .width = 560, .height = 480};
}

struct Drawn {
    std::vector<Text> texts;
    std::vector<std::vector<Point>> bar_faces;  // every polygon after the first, which is the floor
};

void collect(const std::vector<Primitive>& items, Drawn& d, bool& floor_seen) {
    for (const Primitive& p : items) {
        if (const auto* t = std::get_if<Text>(&p.shape)) d.texts.push_back(*t);
        if (const auto* poly = std::get_if<Polygon>(&p.shape)) {
            if (floor_seen) d.bar_faces.push_back(poly->points);
            floor_seen = true;
        }
        if (const auto* g = std::get_if<Group>(&p.shape)) collect(g->items, d, floor_seen);
    }
}

Drawn drawn(const Figure& fig) {
    Drawn d;
    bool floor_seen = false;
    collect(fig.items, d, floor_seen);
    return d;
}

bool boxes_meet(const Box& a, const Box& b) {
    return std::max(a.x, b.x) < std::min(a.right(), b.right()) && std::max(a.y, b.y) < std::min(a.bottom(), b.bottom());
}

bool inside_polygon(Point p, const std::vector<Point>& poly) {  // crossing number
    bool in = false;
    for (std::size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++)
        if ((poly[i].y > p.y) != (poly[j].y > p.y) &&
            p.x < poly[j].x + (p.y - poly[j].y) * (poly[i].x - poly[j].x) / (poly[i].y - poly[j].y))
            in = !in;
    return in;
}

bool segments_cross(Point a, Point b, Point c, Point d) {
    auto side = [](Point p, Point q, Point r) { return (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x); };
    return side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0;
}

bool polygon_meets_box(const std::vector<Point>& poly, const Box& b) {
    const Point corners[] = {{b.x, b.y}, {b.right(), b.y}, {b.right(), b.bottom()}, {b.x, b.bottom()}};
    for (Point p : poly)
        if (p.x > b.x && p.x < b.right() && p.y > b.y && p.y < b.bottom()) return true;
    for (Point c : corners)
        if (inside_polygon(c, poly)) return true;
    for (std::size_t i = 0; i < poly.size(); ++i)
        for (int k = 0; k < 4; ++k)
            if (segments_cross(poly[i], poly[(i + 1) % poly.size()], corners[k], corners[(k + 1) % 4])) return true;
    return false;
}

// Every frame: no two labels overlap, no bar face meets a label, every label inside the figure.
void check_frames(const std::vector<Figure>& frames) {
    for (std::size_t k = 0; k < frames.size(); ++k) {
        const Drawn d = drawn(frames[k]);
        for (std::size_t i = 0; i < d.texts.size(); ++i) {
            const Box a = text_bounds(d.texts[i]);
            INFO("frame " << k << ", label '" << d.texts[i].text << "' at " << a.x << "," << a.y << " size " << a.w << "x"
                          << a.h);
            CHECK((a.x >= 0 && a.y >= 0 && a.right() <= frames[k].width && a.bottom() <= frames[k].height));
            for (std::size_t j = i + 1; j < d.texts.size(); ++j) {
                INFO("overlaps label '" << d.texts[j].text << "'");
                CHECK_FALSE(boxes_meet(a, text_bounds(d.texts[j])));
            }
            const bool on_a_bar = std::any_of(d.bar_faces.begin(), d.bar_faces.end(),
                                              [&](const auto& face) { return polygon_meets_box(face, a); });
            CHECK_FALSE(on_a_bar);
        }
    }
}

}  // namespace

TEST_CASE("the test's own geometry checks tell overlaps from near misses", "[plots][surface3d]") {
    const std::vector<Point> triangle = {{0, 0}, {10, 0}, {0, 10}};
    CHECK(polygon_meets_box(triangle, {2, 2, 2, 2}));        // inside
    CHECK(polygon_meets_box(triangle, {-5, -5, 20, 20}));    // around
    CHECK(polygon_meets_box(triangle, {8, -1, 4, 2}));       // a corner pokes in
    CHECK_FALSE(polygon_meets_box(triangle, {7, 7, 3, 3}));  // inside the bounding box, beyond the hypotenuse
    CHECK(boxes_meet({0, 0, 10, 10}, {9, 9, 5, 5}));
    CHECK_FALSE(boxes_meet({0, 0, 10, 10}, {10, 0, 5, 5}));  // touching is not overlapping
}

TEST_CASE("the label placer keeps labels apart and off obstacles", "[plots][surface3d][labels]") {
    const std::vector<Point> triangle = {{0, 0}, {10, 0}, {0, 10}};
    CHECK(overlaps(Box{2, 2, 2, 2}, triangle));
    CHECK(overlaps(Box{-5, -5, 20, 20}, triangle));
    CHECK_FALSE(overlaps(Box{7, 7, 3, 3}, triangle));  // a bounding-box test would say yes
    CHECK(overlaps(Box{7, 7, 3, 3}, std::vector<Point>{{0, 10}, {10, 0}, {10, 10}}));  // other winding, other half

    LabelPlacer placer({{{100, 100}, {140, 100}, {140, 140}, {100, 140}}});
    const Text first{.at = {10, 20}, .text = "first"};
    REQUIRE(placer.add(first));
    const Box b = text_bounds(first);
    const auto below = [&](double gap) { return Text{.at = {10, first.at.y + b.h + gap}, .text = "next"}; };
    CHECK_FALSE(placer.fits(below(LabelPlacer::kClearance - 1)));  // too close to the first
    CHECK(placer.fits(below(LabelPlacer::kClearance + 1)));
    CHECK_FALSE(placer.add(Text{.at = {110, 120}, .text = "on the obstacle"}));
    CHECK(placer.clashes({first, below(20), Text{.at = {90, 120}, .text = "edge"}}) == 2);  // itself, and the obstacle
    CHECK(placer.placed().size() == 1);
}

TEST_CASE("the turning landscape never overlaps, covers or clips a label", "[plots][surface3d]") {
    SECTION("phase 3's figure, every frame of its GIF and the exactly side-on views") {
        check_frames(surface3d_turntable(kPhase3Head, phase3_options(), 36));
        Surface3DOptions side_on = phase3_options();
        side_on.azimuth_deg = 0;
        check_frames(surface3d_turntable(kPhase3Head, side_on, 4));  // 0, 90, 180, 270 degrees
    }
    SECTION("a low camera, orthographic, with long labels in a small figure") {
        Surface3DOptions o = phase3_options();
        o.row_labels = o.col_labels = {"<bos>", "a-very-long-token-name", "x", "&", "tokenization", "end", "y", "z"};
        o.elevation_deg = 10, o.perspective = false, o.width = 480, o.height = 400;
        check_frames(surface3d_turntable(kPhase3Head, o, 24));
    }
    SECTION("a 16 x 16 grid seen from high above") {
        Matrix m(16, std::vector<double>(16));
        for (std::size_t i = 0; i < 16; ++i)
            for (std::size_t j = 0; j < 16; ++j) m[i][j] = double((i * 7 + j * 3) % 11) / 10;
        check_frames(surface3d_turntable(m, {.elevation_deg = 70}, 24));
    }
}

TEST_CASE("phase 3's landscape keeps every label in every frame", "[plots][surface3d]") {
    // Leaving labels out is the last resort; for this figure placement alone must keep them
    // all: each token on both floor edges, both axis titles, and every number of the value axis.
    const std::vector<Figure> frames = surface3d_turntable(kPhase3Head, phase3_options(), 36);
    for (std::size_t k = 0; k < frames.size(); ++k) {
        std::map<std::string, int> count;
        for (const Text& t : drawn(frames[k]).texts) ++count[t.text];
        INFO("frame " << k);
        CHECK(count["<bos>"] == 2);
        CHECK(count["the"] == 4);  // twice in the sentence, on two edges
        CHECK(count["cat"] == 2);
        CHECK(count["sat"] == 2);
        CHECK(count["on"] == 2);
        CHECK(count["mat"] == 2);
        CHECK(count["<eos>"] == 2);
        CHECK(count["Key"] == 1);
        CHECK(count["Query"] == 1);
        CHECK(count["weight"] == 2);  // the value axis and the colour bar
        for (const char* tick : {"0.00", "0.25", "0.50", "0.75", "1.00"}) CHECK(count[tick] == 1);
    }
}
