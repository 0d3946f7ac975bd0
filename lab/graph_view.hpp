// graph_view.hpp — draw_graph: the autograd graph behind a tensor, drawn with our
// own plotter (plots/flow_diagram), no Graphviz. Leaves (parameters in green,
// constant inputs in grey) on the left, the root on the right; each op box says
// "step n: op" where n is its step in backward()'s order (step 1, the root, runs
// first; the op trace's "bwd n/N" lines) and its output shape below. After backward on a graph extracted with retain = true,
// the op boxes can be shaded by ‖dL/d(output)‖ (log scale, white -> red).
//
// Layout: an op sits one column left of its first consumer, so most arrows span
// one gap; rows follow the consumers' rows (a barycentre pass from the root back).
// Left out: grouping repeated blocks (draw one block's graph at a time; a whole
// TinyGPT forward has hundreds of ops and is not meant for one picture).
#pragma once
#include <string>

#include "autograd/graph.hpp"
#include "plots/scene.hpp"

namespace attnlab::lab {

struct GraphViewOptions {
    std::string title{};
    bool shade_by_grad = false;  // needs read_grad_norms() to have run
};

plots::Figure draw_graph(const Graph& graph, const GraphViewOptions& options = {});
// Extracts (extract_graph, before any backward) and draws in one call.
plots::Figure draw_graph(const Tensor& root, const GraphViewOptions& options = {});

}  // namespace attnlab::lab
