// mlp_fast.cpp — GELU(x·Wᵀ + b) as one op: the fast path of MLP::forward (nn/layers.cpp),
// whose composed line gelu(fc1.forward(x)) is what it computes. Read that one first.
//
// Forward (x [rows, in], W [out, in], b [out]; y, h, d [rows, out]):
//   y = x·Wᵀ + b           one gemm, the bias added to each finished sum in its register tile
//   h = GELU(y), d = GELU'(y)   one pass over y (GELU's own kernel, tensor/gelu_run.hpp)
// Backward, from g = dL/dh:
//   dy = g ⊙ d,  db = Σ_rows dy     one pass: each row of dy is added to db as it is made
//   dx = dy·W,   dW = dyᵀ·x          the two products matmul's backward runs
// The composed ops make three more passes over [rows, out]: the bias add forward, the product
// g ⊙ d and the column sum backward. In W7, nanoGPT's CPU step, the hidden layer is
// [768, 512]. Every step rounds as the composed one does (the sum in the gemm's tile is
// followed by + b, as in y + b; db is each column's sum in double, row by row, as sum_to's
// reduction adds it), so the results are the same bits (tests/nn/test_mlp_fast.cpp).
#include "nn/mlp_fast.hpp"

#include <algorithm>
#include <vector>

#include "autograd/node.hpp"
#include "tensor/gelu_run.hpp"
#include "tensor/matmul_fast.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"

namespace attnlab::nn {

namespace {

// dy = g ⊙ d over rows × cols, and db[c] = Σ_rows dy[r, c] in double, row by row. Threads
// split the columns, so each column's sum runs in one thread in row order: the same bits on
// any thread count.
void gelu_backward_rows(std::int64_t rows, std::int64_t cols, const float* g, const float* d, float* dy, float* db) {
    constexpr std::int64_t kColumnBlock = 16;  // one vector of floats: a chunk's rows stay whole vectors
    const std::int64_t blocks = (cols + kColumnBlock - 1) / kColumnBlock;
    parallel_for_elements(blocks, rows * kColumnBlock, [&](std::int64_t lo, std::int64_t hi) {
        const std::int64_t c0 = lo * kColumnBlock, c1 = std::min(cols, hi * kColumnBlock), width = c1 - c0;
        std::vector<double> sum(static_cast<std::size_t>(width), 0.0);
        for (std::int64_t r = 0; r < rows; ++r) {
            const float* __restrict gr = g + r * cols + c0;
            const float* __restrict dr = d + r * cols + c0;
            float* __restrict out = dy + r * cols + c0;
            double* __restrict s = sum.data();
            for (std::int64_t j = 0; j < width; ++j) {
                out[j] = gr[j] * dr[j];
                s[j] += static_cast<double>(out[j]);
            }
        }
        for (std::int64_t j = 0; j < width; ++j) db[c0 + j] = static_cast<float>(sum[static_cast<std::size_t>(j)]);
    });
}

}  // namespace

Tensor linear_gelu_fast(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    if (weight.dim() != 2 || x.dim() < 2 || x.size(-1) != weight.size(1) || !bias.defined() || bias.dim() != 1 ||
        bias.size(0) != weight.size(0) || x.dtype() != kFloat32 || weight.dtype() != kFloat32 || bias.dtype() != kFloat32)
        throw ShapeError("linear_gelu: input " + x.shape().str() + ", weight " + weight.shape().str() + " and bias " +
                         (bias.defined() ? bias.shape().str() : std::string("none")) +
                         " (float32; weight [out, in] with in = the input's last dim; bias [out])");
    const std::int64_t cols = weight.size(0);
    const Tensor y = detail::linear_fast(x, weight, bias);  // [..., out], x·Wᵀ + b
    const std::int64_t n = y.numel();
    const bool want_grad = needs_grad({x, weight, bias});
    Tensor h = empty(y.shape(), kFloat32), d = want_grad ? empty(y.shape(), kFloat32) : Tensor();
    const float* py = y.const_data_ptr<float>();
    float *ph = h.data_ptr<float>(), *pd = want_grad ? d.data_ptr<float>() : nullptr;
    parallel_for_elements(n, 1, [&](std::int64_t lo, std::int64_t hi) {
        detail::gelu_float_run(py + lo, ph + lo, pd ? pd + lo : nullptr, hi - lo);
    });
    record(h, "linear_gelu", {x, weight, bias}, [x, weight, d, cols](const Tensor& g) -> Grads {
        const Tensor gc = contiguous(g);
        const std::int64_t rows = gc.numel() / cols;
        Tensor dy = empty(gc.shape(), kFloat32), db = empty({cols}, kFloat32);
        gelu_backward_rows(rows, cols, gc.const_data_ptr<float>(), d.const_data_ptr<float>(), dy.data_ptr<float>(),
                           db.data_ptr<float>());
        // matmul's backward for x·Wᵀ: dx = dy·W; W's gradient (dyᵀ·x), read through dy's strides.
        Tensor dx = x.requires_grad() ? matmul(dy, weight) : Tensor();
        Tensor dw = weight.requires_grad() ? matmul(flatten(dy, 0, -2).mT(), flatten(x, 0, -2)) : Tensor();
        return {dx, dw, db};
    });
    return h;
}

}  // namespace attnlab::nn
