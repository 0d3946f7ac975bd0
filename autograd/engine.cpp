// engine.cpp — reverse-mode differentiation: Tensor::backward().
//
// 1. Order: an iterative depth-first search from the root lists every tensor that
//    has a grad_fn, each after all tensors that use it — a topological order from
//    the output back to the leaves. Iterative, not recursive, so a 10,000-op chain
//    (an unrolled recurrence) cannot overflow the call stack.
// 2. Sweep: the root's gradient is seeded; each tensor in order hands its gradient
//    to its node's backward function and adds (+=) the returned gradients into its
//    inputs' gradients. A tensor used twice therefore receives the sum of both.
// 3. Free: a node's captures are released right after it runs (unless retain_graph),
//    so saved tensors go as early as possible, and a second backward through the same
//    graph fails loudly instead of silently doing nothing.
//
// Gradients of intermediates live in TensorImpl::grad only while the sweep needs
// them; leaves (and tensors that asked for retain_grad()) keep theirs, and repeated
// backward calls accumulate into them, as in PyTorch.
#include <algorithm>
#include <atomic>
#include <utility>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

static thread_local bool grad_mode_enabled = true;
bool GradMode::enabled() { return grad_mode_enabled; }
void GradMode::set_enabled(bool on) { grad_mode_enabled = on; }

// Tensors with a grad_fn reachable from root, each listed before all of its inputs
// (declared in node.hpp: autograd/graph.cpp numbers a drawn graph in this same order).
// The list owns them: freeing a node's inputs mid-sweep must not free a tensor
// that is still to be visited. A node is marked seen by writing this call's number
// into it (Node::sort_mark), not by a hash set: no allocation per node, no hashing.
std::vector<std::shared_ptr<TensorImpl>> topological_order(const std::shared_ptr<TensorImpl>& root) {
    static std::atomic<std::uint64_t> sorts{0};
    const std::uint64_t mark = ++sorts;
    struct Frame {
        std::shared_ptr<TensorImpl> t;
        std::size_t next_input;
    };
    std::vector<std::shared_ptr<TensorImpl>> post_order;
    root->grad_fn->sort_mark = mark;
    std::vector<Frame> stack{{root, 0}};
    while (!stack.empty()) {
        Frame& f = stack.back();
        const std::vector<Tensor>& inputs = f.t->grad_fn->inputs;
        if (f.next_input < inputs.size()) {
            const Tensor& in = inputs[f.next_input++];
            Node* node = in.defined() ? in.impl()->grad_fn.get() : nullptr;
            if (node && node->sort_mark != mark) {
                node->sort_mark = mark;
                stack.push_back({in.impl_ptr(), 0});
            }
            continue;  // (f may dangle after push_back; it is not touched again)
        }
        post_order.push_back(std::move(f.t));  // every input is already listed
        stack.pop_back();
    }
    std::reverse(post_order.begin(), post_order.end());
    return post_order;
}

// t.grad += g, as a new tensor: never in place, since g may alias a gradient held
// elsewhere (the seed itself, or a stride-0 expand). A gradient that outlives the
// sweep (a leaf's, or a retained one) is cloned so that it is contiguous and its own,
// unless it already is: a fresh result that no one else holds or views (every weight
// gradient of a training step) is kept as it is, saving a copy per parameter.
static bool sole_owner(const Tensor& g) {
    const TensorImpl* impl = g.impl();
    return g.impl_ptr().use_count() == 1 && impl->storage.use_count() == 1 && !impl->grad_fn && impl->offset == 0 &&
           g.is_contiguous();
}

static void accumulate(TensorImpl* t, const Tensor& g) {
    const bool kept = !t->grad_fn || t->retains_grad;
    if (t->grad) t->grad = add(Tensor(t->grad), g).impl_ptr();
    else t->grad = kept && !sole_owner(g) ? clone(g).impl_ptr() : g.impl_ptr();
}

static void run_backward(const Tensor& root, const Tensor& seed, bool retain_graph) {
    if (!root.requires_grad())
        throw AutogradError("backward: the tensor does not require grad and has no grad_fn (did any input have "
                            "requires_grad_() set, and was recording on?)");
    if (seed.shape() != root.shape())
        throw ShapeError("backward: gradient of shape " + seed.shape().str() + " for an output of shape " +
                         root.shape().str());
    if (root.is_leaf()) {  // d root / d root
        accumulate(root.impl(), seed);
        return;
    }
    NoGradGuard no_grad;  // backward functions compute with plain ops; nothing to record
    TraceBackwardSweep quiet;  // nor to trace: each node's bwd line stands for its ops
    const std::vector<std::shared_ptr<TensorImpl>> order = topological_order(root.impl_ptr());
    // Intermediates start empty even if a retained grad was left from a previous backward.
    for (const auto& t : order)
        if (!t->retains_grad) t->grad.reset();
    accumulate(root.impl(), seed);

    for (std::size_t step = 0; step < order.size(); ++step) {
        const std::shared_ptr<TensorImpl>& t = order[step];
        Node& node = *t->grad_fn;
        if (!node.backward)
            throw AutogradError(std::string("backward: the graph through '") + node.name +
                                "' was already freed by an earlier backward(); pass retain_graph=true to the "
                                "first call to backward through it twice");
        Tensor g(t->grad);
        if (!t->retains_grad) t->grad.reset();
        if (!g.defined()) continue;  // nothing flowed here (every path to it was cut)
        Grads grads = node.backward(g);
        if (trace_sink) [[unlikely]] trace_backward(step + 1, order.size(), node, g, grads);
        g = Tensor();  // done with it: a gradient handed on unchanged (a view's) may now be its input's own
        if (grads.size() != node.inputs.size())
            throw AutogradError(std::string("backward of '") + node.name + "' returned " +
                                std::to_string(grads.size()) + " gradients for " +
                                std::to_string(node.inputs.size()) + " inputs");
        for (std::size_t i = 0; i < grads.size(); ++i) {
            const Tensor& in = node.inputs[i];
            if (!in.defined() || !in.requires_grad() || !grads[i].defined()) continue;
            if (grads[i].shape() != in.shape())
                throw AutogradError(std::string("backward of '") + node.name + "': gradient " + std::to_string(i) +
                                    " has shape " + grads[i].shape().str() + " but the input has shape " +
                                    in.shape().str());
            accumulate(in.impl(), grads[i]);
        }
        if (!retain_graph) {
            node.backward = nullptr;  // releases the captured (saved) tensors
            node.inputs.clear();
        }
    }
}

void Tensor::backward(bool retain_graph) const {
    if (numel() != 1)
        throw AutogradError("backward: the output has shape " + shape().str() +
                            "; without an explicit gradient it must hold exactly one element");
    run_backward(*this, ones(shape(), dtype()), retain_graph);
}

void Tensor::backward(const Tensor& grad, bool retain_graph) const {
    if (grad.dtype() != dtype())
        throw AutogradError(std::string("backward: gradient dtype ") + dtype_name(grad.dtype()) +
                            " differs from the output's " + dtype_name(dtype()));
    run_backward(*this, grad, retain_graph);
}

}  // namespace attnlab
