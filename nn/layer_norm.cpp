// layer_norm.cpp — LayerNorm as one fused op: the fast path of LayerNorm::forward. Its
// composed reference, the formula below as tensor ops, is layer_norm_reference in nn/layers.cpp.
//
// Per row x of width d:   μ = mean(x),  r = 1/√(var(x) + eps),  x̂ = (x − μ)·r,
//                          y = x̂ ⊙ w + b
// Backward, with ĝ = g ⊙ w:
//   dx = r · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂))      (the normalisation's Jacobian, per row)
//   dw = Σ_rows g ⊙ x̂,   db = Σ_rows g
// The composed version needs ~10 ops forward and ~25 backward; the fused one makes one pass
// over the rows forward and two backward, one for dx and one for dw and db (a third of a toy
// training step saved).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "autograd/node.hpp"
#include "nn/float_row_sum.hpp"
#include "nn/layers.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"

namespace attnlab::nn {

// Σ_j term(j) for j < n, in double, over 8 interleaved partial sums (lane l takes
// j ≡ l mod 8) added in a fixed order at the end: the compiler can then keep the
// lanes in one vector register, where a single running sum would be a chain of
// n dependent additions. Same input, same bits.
template <typename Term>
static double lane_sum(std::int64_t n, Term term) {
    constexpr int kLanes = 8;
    double lane[kLanes] = {};
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (int l = 0; l < kLanes; ++l) lane[l] += term(j + l);
    double s = 0;
    for (; j < n; ++j) s += term(j);
    for (int l = 0; l < kLanes; ++l) s += lane[l];
    return s;
}

// s / d, the mean of d terms that add up to s. When d is a power of two (64 in every toy
// model), s · (1/d) is the same number, both being s/d correctly rounded, and a multiply
// does not wait out a division's latency on every row (bench_workloads'
// kernel_layer_norm_16x32x64 times forward + backward).
struct MeanOf {
    double d, inv_d;
    bool power_of_two;
    explicit MeanOf(std::int64_t n) : d(static_cast<double>(n)), inv_d(1.0 / d), power_of_two((n & (n - 1)) == 0) {}
    double operator()(double s) const { return power_of_two ? s * inv_d : s / d; }
};

// One row, forward: y = (x − μ)·r ⊙ w + b. Restrict-qualified parameters (GCC honours
// them on parameters, not on locals) tell the compiler the row, the weights and the
// output are distinct, so it vectorises the loop without runtime alias checks.
template <typename T>
static void normalise_row(std::int64_t d, const T* __restrict row, const T* __restrict w, const T* __restrict b,
                          double m, double inv, T* __restrict y) {
    for (std::int64_t j = 0; j < d; ++j) y[j] = static_cast<T>((row[j] - m) * inv) * w[j] + b[j];
}

// One row's dx from its two means (formulas above). Written as a function with restrict
// pointers for the same reason as normalise_row.
template <typename T>
static void row_dx(std::int64_t d, const T* __restrict row, const T* __restrict grow, const T* __restrict w, double m,
                   double rs, double mean_gh, double mean_ghx, T* __restrict dx) {
    auto xhat = [&](std::int64_t j) { return (row[j] - m) * rs; };
    for (std::int64_t j = 0; j < d; ++j) dx[j] = static_cast<T>(rs * (grow[j] * w[j] - mean_gh - xhat(j) * mean_ghx));
}

// One row, backward: its dx. As a loop inside the dispatch lambda it had too many possible
// aliases and stayed scalar.
template <typename T>
static void normalise_row_backward(std::int64_t d, const T* __restrict row, const T* __restrict grow,
                                   const T* __restrict w, double m, double rs, T* __restrict dx) {
    auto xhat = [&](std::int64_t j) { return (row[j] - m) * rs; };
    const double mean_gh =
        lane_sum(d, [&](std::int64_t j) { return static_cast<double>(grow[j] * w[j]); }) / static_cast<double>(d);  // mean(ĝ)
    const double mean_ghx =
        lane_sum(d, [&](std::int64_t j) { return grow[j] * w[j] * xhat(j); }) / static_cast<double>(d);  // mean(ĝ ⊙ x̂)
    row_dx(d, row, grow, w, m, rs, mean_gh, mean_ghx, dx);
}

// kRows float rows' dx at once: normalise_row_backward's two sums for every row side by side
// in one loop, where one row's two chains of d/8 dependent additions leave the core waiting.
// Each sum keeps lane_sum's order (lane l takes j ≡ l mod 8, then the tail, then the lanes
// in order), and each term is made in a statement of its own before it is added, as through
// lane_sum's lambda (GCC fuses the product into the addition either way, clang in neither):
// every row gets the bits it gets alone.
template <int kRows>
static void normalise_rows_backward(std::int64_t d, const float* __restrict x, const float* __restrict g,
                                    const float* __restrict w, const float* __restrict mu,
                                    const float* __restrict rstd, float* __restrict dx) {
    Lanes sum_gh[kRows] = {}, sum_ghx[kRows] = {};
    std::int64_t j = 0;
    for (; j + 8 <= d; j += 8) {
        FloatLanes wj;
        std::memcpy(&wj, w + j, sizeof wj);
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
            FloatLanes xf, gf;
            std::memcpy(&xf, x + r * d + j, sizeof xf);
            std::memcpy(&gf, g + r * d + j, sizeof gf);
            Lanes gh, xd;
            detail::vec::widen(gf * wj, gh);  // ĝ, rounded to float as g·w is
            detail::vec::widen(xf, xd);
            const Lanes xh = (xd - static_cast<double>(mu[r])) * static_cast<double>(rstd[r]);
            const Lanes ghx = gh * xh;
            sum_gh[r] += gh;
            sum_ghx[r] += ghx;
        }
    }
    for (int r = 0; r < kRows; ++r) {
        const float *row = x + r * d, *grow = g + r * d;
        const double m = mu[r], rs = rstd[r];
        double s_gh = 0, s_ghx = 0;
        for (std::int64_t t = j; t < d; ++t) {
            const double gh = static_cast<double>(grow[t] * w[t]), ghx = gh * ((row[t] - m) * rs);
            s_gh += gh;
            s_ghx += ghx;
        }
        for (int l = 0; l < 8; ++l) s_gh += sum_gh[r][l];
        for (int l = 0; l < 8; ++l) s_ghx += sum_ghx[r][l];
        row_dx(d, row, grow, w, m, rs, s_gh / static_cast<double>(d), s_ghx / static_cast<double>(d), dx + r * d);
    }
}

// One row's share of dw and db over `width` columns: dw += g ⊙ x̂, db += g.
template <typename T>
static void add_row_to_column_sums(std::int64_t width, const T* __restrict row, const T* __restrict grow, double m,
                                   double rs, T* __restrict dw, T* __restrict db) {
    for (std::int64_t j = 0; j < width; ++j) {
        dw[j] += static_cast<T>(grow[j] * ((row[j] - m) * rs));
        db[j] += grow[j];
    }
}

Tensor layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps) {
    const std::int64_t d = weight.numel();
    if (x.dim() == 0 || x.size(-1) != d || weight.dim() != 1 || bias.shape() != weight.shape() ||
        x.dtype() != weight.dtype() || x.dtype() != bias.dtype())
        throw ShapeError("layer_norm: input " + x.shape().str() + " with weight " + weight.shape().str() + " and bias " +
                         bias.shape().str() + " (the input's last dim must equal the weight's size, one dtype)");
    const std::int64_t rows = x.numel() / d;
    // Held for the whole op: a pointer into a temporary's storage would dangle if the
    // weight were a strided view (contiguous() then returns a copy).
    Tensor xc = contiguous(x), wc = contiguous(weight), bc = contiguous(bias);
    Tensor y = empty(x.shape(), x.dtype());
    const bool want_grad = needs_grad({x, weight, bias});  // mu, rstd: saved for backward, so not made in inference
    Tensor mu = want_grad ? empty({rows}, x.dtype()) : Tensor(), rstd = want_grad ? empty({rows}, x.dtype()) : Tensor();
    dispatch_float(x.dtype(), "layer_norm", [&]<typename T>(T) {
        const T *px = xc.const_data_ptr<T>(), *pw = wc.const_data_ptr<T>(), *pb = bc.const_data_ptr<T>();
        T *py = y.data_ptr<T>(), *pm = want_grad ? mu.data_ptr<T>() : nullptr, *pr = want_grad ? rstd.data_ptr<T>() : nullptr;
        // A block of rows per step: every row's mean, then every row's variance, then
        // their outputs. Each row's arithmetic is the same as one row at a time (the same
        // bits); side by side, the rows' chains of dependent additions overlap, where one
        // row's chain mean -> variance -> 1/σ -> output leaves the core waiting. A float
        // block's eight sums run in one loop (float_row_sums), so that the overlap does not
        // depend on how far ahead the core looks (bench_workloads' kernel_layer_norm_16x32x64
        // times forward + backward).
        // Threads take whole rows (parallel_for_elements), so a row's bits do not depend on
        // how many there are.
        const MeanOf mean_of(d);
        parallel_for_elements(rows, d, [&](std::int64_t first, std::int64_t last) {
            constexpr std::int64_t kBlock = 8;
            double m[kBlock], inv[kBlock];
            for (std::int64_t r0 = first; r0 < last; r0 += kBlock) {
                const std::int64_t n = std::min(kBlock, last - r0);
                const T* block = px + r0 * d;
                // pass 1: mean; pass 2: variance about it (two-pass: no cancellation)
                if constexpr (std::is_same_v<T, float>) {  // a whole block's sums side by side
                    const double zeros[kBlock] = {};
                    double sums[kBlock];
                    if (n == kBlock) float_row_sums<false, kBlock>(d, block, d, zeros, sums);
                    else for (std::int64_t i = 0; i < n; ++i) sums[i] = float_row_sum<false>(d, block + i * d, 0);
                    for (std::int64_t i = 0; i < n; ++i) m[i] = mean_of(sums[i]);
                    if (n == kBlock) float_row_sums<true, kBlock>(d, block, d, m, sums);
                    else for (std::int64_t i = 0; i < n; ++i) sums[i] = float_row_sum<true>(d, block + i * d, m[i]);
                    for (std::int64_t i = 0; i < n; ++i) inv[i] = 1.0 / std::sqrt(mean_of(sums[i]) + eps);
                } else {
                    for (std::int64_t i = 0; i < n; ++i) {
                        const T* row = block + i * d;
                        m[i] = mean_of(lane_sum(d, [&](std::int64_t j) { return static_cast<double>(row[j]); }));
                    }
                    for (std::int64_t i = 0; i < n; ++i) {
                        const T* row = block + i * d;
                        const double mi = m[i];
                        inv[i] = 1.0 / std::sqrt(mean_of(lane_sum(d, [&](std::int64_t j) { return (row[j] - mi) * (row[j] - mi); })) + eps);
                    }
                }
                for (std::int64_t i = 0; i < n; ++i) {
                    if (want_grad) pm[r0 + i] = static_cast<T>(m[i]), pr[r0 + i] = static_cast<T>(inv[i]);
                    normalise_row(d, block + i * d, pw, pb, m[i], inv[i], py + (r0 + i) * d);
                }
            }
        });
    });
    record(y, "layer_norm", {x, weight, bias}, [xc, wc, mu, rstd, d, rows, shape = x.shape()](const Tensor& g) -> Grads {
        Tensor gc = contiguous(g);
        Tensor dx = empty(shape, g.dtype()), dw = zeros({d}, g.dtype()), db = zeros({d}, g.dtype());
        dispatch_float(g.dtype(), "layer_norm", [&]<typename T>(T) {
            const T *px = xc.const_data_ptr<T>(), *pg = gc.const_data_ptr<T>(), *pw = wc.const_data_ptr<T>();
            const T *pm = mu.const_data_ptr<T>(), *pr = rstd.const_data_ptr<T>();
            T *pdx = dx.data_ptr<T>(), *pdw = dw.data_ptr<T>(), *pdb = db.data_ptr<T>();
            // dx row by row; dw and db column by column, each column's sum in row order. Threads
            // split the rows for dx and the columns for the sums, so no sum is split and the bits
            // are the same on any thread count.
            parallel_for_elements(rows, d, [&](std::int64_t first, std::int64_t last) {
                std::int64_t r = first;
                if constexpr (std::is_same_v<T, float>) {
                    constexpr int kRows = 4;
                    for (; r + kRows <= last; r += kRows)
                        normalise_rows_backward<kRows>(d, px + r * d, pg + r * d, pw, pm + r, pr + r, pdx + r * d);
                }
                for (; r < last; ++r)
                    normalise_row_backward(d, px + r * d, pg + r * d, pw, static_cast<double>(pm[r]),
                                           static_cast<double>(pr[r]), pdx + r * d);
            });
            constexpr std::int64_t kColumnBlock = 16;  // one vector of floats
            parallel_for_elements((d + kColumnBlock - 1) / kColumnBlock, rows * kColumnBlock, [&](std::int64_t lo, std::int64_t hi) {
                const std::int64_t c0 = lo * kColumnBlock, c1 = std::min(d, hi * kColumnBlock);
                for (std::int64_t r = 0; r < rows; ++r)
                    add_row_to_column_sums(c1 - c0, px + r * d + c0, pg + r * d + c0, static_cast<double>(pm[r]),
                                           static_cast<double>(pr[r]), pdw + c0, pdb + c0);
            });
        });
        return {dx, dw, db};
    });
    return y;
}

}  // namespace attnlab::nn
