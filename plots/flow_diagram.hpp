// flow_diagram.hpp — labelled boxes joined by arrows: data-flow figures such as
// input -> q/k/v -> scores -> weights -> output.
//
// Boxes are placed on a grid of stages (columns, left to right) and rows (which may
// be fractional, to centre a box between two others); each box holds one or more
// lines of text and an optional dimension note such as "[6 x 16]" in grey under
// them. Column widths, row pitch and the gaps (wide enough for edge labels) are
// measured from the text. Arrows are routed orthogonally: out of the source's
// right side, along a vertical channel in the gap before the target's column,
// into the target's left side; several arrows on one side get separate ports.
// With top_to_bottom the same grid is turned a quarter: stages run down the page and
// rows across it, arrows leave a box's bottom and enter the next one's top. A long
// chain (a whole model's graph, one box per module) then grows in height, where a
// reader scrolls, instead of in width.
// Left out: automatic placement and routing around boxes in between (an edge that
// skips columns runs straight through its row, so keep that row free there).
#pragma once
#include <string>
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

struct FlowBox {
    std::string id{};                  // how edges refer to the box
    std::vector<std::string> lines{};  // the box's text, one entry per line
    std::string note{};                // e.g. "[6 x 16]"; empty = none
    int column = 0;                    // stage, left to right
    double row = 0;                    // top to bottom; 0.5 centres between rows 0 and 1
    Color fill = rgb(0xeef3fa);
};

struct FlowEdge {
    std::string from{}, to{};  // box ids
    std::string label{};       // written above the arrow's last horizontal run
};

struct FlowDiagramOptions {
    std::string title{};
    bool top_to_bottom = false;  // stages (FlowBox::column) run down the page, rows across it
};

// Throws ValueError for no boxes, a box without text, duplicate ids, an edge to
// an unknown id, or an edge that does not go to a later column.
Figure flow_diagram(const std::vector<FlowBox>& boxes, const std::vector<FlowEdge>& edges,
                    const FlowDiagramOptions& options = {});

}  // namespace attnlab::plots
