// mask_chart.hpp — attention masks drawn as binary grids: allowed white, blocked black.
//
// The course's picture of a causal mask (Phase 4, "Causal Mask Matrix"): a lower
// triangle of white cells (may attend, 1) under an upper triangle of black ones
// (blocked, 0), each cell with its 0/1 written in it and a two-swatch legend
// instead of a colour bar, since there are only two values. Several masks (one
// per sequence of a padded batch, say) sit side by side, each with a title.
// A heatmap with a grey colour map cannot do this: its greys run white -> black
// as values grow, which would paint the allowed 1s black.
// Left out: more than two values (use heatmap), hatching (heatmap's "masked" look,
// meant for weights that do not exist, not for a mask's own zeros).
#pragma once
#include <string>
#include <vector>

#include "plots/chart_input.hpp"
#include "plots/scene.hpp"

namespace attnlab::plots {

struct MaskChartOptions {
    std::string title{};
    std::vector<std::string> panel_titles{};  // one per mask; empty = none
    std::vector<std::string> row_labels{};    // query tokens; empty = 0, 1, 2, ...
    std::vector<std::string> col_labels{};    // key tokens; empty = 0, 1, 2, ...
    std::vector<std::vector<std::string>> panel_row_labels{}, panel_col_labels{};  // per panel, override the above
    std::string x_title = "Key (attended to)";
    std::string y_title = "Query (attending from)";
    std::string allowed_label = "1 = may attend";
    std::string blocked_label = "0 = blocked";
};

// masks[p][r][c] is 1 (allowed) or 0 (blocked). All panels have the same shape.
// Throws ValueError (no panels, a value other than 0 or 1) or ShapeError (ragged
// rows, panels of different shapes, label counts that do not match).
Figure mask_chart(const std::vector<Matrix>& masks, const MaskChartOptions& options = {});

}  // namespace attnlab::plots
