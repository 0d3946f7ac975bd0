// heatmap.hpp — attention matrices as coloured grids: one (heatmap) or one per
// head with a shared scale (heatmap_grid).
//
// Rows are queries ("attending from"), columns are keys ("attended to"), labelled
// with tokens. Values can be written into the cells; masked cells (the mask, or
// -inf scores as a causal mask leaves them) are hatched grey and named in a
// legend, so "masked" never reads as "zero". Cell size, label orientation and all
// margins are computed from the labels and the data size. Left out: clustering,
// non-square cells, per-cell custom colours. See heatmap_panel.hpp to change how
// a single panel is drawn.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "plots/chart_input.hpp"
#include "plots/colormap.hpp"
#include "plots/scene.hpp"

namespace attnlab::plots {

struct HeatmapOptions {
    std::string title{};
    std::vector<std::string> row_labels{};  // one per row (query tokens); empty = 0, 1, 2, ...
    std::vector<std::string> col_labels{};  // one per column (key tokens); empty = 0, 1, 2, ...
    std::string x_title = "Key (attended to)";
    std::string y_title = "Query (attending from)";
    Colormap colormap = Colormap::viridis;
    std::optional<double> vmin{}, vmax{};  // colour range; default: the data's (symmetric if diverging)
    bool annotate = false;             // write each value in its cell
    int decimals = 2;                  // ... with this many decimals
    std::vector<std::vector<std::string>> cell_text{};  // same shape: written in the cells instead of values; empty = none
    std::vector<std::vector<bool>> mask{};  // same shape as the matrix, true = masked; empty = none
    std::string mask_label = "masked (not attended to)";
    std::string colorbar_label{};
    double cell_size = 0;  // pixels; 0 = from content (fits the annotations)
};

// Throws ValueError (empty matrix, NaN, +inf) or ShapeError (ragged rows, label
// or mask sizes that do not match), naming "heatmap" and the sizes.
Figure heatmap(const Matrix& values, const HeatmapOptions& options = {});

struct HeatmapGridOptions : HeatmapOptions {
    // Everything in HeatmapOptions applies to every panel; `title` is the figure's.
    std::vector<std::string> panel_titles{};  // empty = "Head 1", "Head 2", ...
    int columns = 0;                        // panels per row; 0 = ceil(sqrt(count))
    // Fewer panels a row while the figure would be wider than this (pixels; 0 = no limit):
    // wide panels (a long sentence's tokens) wrap instead of making a strip no screen shows.
    double max_width = 2000;
};

// One panel per matrix (all the same shape), one shared colour range and colour bar.
Figure heatmap_grid(const std::vector<Matrix>& panels, const HeatmapGridOptions& options = {});

}  // namespace attnlab::plots
