// graph_view.cpp — see graph_view.hpp.
#include "lab/graph_view.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "plots/colormap.hpp"
#include "plots/flow_diagram.hpp"
#include "plots/layout.hpp"

namespace attnlab::lab {

namespace {

// Column of every node counted from the root (0) leftwards: one more than its
// leftmost consumer. Nodes come root-first in backward()'s order, so every
// consumer of a node is settled before the node itself.
std::vector<int> depths(const Graph& g) {
    std::vector<int> depth(g.nodes.size(), 0);
    std::vector<std::vector<std::size_t>> consumers(g.nodes.size());
    for (const GraphEdge& e : g.edges) consumers[e.from].push_back(e.to);
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        for (std::size_t c : consumers[i]) depth[i] = std::max(depth[i], depth[c] + 1);
    return depth;
}

// Row of every node: the mean row of its consumers, pushed down where it would overlap
// the box above it in the same column.
std::vector<double> rows(const Graph& g, const std::vector<int>& depth) {
    std::vector<double> row(g.nodes.size(), 0), sum(g.nodes.size(), 0), count(g.nodes.size(), 0);
    const int deepest = *std::max_element(depth.begin(), depth.end());
    for (int d = 1; d <= deepest; ++d) {
        for (const GraphEdge& e : g.edges)
            if (depth[e.from] == d) sum[e.from] += row[e.to], count[e.from] += 1;
        std::vector<std::size_t> column;
        for (std::size_t i = 0; i < g.nodes.size(); ++i)
            if (depth[i] == d) column.push_back(i);
        auto want = [&](std::size_t i) { return count[i] ? sum[i] / count[i] : 0.0; };
        std::stable_sort(column.begin(), column.end(), [&](std::size_t a, std::size_t b) { return want(a) < want(b); });
        double next = 0;
        for (std::size_t i : column) row[i] = next = std::max(want(i), next), next += 1;
    }
    return row;
}

// An op: its step in backward()'s order; a scalar constant (a scale, a fill value): its value.
std::string node_text(const GraphNode& n) {
    if (n.kind == GraphNodeKind::op) return "step " + std::to_string(n.step) + ": " + n.name;
    if (n.kind == GraphNodeKind::constant && n.tensor.numel() == 1 && n.name == "input")
        return "constant " + plots::layout::format_fixed(n.tensor.item(), 4);
    return n.name;
}

}  // namespace

plots::Figure draw_graph(const Graph& g, const GraphViewOptions& options) {
    const std::vector<int> depth = depths(g);
    const std::vector<double> row = rows(g, depth);
    const int deepest = *std::max_element(depth.begin(), depth.end());
    double lo = 0, hi = 0;  // log10 range of the op gradients' norms, for shading
    bool any = false;
    for (const GraphNode& n : g.nodes)
        if (n.kind == GraphNodeKind::op && n.grad_norm > 0) {
            const double l = std::log10(n.grad_norm);
            lo = any ? std::min(lo, l) : l, hi = any ? std::max(hi, l) : l, any = true;
        }
    std::vector<plots::FlowBox> boxes;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const GraphNode& n = g.nodes[i];
        plots::FlowBox b{"n" + std::to_string(i), {node_text(n)}, n.shape.str(), deepest - depth[i], row[i]};
        if (n.kind == GraphNodeKind::parameter) b.fill = plots::rgb(0xe3f2dc);
        if (n.kind == GraphNodeKind::constant) b.fill = plots::rgb(0xeeeeee);
        if (options.shade_by_grad && n.kind == GraphNodeKind::op && n.grad_norm > 0) {
            const double t = hi > lo ? (std::log10(n.grad_norm) - lo) / (hi - lo) : 0.5;
            b.fill = plots::sample(plots::Colormap::reds, 0.05 + 0.4 * t);  // stays light enough for black text
            b.lines.push_back("|grad| " + plots::layout::format_fixed(n.grad_norm, n.grad_norm < 0.01 ? 5 : 3));
        }
        boxes.push_back(std::move(b));
    }
    std::vector<plots::FlowEdge> edges;
    for (const GraphEdge& e : g.edges) edges.push_back({"n" + std::to_string(e.from), "n" + std::to_string(e.to), ""});
    return plots::flow_diagram(boxes, edges, {options.title});
}

plots::Figure draw_graph(const Tensor& root, const GraphViewOptions& options) {
    return draw_graph(extract_graph(root), options);
}

}  // namespace attnlab::lab
