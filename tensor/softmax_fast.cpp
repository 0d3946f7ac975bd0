// softmax_fast.cpp — see softmax_fast.hpp.
#include "tensor/softmax_fast.hpp"

#include <algorithm>
#include <cmath>

#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/row_sum.hpp"
#include "tensor/softmax_row.hpp"

namespace attnlab::detail {

// Elements per parallel chunk: below ~64K a worker's wake-up costs more than it saves.
constexpr std::int64_t kRowsGrainElements = 1 << 16;

void softmax_rows_fast(const float* px, float* py, float* pa, std::int64_t outer, std::int64_t n, bool log_form) {
    // Rows are independent, so splitting them over threads changes no bits.
    parallel_for(0, outer, std::max<std::int64_t>(1, kRowsGrainElements / std::max<std::int64_t>(n, 1)),
                 [&](std::int64_t lo, std::int64_t hi) {
                     for (std::int64_t o = lo; o < hi; ++o) {
                         const float* xr = px + o * n;
                         float* yr = py + o * n;
                         const float m = row_max(xr, n);
                         if (pa) pa[o] = m == -INFINITY ? 0.0f : 1.0f;
                         if (m == -INFINITY) {  // fully masked (or empty) row
                             std::fill(yr, yr + n, 0.0f);
                             continue;
                         }
                         const double s = exp_shifted_sum(xr, m, log_form ? nullptr : yr, n);
                         if (log_form) {
                             const float log_s = static_cast<float>(std::log(s));
                             for (std::int64_t j = 0; j < n; ++j) yr[j] = xr[j] - m - log_s;
                         } else {
                             scale_row(yr, static_cast<float>(1.0 / s), n);
                         }
                     }
                 });
}

// Composed, the backward is four passes over a [B, H, T, T] tensor and three temporaries
// of that size, on one thread until each op splits; fused, it is one pass and rows split
// over threads. Each row does the composed ops' arithmetic in their order: the float
// products gⱼpⱼ summed in double in sum()'s order (row_sum.hpp), the sum rounded to
// float, then pⱼ·(gⱼ − s) in float. So the bits are the same.
Tensor softmax_backward_fast(const Tensor& p, const Tensor& g) {
    const Tensor gc = contiguous(g);
    Tensor dx = empty(p.shape(), kFloat32);
    const std::int64_t n = p.dim() ? p.shape()[p.dim() - 1] : 1;
    const float* pp = p.const_data_ptr<float>();
    const float* pg = gc.const_data_ptr<float>();
    float* pd = dx.data_ptr<float>();
    parallel_for_elements(n ? p.numel() / n : 0, n, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t r = lo; r < hi; ++r) {
            const float *pr = pp + r * n, *gr = pg + r * n;
            float* dr = pd + r * n;
            const float s = static_cast<float>(sum_terms(n, [&](std::int64_t j) { return gr[j] * pr[j]; }));
            for (std::int64_t j = 0; j < n; ++j) dr[j] = pr[j] * (gr[j] - s);
        }
    });
    return dx;
}

}  // namespace attnlab::detail
