// graph_view.hpp — draw_graph: the autograd graph behind a tensor, drawn with our
// own plotter (plots/flow_diagram), no Graphviz. Leaves (parameters in green,
// constant inputs in grey) on the left, the root on the right; each op box says
// "step n: op" where n is its step in backward()'s order (step 1, the root, runs
// first; the op trace's "bwd n/N" lines) and its output shape below. After backward
// on a graph extracted with retain = true, the op boxes can be shaded by
// ‖dL/d(output)‖ (log scale, white -> red).
//
// Layout: an op sits one column left of its first consumer, so most arrows span
// one gap; rows follow the consumers' rows (a barycentre pass from the root back).
// An arrow that skips columns (a residual connection) gets a row of its own, clear of
// the boxes it passes. A graph that would be wider than kMaxGraphWidth is turned a
// quarter: leaves at the top, the root at the bottom, so it grows down the page. A grouped graph (analyses/graph_groups.hpp) is drawn the same way, one
// box per group: its name, its op count and the steps they take, its output shape; a
// group of parameters, how many tensors and numbers. A whole TinyGPT's graph is drawn
// one box per module (analyses/model_graph.hpp).
#pragma once
#include <string>

#include "autograd/graph.hpp"
#include "analyses/graph_groups.hpp"
#include "plots/scene.hpp"

namespace attnlab::lab {

inline constexpr double kMaxGraphWidth = 2000;  // pixels

struct GraphViewOptions {
    std::string title{};
    bool shade_by_grad = false;  // needs read_grad_norms() to have run
};

plots::Figure draw_graph(const Graph& graph, const GraphViewOptions& options = {});
plots::Figure draw_graph(const GroupedGraph& graph, const GraphViewOptions& options = {});
// Extracts (extract_graph, before any backward) and draws in one call.
plots::Figure draw_graph(const Tensor& root, const GraphViewOptions& options = {});

}  // namespace attnlab::lab
