// figure_grid.hpp — several finished figures side by side, as one figure.
//
// Charts size themselves from their content (layout.hpp), so a chart that draws
// one head cannot simply be given a smaller box. figure_grid takes the finished
// figures instead and places them, unchanged, in rows of `columns` cells: each
// column as wide as its widest figure, each row as tall as its tallest, figures
// centred in their cells, an optional title above. Placing moves every primitive
// by whole pixels, so crisp 1 px lines stay crisp. Left out: scaling, shared axes
// or colour bars (heatmap_grid does that for heatmaps), captions per cell (give
// each figure its own title).
#pragma once
#include <string>
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

struct FigureGridOptions {
    std::string title{};
    int columns = 0;  // figures per row; 0 = all in one row
    double gap = 12;  // pixels between cells
};

// Throws ValueError for no figures or a negative column count.
Figure figure_grid(const std::vector<Figure>& figures, const FigureGridOptions& options = {});

// Every primitive of `items` moved by (dx, dy), clip rectangles included.
void translate(std::vector<Primitive>& items, double dx, double dy);

}  // namespace attnlab::plots
