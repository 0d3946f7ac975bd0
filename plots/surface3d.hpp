// surface3d.hpp — a matrix as a 3-D bar landscape over the (query, key) grid,
// as a still image or a turntable animation.
//
// Each cell becomes a bar whose height and colour show its value. The scene is
// turned by an azimuth about the vertical axis, tilted by an elevation, and
// projected (perspective or orthographic). Hidden surfaces are handled by the
// painter's algorithm: bars are drawn from the farthest to the nearest, and only
// the faces turned towards the camera. For bars standing on a regular grid this
// order is exact, which is why bars were chosen over a continuous surface (whose
// quads would need splitting). Token labels sit along the two floor edges nearest
// the viewer and move as it turns; the value axis stands at the leftmost floor
// corner, or the rightmost when that keeps its numbers off the token labels (as in
// side-on views). No label overlaps another or stands on a bar: a label that would
// is moved further out along its row, and left out if no place is free
// (plots/label_placer.hpp). The projection's scale is fitted once over every
// azimuth a turntable will show, so the animation does not zoom in and out.
// Left out: lighting models beyond fixed per-face shading, negative heights.
#pragma once
#include <string>
#include <vector>

#include "plots/chart_input.hpp"
#include "plots/colormap.hpp"
#include "plots/scene.hpp"

namespace attnlab::plots {

struct Surface3DOptions {
    std::string title{};
    std::vector<std::string> row_labels{}, col_labels{};  // queries, keys; empty = 0, 1, 2, ...
    std::string row_title = "Query", col_title = "Key", value_title = "weight";
    Colormap colormap = Colormap::viridis;
    double azimuth_deg = -35;  // turn about the vertical axis; 0 looks at the matrix as a heatmap shows it
    double elevation_deg = 32;  // 0 = from the side, 90 = from above
    bool perspective = true;
    int width = 480, height = 400;
    double bar_fill = 0.7;       // fraction of a cell's side a bar covers
    double height_ratio = 0.45;  // tallest bar, as a fraction of the larger grid side
};

// The still view. Values must be finite and >= 0 (ValueError); labels must match (ShapeError).
Figure surface3d(const Matrix& values, const Surface3DOptions& options = {});

// `frames` views turning 360 degrees from options.azimuth_deg, all at the same scale.
std::vector<Figure> surface3d_turntable(const Matrix& values, const Surface3DOptions& options = {}, int frames = 36);

// Renders the turntable and writes it as a looping GIF (delay per frame in 1/100 s).
void save_turntable_gif(const Matrix& values, const Surface3DOptions& options, const std::string& path,
                        int frames = 36, int delay_cs = 8);

}  // namespace attnlab::plots
