// graph.cpp — extract_graph: the engine's own topological order, then one pass over
// each op's inputs to list leaves and edges (see graph.hpp).
#include "autograd/graph.hpp"

#include <cmath>
#include <unordered_map>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

std::size_t Graph::op_count() const {
    std::size_t n = 0;
    for (const GraphNode& node : nodes) n += node.kind == GraphNodeKind::op;
    return n;
}

void Graph::read_grad_norms() {
    for (GraphNode& node : nodes) {
        const Tensor g = node.tensor.defined() ? node.tensor.grad() : Tensor();
        node.grad_norm = g.defined() ? std::sqrt(sum(g * g).item()) : -1;
    }
}

Graph extract_graph(const Tensor& root, const std::vector<std::pair<std::string, Tensor>>& names, bool retain) {
    if (!root.defined() || !root.impl()->grad_fn)
        throw AutogradError("extract_graph: the tensor has no grad_fn (a leaf, or computed with recording off); "
                            "there is no graph to extract");
    Graph g;
    std::unordered_map<const TensorImpl*, std::size_t> index;
    // 1. the ops, in the order backward() sweeps them
    for (const std::shared_ptr<TensorImpl>& t : topological_order(root.impl_ptr())) {
        index[t.get()] = g.nodes.size();
        Tensor tensor(t);
        if (retain) tensor.retain_grad();
        g.nodes.push_back({GraphNodeKind::op, t->grad_fn->name, t->shape, g.nodes.size() + 1, t->grad_fn->trace_id, -1, tensor});
    }
    // 2. each op's inputs: an op already listed, or a leaf listed on first sight
    const std::size_t ops = g.nodes.size();
    for (std::size_t to = 0; to < ops; ++to) {
        const std::vector<Tensor>& inputs = g.nodes[to].tensor.impl()->grad_fn->inputs;
        for (std::size_t slot = 0; slot < inputs.size(); ++slot) {
            const Tensor& in = inputs[slot];
            if (!in.defined()) continue;
            auto [it, is_new] = index.try_emplace(in.impl(), g.nodes.size());
            if (is_new) {
                std::string name = in.requires_grad() ? "parameter" : "input";
                for (const auto& [n, t] : names)
                    if (t.defined() && t.impl() == in.impl()) name = n;
                g.nodes.push_back({in.requires_grad() ? GraphNodeKind::parameter : GraphNodeKind::constant, name,
                                   in.shape(), 0, 0, -1, in});
            }
            g.edges.push_back({it->second, to, slot});
        }
    }
    return g;
}

}  // namespace attnlab
