// matmul.cpp — the matrix product with PyTorch's batching rules, its backward, and linear().
//
//   out[..., i, j] = Σ_p a[..., i, p] · b[..., p, j]
//
//   [n, k] @ [k, m]            -> [n, m]
//   [..., n, k] @ [..., k, m]  -> [..., n, m]   leading (batch) dims broadcast
//   a 1-D left operand is a row [1, k], a 1-D right operand a column [k, 1];
//   the added dim is removed from the result (so 1-D @ 1-D is a dot product).
//
// Attention's scores are this op: q @ kᵀ puts the dot product q_i · k_j at [i, j].
// plain_matmul below is the formula as three loops; the fast kernel (register tiles,
// packed weights, the thread pool: tensor/matmul_fast.cpp) computes the same numbers
// and is taken at the one dispatch point in matmul_nd, unless reference mode is on.
#include <vector>

#include "autograd/node.hpp"
#include "autograd/trace.hpp"
#include "tensor/iter.hpp"
#include "tensor/matmul_fast.hpp"
#include "tensor/ops.hpp"
#include "tensor/reference.hpp"

namespace attnlab {

static Shape without_last_two(Shape s) {
    s.erase(s.size() - 1);
    s.erase(s.size() - 1);
    return s;
}

static Tensor matmul_nd(const Tensor& a, const Tensor& b);

// The formula: for every batch element, out[i, j] = Σ_p a[i, p] · b[p, j], each sum in
// double. a and b are read through their strides (k.mT() is a view, not a copy), their
// batch dims through broadcast strides (0 where a dim is stretched).
template <typename T>
static void plain_matmul(const Tensor& a, const Tensor& b, Tensor& out) {
    const std::int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
    const Shape batch = without_last_two(out.shape());
    const Shape sa = broadcast_strides(without_last_two(a.shape()), without_last_two(a.strides()), batch);
    const Shape sb = broadcast_strides(without_last_two(b.shape()), without_last_two(b.strides()), batch);
    const std::int64_t a_rs = a.strides()[a.dim() - 2], a_cs = a.strides()[a.dim() - 1];
    const std::int64_t b_rs = b.strides()[b.dim() - 2], b_cs = b.strides()[b.dim() - 1];
    const T* pa = static_cast<const T*>(a.impl()->storage->data);
    const T* pb = static_cast<const T*>(b.impl()->storage->data);
    T* po = out.data_ptr<T>();
    for (std::int64_t e = 0; e < batch.numel(); ++e) {
        // batch element e's offsets in a and b: its index along each batch dim, times the strides
        std::int64_t oa = a.offset(), ob = b.offset(), rest = e;
        for (std::int64_t d = batch.size() - 1; d >= 0; --d) {
            const std::int64_t idx = rest % batch[d];
            rest /= batch[d];
            oa += idx * sa[d], ob += idx * sb[d];
        }
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < m; ++j) {
                double s = 0;  // out[i, j] = Σ_p a[i, p] · b[p, j]
                for (std::int64_t p = 0; p < k; ++p)
                    s += static_cast<double>(pa[oa + i * a_rs + p * a_cs]) * static_cast<double>(pb[ob + p * b_rs + j * b_cs]);
                po[(e * n + i) * m + j] = static_cast<T>(s);
            }
    }
}

// d(a@b)/da = g @ bᵀ, d(a@b)/db = aᵀ @ g, each summed over broadcast batch dims.
// A named function (not only a lambda) so that `break matmul_backward` works in gdb.
static Grads matmul_backward(const Tensor& a, const Tensor& b, const Tensor& g) {
    Tensor db;
    if (b.requires_grad() && b.dim() == 2) {
        // x [..., n, k] @ W [k, m]: the batch sum of xᵀg is one product over all rows,
        // [k, rows] @ [rows, m], not a [batch, k, m] stack of products summed afterwards.
        const Tensor x = flatten(a, 0, -2), g2 = flatten(g, 0, -2);  // [rows, k], [rows, m]
        // A column-major W (the Wᵀ view of every Linear) gets a column-major gradient, (gᵀx)ᵀ,
        // as in PyTorch's mm backward: transpose's backward then hands the weight a contiguous
        // gradient, where xᵀg would leave a transposed one to copy element by element.
        // Each element is the same chain of products over the rows, so the built-in kernels give
        // the same bits (OpenBLAS, with BLAS=openblas, orders its sums per transpose its own way).
        const bool column_major = b.strides()[0] == 1 && b.strides()[1] == b.size(0);
        db = column_major ? matmul_nd(g2.mT(), x).mT() : matmul_nd(x.mT(), g2);
    } else if (b.requires_grad()) {
        db = sum_to(matmul_nd(a.mT(), g), b.shape());
    }
    return {a.requires_grad() ? sum_to(matmul_nd(g, b.mT()), a.shape()) : Tensor(), db};
}

// Both operands at least 2-D.
static Tensor matmul_nd(const Tensor& a, const Tensor& b) {
    Shape shape = broadcast_shapes(without_last_two(a.shape()), without_last_two(b.shape()), "matmul");
    shape.push_back(a.size(-2));
    shape.push_back(b.size(-1));
    checked_numel(shape, "matmul");  // [2^32, k] @ [k, 2^32] has 2^64 elements
    Tensor out = empty(shape, a.dtype());
    if (reference_mode())
        dispatch_float(a.dtype(), "matmul", [&]<typename T>(T) { plain_matmul<T>(a, b, out); });
    else
        detail::matmul_fast(a, b, Tensor(), out);  // fast path: see tensor/matmul_fast.cpp; plain_matmul is what it computes
    record(out, "matmul", {a, b}, [a, b](const Tensor& g) { return matmul_backward(a, b, g); });
    return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
    if (a.dtype() != b.dtype())
        throw ValueError(std::string("matmul: dtypes differ: ") + dtype_name(a.dtype()) + " " + a.shape().str() +
                         " @ " + dtype_name(b.dtype()) + " " + b.shape().str());
    if (a.dim() == 0 || b.dim() == 0)
        throw ShapeError("matmul: both arguments need at least 1 dimension, got " + a.shape().str() + " @ " +
                         b.shape().str());
    const std::int64_t ka = a.size(-1), kb = b.dim() == 1 ? b.size(0) : b.size(-2);
    if (ka != kb)
        throw ShapeError("matmul: inner dimensions differ: " + a.shape().str() + " @ " + b.shape().str());
    if (a.dim() == 1 && b.dim() == 1) return reshape(matmul_nd(unsqueeze(a, 0), unsqueeze(b, 1)), Shape{});
    if (a.dim() == 1) return squeeze(matmul_nd(unsqueeze(a, 0), b), -2);
    if (b.dim() == 1) return squeeze(matmul_nd(a, unsqueeze(b, 1)), -1);
    return matmul_nd(a, b);
}

// y = x Wᵀ + b with W [out, in]: PyTorch's Linear.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    if (weight.dim() != 2 || x.dim() == 0 || x.size(-1) != weight.size(1) ||
        (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0) || bias.dtype() != weight.dtype())))
        throw ShapeError("linear: input " + x.shape().str() + ", weight " + weight.shape().str() + " and bias " +
                         (bias.defined() ? bias.shape().str() : std::string("none")) +
                         " (weight [out, in] with in = the input's last dim; bias [out], the weight's dtype)");
    if (!bias.defined()) return matmul(x, weight.mT());  // Wᵀ is a view: read with swapped strides
    // The formula as two ops on the tape: in reference mode, whenever an op trace lists the
    // ops as composed here, and for a gradient through a strided x (a KV cache's step).
    const bool grad = needs_grad({x, weight, bias});
    if (reference_mode() || trace_sink || x.dim() < 2 || x.dtype() != weight.dtype() || (grad && !x.is_contiguous()))
        return matmul(x, weight.mT()) + bias;
    // fast path: see tensor/matmul_fast.cpp; the line above is what it computes, forward and backward
    return grad ? detail::linear_fast_recorded(x, weight, bias) : detail::linear_fast(x, weight, bias);
}

}  // namespace attnlab
