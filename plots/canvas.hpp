// canvas.hpp — the raster back end's drawing surface: anti-aliased filling with
// a clip rectangle and alpha blending.
//
// Everything the raster back end draws becomes either filled contours (lines,
// circles, polygons, arrows: see geometry.hpp) or solid pixel blocks (bitmap text).
// fill() is a scanline rasteriser: each pixel row is sampled on kSubRows
// horizontal sub-scanlines; on each, the crossings of the contour edges are found
// and the spans where the non-zero winding number is non-zero are added to a
// coverage row with their exact fractional ends. The pixel's coverage (0..1) then
// scales the colour's alpha in a source-over blend. Sampling all contours of a
// shape together is what paints the union of overlapping stroke pieces once.
// Left out: gamma-correct blending, even-odd fills, non-rectangular clips. To
// improve vertical anti-aliasing, raise kSubRows (cost grows linearly).
#pragma once
#include <vector>

#include "plots/geometry.hpp"
#include "plots/image.hpp"

namespace attnlab::plots {

class Canvas {
public:
    static constexpr int kSubRows = 5;

    explicit Canvas(Image& image);

    // Clips nest: the active clip is the intersection of all pushed boxes.
    void push_clip(const Box& box);
    void pop_clip();

    // Fills the union of the contours (non-zero rule), anti-aliased.
    void fill(const std::vector<Contour>& contours, Color color);
    // Fills whole pixels [x0, x1) x [y0, y1) without anti-aliasing (text blocks).
    void fill_pixels(int x0, int y0, int x1, int y1, Color color);

private:
    struct Edge {
        double x0, y0, x1, y1;
        int winding;  // +1 going down, -1 going up
    };
    Image& image_;
    std::vector<Box> clips_;     // clips_.back() is the active (intersected) clip
    std::vector<float> coverage_;  // one pixel row
    std::vector<std::pair<double, int>> crossings_;

    void blend(int x, int y, Color c, double coverage);
};

}  // namespace attnlab::plots
