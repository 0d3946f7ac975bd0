// float_row_sum.hpp — Σ x_j or Σ (x_j − m)² over a float row, in double, eight lanes at a
// time: LayerNorm's mean and variance (nn/layer_norm.cpp) and the gradient clip's sum of
// squares (nn/optim_fast.cpp, with m = 0).
#pragma once
#include <cstdint>
#include <cstring>

#include "tensor/vec_math.hpp"

namespace attnlab::nn {

// The eight lanes (lane l takes j ≡ l mod 8) are one vector of doubles (vector extensions,
// as gemm_kernel.cpp's Vec: one zmm register with AVX-512), where a single running sum
// would be a chain of n dependent additions. Each lane adds the same terms in the same
// order, and the lanes are added up in the same order at the end, so the same input gives
// the same bits (a test writes LayerNorm's sums out element by element), and the compiler
// keeps the lanes in one register instead of splitting and spilling them. It is
// layer_norm.cpp's lane_sum for these two sums: GCC at -O2 fuses (x − m)·(x − m) + lane
// into one multiply-add here as through lane_sum's lambda, so its bits are lane_sum's;
// clang fuses only within one expression, so it fuses the squares here but not through the
// lambda (LayerNorm's backward sums, which make each product in a statement of its own).
typedef double Lanes __attribute__((vector_size(8 * sizeof(double))));
typedef float FloatLanes __attribute__((vector_size(8 * sizeof(float))));

// The sums of kRows rows (ld floats apart) at once: out[r] = float_row_sum(d, rows + r·ld, m[r]).
// Each row's lanes add its terms in the same order as alone, so the bits are the same; the
// rows' chains of dependent additions run side by side in one loop, where one row's chain
// (d/8 additions, each waiting for the last) would leave the core idle between them.
template <bool kSquares, int kRows>
inline void float_row_sums(std::int64_t d, const float* rows, std::int64_t ld, const double* m, double* out) {
    Lanes lane[kRows] = {};
    std::int64_t j = 0;
    for (; j + 8 <= d; j += 8) {
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
            FloatLanes f;
            std::memcpy(&f, rows + r * ld + j, sizeof f);
            Lanes x;
            detail::vec::widen(f, x);
            if constexpr (kSquares) lane[r] += (x - m[r]) * (x - m[r]);
            else lane[r] += x;
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
        const float* row = rows + r * ld;
        double s = 0;
        for (std::int64_t t = j; t < d; ++t) {
            if constexpr (kSquares) s += (row[t] - m[r]) * (row[t] - m[r]);
            else s += static_cast<double>(row[t]);
        }
        for (int l = 0; l < 8; ++l) s += lane[r][l];
        out[r] = s;
    }
}

template <bool kSquares>
inline double float_row_sum(std::int64_t d, const float* row, double m) {
    double s;
    float_row_sums<kSquares, 1>(d, row, d, &m, &s);
    return s;
}

}  // namespace attnlab::nn
