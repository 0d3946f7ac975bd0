// matmul_fast.cpp — see matmul_fast.hpp. The arithmetic is all in tensor/gemm.cpp,
// which takes element strides, so transposed views (k.mT() in attention) are multiplied
// without a copy.
#include "tensor/matmul_fast.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "autograd/node.hpp"
#include "tensor/gemm.hpp"
#include "tensor/iter.hpp"
#include "tensor/ops.hpp"
#include "tensor/packed_weights.hpp"
#include "tensor/parallel.hpp"

namespace attnlab::detail {

static Shape leading_dims(Shape s) {
    s.erase(s.size() - 1);
    s.erase(s.size() - 1);
    return s;
}

// rows × k of A (element strides a_rs, a_cs) @ b [k, m] (read from b's data with element
// strides b_rs, b_cs) into out [rows, m], as one gemm, plus a column bias if not null.
// b's packing is cached while b is unchanged (generation would otherwise repack every
// weight every token); only without autograd: gradcheck, for one, pokes inputs through a
// kept pointer.
template <typename T>
static void gemm_rows(std::int64_t rows, std::int64_t k, std::int64_t m, const T* A, std::int64_t a_rs,
                      std::int64_t a_cs, const Tensor& b, std::int64_t b_rs, std::int64_t b_cs, const T* bias, T* out) {
    const auto packed = GradMode::enabled() ? nullptr : packed_b_for<T>(b, k, m, b_rs, b_cs);
    gemm<T>(rows, m, k, A, a_rs, a_cs, b.const_data_ptr<T>(), b_rs, b_cs, packed.get(), out, m, false, bias);
}

void matmul_fast(const Tensor& a, const Tensor& b, const Tensor& bias, Tensor& out) {
    const std::int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
    const Shape batch_a = leading_dims(a.shape()), batch_b = leading_dims(b.shape());
    const Shape batch = leading_dims(out.shape());
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
                        {broadcast_strides(batch_a, leading_dims(a.strides()), batch),
                         broadcast_strides(batch_b, leading_dims(b.strides()), batch)},
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
}

Tensor linear_fast(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    // gemm adds the bias to each finished sum in the register tile: the same bits as the
    // product followed by + bias, without a second pass over y.
    const Tensor b = contiguous(bias);
    const std::int64_t k = weight.size(1), m = weight.size(0);
    Shape shape = x.shape();
    shape[shape.size() - 1] = m;
    Tensor out = empty(shape, x.dtype());
    if (!x.is_contiguous()) {
        matmul_fast(x, weight.mT(), b, out);
        return out;
    }
    // A contiguous x (every Linear of the models): its rows are one [rows, in] matrix, and
    // gemm reads Wᵀ through W's own strides, with no view made for it: an op's bookkeeping
    // less per Linear.
    dispatch_float(x.dtype(), "linear", [&]<typename T>(T) {
        gemm_rows<T>(out.numel() / std::max<std::int64_t>(m, 1), k, m, x.const_data_ptr<T>(), k, 1, weight, weight.strides()[1],
                     weight.strides()[0], b.const_data_ptr<T>(), out.data_ptr<T>());
    });
    return out;
}

Tensor linear_fast_recorded(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    Tensor y = linear_fast(x, weight, bias);
    record(y, "linear", {x, weight, bias}, [x, weight, bias_shape = bias.shape()](const Tensor& g) -> Grads {
        // The add's backward hands g to the product unchanged and sums it to the bias's
        // shape; the product's backward (matmul_backward) multiplies g by W for x and, for
        // the column-major Wᵀ, makes W's gradient as gᵀ·x over all rows.
        Tensor dx = x.requires_grad() ? matmul(g, weight) : Tensor();
        Tensor dw = weight.requires_grad() ? matmul(flatten(g, 0, -2).mT(), flatten(x, 0, -2)) : Tensor();
        return {dx, dw, sum_to(g, bias_shape)};
    });
    return y;
}

}  // namespace attnlab::detail
