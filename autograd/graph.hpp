// graph.hpp — the autograd graph behind a tensor, as plain data: one node per op
// (its name and output shape) and per leaf (a parameter, or a constant input), one
// edge per tensor that flows from a node into an op. Each op node carries its step
// in the order backward() takes it (1 = the root, the engine's topological order),
// so a drawing of it (analyses/graph_view.hpp) shows what the engine will visit and when.
//
// This file only reads the graph; it depends on nothing above autograd/, and the
// drawing lives in analyses/. Extract before backward(): the sweep frees each node's
// inputs as it goes (unless retain_graph). With retain = true every op output is
// marked retain_grad(), and read_grad_norms() after backward fills in ‖dL/dt‖ for
// every node, so a drawing can colour the graph by where the gradient is large.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab {

enum class GraphNodeKind { op, parameter, constant };  // parameter: a leaf that requires grad

struct GraphNode {
    GraphNodeKind kind = GraphNodeKind::op;
    std::string name;          // the op ("matmul"), or the leaf's name if one was given ("w_q.weight"), else "input"
    Shape shape;               // the tensor this node produces (a leaf: the tensor itself)
    std::size_t step = 0;      // op nodes: 1..n in backward()'s order (1 = root); leaves: 0
    std::int64_t forward_id = 0;  // op nodes recorded under a TraceGuard: their "#n" in the forward (the order they ran); else 0
    double grad_norm = -1;     // ‖dL/dt‖ after read_grad_norms(); -1 when none reached it
    Tensor tensor;             // the tensor itself (kept for read_grad_norms)
};

struct GraphEdge {
    std::size_t from = 0, to = 0;  // node indices: `from`'s tensor is input number `slot` of op `to`
    std::size_t slot = 0;
};

struct Graph {
    std::vector<GraphNode> nodes;  // ops first, in backward()'s order (nodes[0] is the root), then the leaves
    std::vector<GraphEdge> edges;
    std::size_t op_count() const;
    // Fills grad_norm from each node's .grad() (call after backward on a graph extracted with retain = true).
    void read_grad_norms();
};

// The graph of ops that produced root. Leaves found in `names` (e.g. a module's
// named_parameters()) are labelled with their names. Throws AutogradError if root
// has no graph (a leaf, or computed with recording off).
Graph extract_graph(const Tensor& root, const std::vector<std::pair<std::string, Tensor>>& names = {},
                    bool retain = false);

}  // namespace attnlab
