// leaf_grads.hpp — an op of (x, W, b) run from fresh leaves and differentiated: what the tests
// of a fused op compare, bit for bit, against the composed formula it replaces.
#pragma once
#include "tensor/tensor.hpp"

namespace attnlab::testing {

struct LeafGrads {
    Tensor out, dx, dw, db;
};

// out = op(x, W, b) on clones of x0, w0, b0 that require grad, then out.backward(g): the
// output (detached) and the three gradients.
template <typename Op>
LeafGrads run_with_grads(const Tensor& x0, const Tensor& w0, const Tensor& b0, const Tensor& g, Op op) {
    Tensor x = x0.detach().clone().requires_grad_(), w = w0.detach().clone().requires_grad_(),
           b = b0.detach().clone().requires_grad_();
    Tensor out = op(x, w, b);
    out.backward(g);
    return {out.detach(), x.grad(), w.grad(), b.grad()};
}

}  // namespace attnlab::testing
