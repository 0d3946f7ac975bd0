// attention_flow.hpp — attention as a node-link diagram: who attends to whom.
//
// Tokens are nodes; every weight at or above a threshold becomes an edge from the
// query to the key whose width and opacity grow linearly with the weight, so
// strong links dominate and weak ones fade. Two layouts: queries in a row above
// the keys (edges run downwards), or one row of tokens with arcs (to earlier
// tokens above the row, to later tokens below). A token attending to itself is
// drawn in the accent colour (a loop in the one-row layout), and the legend says
// so. Left out: multi-head colouring, edge bundling; for many tokens prefer a heatmap.
#pragma once
#include <string>
#include <vector>

#include "plots/chart_input.hpp"
#include "plots/scene.hpp"

namespace attnlab::plots {

enum class FlowLayout { two_rows, one_row };

struct AttentionFlowOptions {
    std::string title{};
    FlowLayout layout = FlowLayout::two_rows;
    double threshold = 0.15;  // weights below this are not drawn
    double max_width = 9;     // edge width for weight 1
    Color edge_color = palette::categorical(0);
    Color self_color = palette::highlight;
};

// weights[i][j] = how much query i attends to key j, values in [0, 1]; one token
// per row/column. Throws ValueError (empty, NaN, weights outside [0, 1]) or
// ShapeError (not square, token count differs).
Figure attention_flow(const std::vector<std::string>& tokens, const Matrix& weights,
                      const AttentionFlowOptions& options = {});

}  // namespace attnlab::plots
