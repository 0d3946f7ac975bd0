// matmul.cpp — the matrix product with PyTorch's batching rules, on top of gemm.
//
//   [n, k] @ [k, m]            -> [n, m]
//   [..., n, k] @ [..., k, m]  -> [..., n, m]   leading (batch) dims broadcast
//   a 1-D left operand is a row [1, k], a 1-D right operand a column [k, 1];
//   the added dim is removed from the result (so 1-D @ 1-D is a dot product).
//
// The arithmetic is all in tensor/gemm.cpp, which takes element strides, so
// transposed views (k.mT() in attention) are multiplied without a copy.
#include <algorithm>
#include <array>
#include <vector>

#include "autograd/node.hpp"
#include "autograd/trace.hpp"
#include "tensor/gemm.hpp"
#include "tensor/iter.hpp"
#include "tensor/ops.hpp"
#include "tensor/packed_weights.hpp"
#include "tensor/parallel.hpp"

namespace attnlab {

static Shape without_last_two(Shape s) {
    s.erase(s.size() - 1);
    s.erase(s.size() - 1);
    return s;
}

static Tensor matmul_nd(const Tensor& a, const Tensor& b, const Tensor& bias = Tensor());

// rows × k of A (element strides a_rs, a_cs) @ b [k, m] (read from b's data with element
// strides b_rs, b_cs) into out [rows, m], as one gemm, plus a column bias if not null.
// b's packing is cached while b is unchanged (generation repacked every weight every
// token); only without autograd: gradcheck, for one, pokes inputs through a kept pointer.
template <typename T>
static void gemm_rows(std::int64_t rows, std::int64_t k, std::int64_t m, const T* A, std::int64_t a_rs,
                      std::int64_t a_cs, const Tensor& b, std::int64_t b_rs, std::int64_t b_cs, const T* bias, T* out) {
    const auto packed = GradMode::enabled() ? nullptr : packed_b_for<T>(b, k, m, b_rs, b_cs);
    gemm<T>(rows, m, k, A, a_rs, a_cs, b.const_data_ptr<T>(), b_rs, b_cs, packed.get(), out, m, false, bias);
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

// Both operands at least 2-D. bias (only from linear(), never under autograd): a
// contiguous [m] added to every row of the product.
static Tensor matmul_nd(const Tensor& a, const Tensor& b, const Tensor& bias) {
    const std::int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
    const Shape batch_a = without_last_two(a.shape()), batch_b = without_last_two(b.shape());
    Shape shape = broadcast_shapes(batch_a, batch_b, "matmul");
    const Shape batch = shape;
    shape.push_back(n);
    shape.push_back(m);
    checked_numel(shape, "matmul");  // [2^32, k] @ [k, 2^32] has 2^64 elements
    Tensor out = empty(shape, a.dtype());

    dispatch_float(a.dtype(), "matmul", [&]<typename T>(T) {
        const T* pa = static_cast<const T*>(a.impl()->storage->data);
        const T* pb = static_cast<const T*>(b.impl()->storage->data);
        T* po = out.data_ptr<T>();
        const std::int64_t a_rs = a.strides()[a.dim() - 2], a_cs = a.strides()[a.dim() - 1];
        const std::int64_t b_rs = b.strides()[b.dim() - 2], b_cs = b.strides()[b.dim() - 1];
        const bool one_row_block = a.dim() > 2 && batch.numel() == 1;  // x [1, n, k], any strides
        if (b.dim() == 2 && (a.is_contiguous() || one_row_block)) {
            // x @ W with x [..., n, k]: all batch rows form one [batch·n, k] matrix — one gemm.
            // A batch of one is read with its own strides, whatever they are: the gradient
            // that sum() hands back has x's shape and stride 0 (an expand).
            const bool contiguous = a.is_contiguous();
            gemm_rows<T>(batch.numel() * n, k, m, pa + a.offset(), contiguous ? k : a_rs, contiguous ? 1 : a_cs, b, b_rs, b_cs,
                         bias.defined() ? bias.const_data_ptr<T>() : nullptr, po);
            return;
        }
        // One gemm per batch element; the batch dims of a and b are read with
        // broadcast strides, so a shared operand is never copied. Attention's
        // products are many small gemms (W2: 64 of 128 x 128 x 16), each too small
        // to split, so the batch elements are shared out instead; each is still
        // one whole gemm, so the bits do not depend on the thread count.
        std::vector<std::array<std::int64_t, 2>> at;  // operand offsets of each batch element
        at.reserve(static_cast<std::size_t>(batch.numel()));
        for_each_row<2>(batch,
                        {broadcast_strides(batch_a, without_last_two(a.strides()), batch),
                         broadcast_strides(batch_b, without_last_two(b.strides()), batch)},
                        {a.offset(), b.offset()},
                        [&](const std::array<std::int64_t, 2>& o, std::int64_t len,
                            const std::array<std::int64_t, 2>& s) {
                            for (std::int64_t i = 0; i < len; ++i) at.push_back({o[0] + i * s[0], o[1] + i * s[1]});
                        });
        // A gemm big enough to split itself keeps the batch loop serial (no imbalance
        // when the batch is smaller than a few times the thread count).
        const double flops = 2.0 * double(n) * double(m) * double(k);
        const auto grain = flops >= 2 * kMinFlopsPerChunk
                               ? static_cast<std::int64_t>(at.size())
                               : static_cast<std::int64_t>(std::max(1.0, kMinFlopsPerChunk / std::max(flops, 1.0)));
        parallel_for(0, static_cast<std::int64_t>(at.size()), grain, [&](std::int64_t lo, std::int64_t hi) {
            for (std::int64_t i = lo; i < hi; ++i) {
                const auto& o = at[static_cast<std::size_t>(i)];
                gemm<T>(n, m, k, pa + o[0], a_rs, a_cs, pb + o[1], b_rs, b_cs, po + i * n * m, m, false);
            }
        });
        if (bias.defined()) add_(out, bias);
    });
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

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    if (weight.dim() != 2 || x.dim() == 0 || x.size(-1) != weight.size(1) ||
        (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0) || bias.dtype() != weight.dtype())))
        throw ShapeError("linear: input " + x.shape().str() + ", weight " + weight.shape().str() + " and bias " +
                         (bias.defined() ? bias.shape().str() : std::string("none")) +
                         " (weight [out, in] with in = the input's last dim; bias [out], the weight's dtype)");
    if (!bias.defined()) return matmul(x, weight.mT());  // Wᵀ is a view: gemm reads it with swapped strides
    // With a gradient to record or ops to trace: the two ops, each on the tape.
    if (needs_grad({x, weight, bias}) || trace_sink || x.dim() < 2 || x.dtype() != weight.dtype())
        return matmul(x, weight.mT()) + bias;
    // Otherwise (inference: generation, evaluation) gemm adds the bias to each finished
    // sum in the register tile: the same bits as the product followed by + bias, without a
    // second pass over y (W6 1.03x, taskset -c 0 bench/ab.sh --rounds 9, session 17).
    const Tensor b = contiguous(bias);
    if (!x.is_contiguous()) return matmul_nd(x, weight.mT(), b);
    // A contiguous x (every Linear of the models): its rows are one [rows, in] matrix, and
    // gemm reads Wᵀ through W's own strides, with no view made for it: an op's bookkeeping
    // less per Linear, 13 per forward of W6's model (W6 1.01x: taskset -c 1 bench/ab.sh
    // --rounds 9, in both orders).
    const std::int64_t k = weight.size(1), m = weight.size(0);
    Shape shape = x.shape();
    shape[shape.size() - 1] = m;
    Tensor out = empty(shape, x.dtype());
    dispatch_float(x.dtype(), "linear", [&]<typename T>(T) {
        gemm_rows<T>(out.numel() / std::max<std::int64_t>(m, 1), k, m, x.const_data_ptr<T>(), k, 1, weight, weight.strides()[1],
                     weight.strides()[0], b.const_data_ptr<T>(), out.data_ptr<T>());
    });
    return out;
}

}  // namespace attnlab
