// graph_view.cpp — see graph_view.hpp.
#include "analyses/graph_view.hpp"

#include <algorithm>
#include <cmath>

#include "plots/colormap.hpp"
#include "plots/flow_diagram.hpp"
#include "plots/layout.hpp"

namespace attnlab::lab {

namespace {

// Column of every node counted from the root (0) leftwards: one more than its
// leftmost consumer. Nodes come consumers first, so every consumer of a node is
// settled before the node itself.
std::vector<int> depths(const GroupedGraph& g) {
    std::vector<int> depth(g.nodes.size(), 0);
    std::vector<std::vector<std::size_t>> consumers(g.nodes.size());
    for (const auto& [from, to] : g.edges) consumers[from].push_back(to);
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        for (std::size_t c : consumers[i]) depth[i] = std::max(depth[i], depth[c] + 1);
    return depth;
}

// Row of every node: the mean row of its consumers, pushed down where it would overlap the
// box above it in the same column, or where an arrow of its that skips columns (a residual
// connection) would run through a box on its way. Two kinds of node sit one row above their
// consumer instead, so that the row stays free: a leaf, and the branch into a residual add
// (the node beside the arrow that skips columns into the add). The residual stream then keeps
// one row through every block, where pushing it down at each add would drift it a row per
// add. Rows are shifted at the end so that the top one is 0.
std::vector<double> rows(const GroupedGraph& g, const std::vector<int>& depth) {
    std::vector<double> row(g.nodes.size(), 0), sum(g.nodes.size(), 0), count(g.nodes.size(), 0);
    std::vector<bool> leaf(g.nodes.size(), true), residual_add(g.nodes.size(), false);
    std::vector<std::size_t> only_consumer(g.nodes.size(), 0);
    for (const auto& [from, to] : g.edges) {
        leaf[to] = false, only_consumer[from] = to;
        if (depth[from] > depth[to] + 1) residual_add[to] = true;
    }
    const int deepest = *std::max_element(depth.begin(), depth.end());
    for (int d = 0; d <= deepest; ++d) {
        for (const auto& [from, to] : g.edges)
            if (depth[from] == d) sum[from] += row[to], count[from] += 1;
        std::vector<std::size_t> column;
        for (std::size_t i = 0; i < g.nodes.size(); ++i)
            if (depth[i] == d) column.push_back(i);
        auto beside = [&](std::size_t i) {
            if (count[i] == 0) return false;
            return leaf[i] || (count[i] == 1 && residual_add[only_consumer[i]] && depth[i] == depth[only_consumer[i]] + 1);
        };
        auto want = [&](std::size_t i) { return (count[i] ? sum[i] / count[i] : 0.0) - (beside(i) ? 1 : 0); };
        std::stable_sort(column.begin(), column.end(), [&](std::size_t a, std::size_t b) { return want(a) < want(b); });
        // A box (already placed: it is nearer the root) that the arrow from i to a consumer
        // more than one column away would cross if i sat on row r.
        auto blocker = [&](std::size_t i, double r) -> const double* {
            for (const auto& [from, to] : g.edges)
                if (from == i && depth[to] < d - 1)
                    for (std::size_t j = 0; j < g.nodes.size(); ++j)
                        if (depth[j] > depth[to] && depth[j] < d && std::abs(row[j] - r) < 0.6) return &row[j];
            return nullptr;
        };
        double next = -1e9;
        for (std::size_t i : column) {
            double r = std::max(want(i), next);
            while (const double* b = blocker(i, r)) r = *b + 1;
            row[i] = r, next = r + 1;
        }
    }
    const double top = *std::min_element(row.begin(), row.end());
    for (double& r : row) r -= top;
    return row;
}

std::string shapes_of(const GroupedGraph& g, const std::vector<std::size_t>& members) {
    std::string s;
    for (std::size_t i : members) s += (s.empty() ? "" : " ") + g.full.nodes[i].shape.str();
    return s;
}

// A node on its own: an op says its step in backward()'s order; a scalar constant (a
// scale, a fill value) its value. A group says how many ops it holds and which steps
// they are; a group of parameters, how many tensors and numbers.
plots::FlowBox box_of(const GroupedGraph& g, std::size_t k) {
    const GraphGroup& group = g.nodes[k];
    plots::FlowBox b{"n" + std::to_string(k), {}, "", 0, 0};
    const GraphNode& first = g.full.nodes[group.members.front()];
    const bool one_op = group.members.size() == 1 && first.kind == GraphNodeKind::op;
    if (group.members.size() == 1 && (group.label.empty() || !one_op)) {  // a node as it is
        if (one_op) b.lines = {"step " + std::to_string(first.step) + ": " + first.name};
        else if (first.kind == GraphNodeKind::constant && first.tensor.numel() == 1 && first.name == "input")
            b.lines = {"constant " + plots::layout::format_fixed(first.tensor.item(), 4)};
        else b.lines = {first.name};
        b.note = first.shape.str();
    } else if (const std::size_t ops = g.op_count(k)) {
        std::vector<std::size_t> steps;
        for (std::size_t i : group.members)
            if (g.full.nodes[i].kind == GraphNodeKind::op) steps.push_back(g.full.nodes[i].step);
        b.lines = {group.label, std::to_string(ops) + (ops == 1 ? " op (" + first.name + "), step " : " ops, steps ") +
                                    step_ranges(steps)};
        b.note = shapes_of(g, g.outputs(k));
    } else {
        std::int64_t values = 0;
        for (std::size_t i : group.members) values += g.full.nodes[i].tensor.numel();
        b.lines = {group.label, std::to_string(group.members.size()) + " tensors, " +
                                    std::to_string(values) + " numbers"};
    }
    const bool leaf = g.op_count(k) == 0;
    const bool trainable = first.kind == GraphNodeKind::parameter;
    if (leaf) b.fill = plots::rgb(trainable ? 0xe3f2dc : 0xeeeeee);
    return b;
}

// The gradient norm a node is shaded by: its only output's (a group with several outputs: none).
double grad_norm_of(const GroupedGraph& g, std::size_t k) {
    if (g.op_count(k) == 0) return -1;
    const std::vector<std::size_t> out = g.outputs(k);
    return out.size() == 1 ? g.full.nodes[out[0]].grad_norm : -1;
}

}  // namespace

plots::Figure draw_graph(const GroupedGraph& g, const GraphViewOptions& options) {
    const std::vector<int> depth = depths(g);
    const std::vector<double> row = rows(g, depth);
    const int deepest = *std::max_element(depth.begin(), depth.end());
    double lo = 0, hi = 0;  // log10 range of the op gradients' norms, for shading
    bool any = false;
    for (std::size_t k = 0; k < g.nodes.size(); ++k)
        if (const double n = grad_norm_of(g, k); n > 0) {
            const double l = std::log10(n);
            lo = any ? std::min(lo, l) : l, hi = any ? std::max(hi, l) : l, any = true;
        }
    std::vector<plots::FlowBox> boxes;
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
        plots::FlowBox b = box_of(g, k);
        b.column = deepest - depth[k], b.row = row[k];
        if (const double n = grad_norm_of(g, k); options.shade_by_grad && n > 0) {
            const double t = hi > lo ? (std::log10(n) - lo) / (hi - lo) : 0.5;
            b.fill = plots::sample(plots::Colormap::reds, 0.05 + 0.4 * t);  // stays light enough for black text
            b.lines.push_back("|grad| " + plots::layout::format_fixed(n, n < 0.01 ? 5 : 3));
        }
        boxes.push_back(std::move(b));
    }
    std::vector<plots::FlowEdge> edges;
    for (const auto& [from, to] : g.edges) edges.push_back({"n" + std::to_string(from), "n" + std::to_string(to), ""});
    plots::Figure fig = plots::flow_diagram(boxes, edges, {options.title});
    if (fig.width <= kMaxGraphWidth) return fig;
    return plots::flow_diagram(boxes, edges, {.title = options.title, .top_to_bottom = true});
}

plots::Figure draw_graph(const Graph& graph, const GraphViewOptions& options) { return draw_graph(ungrouped(graph), options); }

plots::Figure draw_graph(const Tensor& root, const GraphViewOptions& options) {
    return draw_graph(extract_graph(root), options);
}

}  // namespace attnlab::lab
