// heatmap_panel.hpp — the parts heatmap() and heatmap_grid() share: measuring a
// panel from its content and drawing its cells, labels and mask legend.
//
// Internal to plots/: included by heatmap.cpp and heatmap_grid.cpp only. A panel
// is the cell grid with row labels on its left and column labels below; column
// labels turn vertical when the widest does not fit across a cell.
#pragma once
#include <string>
#include <vector>

#include "plots/heatmap.hpp"

namespace attnlab::plots::heatmap_detail {

struct PanelGeometry {
    double cell = 0;                 // side of a square cell
    bool vertical_col_labels = false;
    double row_label_band = 0;       // room left of the grid for row labels
    double col_label_band = 0;       // room below the grid for column labels
    std::vector<std::string> row_labels, col_labels;  // filled in (numbers if none given)
};

// Validates labels and mask against the matrix shape (messages name `chart`).
void check_panel_options(const char* chart, const Matrix& m, const HeatmapOptions& options);
PanelGeometry measure_panel(const Matrix& m, const HeatmapOptions& options, double min_cell);

bool is_masked(const Matrix& m, const HeatmapOptions& options, std::size_t r, std::size_t c);
// Smallest and largest unmasked value over all matrices ({0, 0} if all are masked).
std::pair<double, double> unmasked_range(const std::vector<const Matrix*>& ms, const HeatmapOptions& options);
bool any_masked(const Matrix& m, const HeatmapOptions& options);

// Cells (with annotations and hatching), row labels, column labels; grid_origin is
// the top-left corner of the cells.
void draw_panel(Figure& figure, Point grid_origin, const Matrix& m, const HeatmapOptions& options,
                const PanelGeometry& geometry, const Normalizer& range);

// The mask legend: a hatched swatch and the label, centred on center_x, top at y.
inline constexpr double kLegendSwatch = 12;
double mask_legend_width(const HeatmapOptions& options);
void draw_mask_legend(Figure& figure, double center_x, double top, const HeatmapOptions& options);

}  // namespace attnlab::plots::heatmap_detail
