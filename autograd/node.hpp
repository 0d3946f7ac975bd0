// node.hpp — the autograd graph: one Node per op result, and how an op records it.
//
// A differentiable op computes its output, then calls record() right below with
// the inputs and a backward function, so forward and backward sit side by side:
//
//   Tensor mul(const Tensor& a, const Tensor& b) {
//       Tensor out = ...forward kernel...;
//       record(out, "mul", {a, b}, [a, b](const Tensor& g) -> Grads {
//           // d(a*b)/da = b, d(a*b)/db = a; sum_to undoes broadcasting
//           return {sum_to(g * b, a.shape()), sum_to(g * a, b.shape())};
//       });
//       return out;
//   }
//
// The backward function receives dL/d(out) and returns dL/d(input) for each input,
// in order (an undefined Tensor where an input needs no gradient). It runs with
// gradient recording off, so it may use any op. What it captures is what the op
// "saves for backward". Never capture `out` itself: the output owns this node, so
// the capture would be a reference cycle and leak; capture out.detach() instead.
//
// The graph is a DAG of TensorImpls linked through Node::inputs. backward()
// (engine.cpp) walks it in reverse topological order and frees each node's
// captures as it goes, unless asked to retain the graph.
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "autograd/trace.hpp"
#include "tensor/tensor.hpp"

namespace attnlab {

using Grads = std::vector<Tensor>;
using BackwardFn = std::function<Grads(const Tensor& grad_out)>;

struct Node {
    const char* name;            // the op, for grad_fn_name() and error messages
    std::vector<Tensor> inputs;  // the op's tensor inputs, in the order backward returns grads
    BackwardFn backward;         // empty once the graph has been freed
    std::int64_t trace_id = 0;   // the op's "#n" in the op trace (trace.hpp); 0 when it was not traced
    // The topological_order call that last listed this node (engine.cpp), its "seen" mark.
    // Graphs that share nodes are not sorted on two threads at once (nor could their
    // backward sweeps run at once: each writes the shared tensors' grads).
    std::uint64_t sort_mark = 0;

    // Tears a long chain down iteratively: the default destructor would recurse
    // Tensor -> Node -> Tensor -> ... once per op and overflow the stack.
    ~Node();
};

// Every tensor with a grad_fn reachable from root, each listed before all of its
// inputs: the order backward() (engine.cpp) sweeps in, root first. The list owns them.
std::vector<std::shared_ptr<TensorImpl>> topological_order(const std::shared_ptr<TensorImpl>& root);

// Gradient recording is on by default and off inside NoGradGuard (and inside backward).
struct GradMode {
    static bool enabled();
    static void set_enabled(bool on);
};

// RAII: no graph is recorded while it lives (evaluation, optimizer steps, backward).
class NoGradGuard {
public:
    NoGradGuard() : prev_(GradMode::enabled()) { GradMode::set_enabled(false); }
    ~NoGradGuard() { GradMode::set_enabled(prev_); }
    NoGradGuard(const NoGradGuard&) = delete;
    NoGradGuard& operator=(const NoGradGuard&) = delete;

private:
    bool prev_;
};

// True when recording is on and some input requires grad.
inline bool needs_grad(std::span<const Tensor> inputs) {
    if (!GradMode::enabled()) return false;
    for (const Tensor& t : inputs)
        if (t.defined() && t.requires_grad()) return true;
    return false;
}
inline bool needs_grad(std::initializer_list<Tensor> inputs) { return needs_grad(std::span(inputs.begin(), inputs.size())); }

// Attaches a Node to `out` when some input requires grad; otherwise does nothing,
// so ops on plain tensors pay one flag check and no allocation. Every op passes
// here, which makes it the one place the op trace (trace.hpp) hooks in.
template <typename F>
void record(Tensor& out, const char* name, std::span<const Tensor> inputs, F&& backward) {
    Node* node = nullptr;
    if (needs_grad(inputs)) {
        out.impl()->grad_fn = std::make_shared<Node>(
            Node{name, std::vector<Tensor>(inputs.begin(), inputs.end()), BackwardFn(std::forward<F>(backward)), 0});
        out.impl()->requires_grad = true;
        node = out.impl()->grad_fn.get();
    }
    if (trace_sink) [[unlikely]] trace_forward(name, inputs, out, node);
}
template <typename F>
void record(Tensor& out, const char* name, std::initializer_list<Tensor> inputs, F&& backward) {
    record(out, name, std::span(inputs.begin(), inputs.size()), std::forward<F>(backward));
}

}  // namespace attnlab
