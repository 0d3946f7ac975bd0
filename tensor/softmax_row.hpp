// softmax_row.hpp — the three loops of a float softmax row, vectorised.
//
// glibc's expf is accurate but scalar: a 512-key attention row spends more time in
// exp than the matmuls that made it. Here exp is a short polynomial evaluated on
// whole vectors (GCC vector extensions: AVX-512, AVX, SSE or NEON as the target
// allows, like the gemm micro-kernel). softmax and log_softmax along a contiguous
// last dim, and the fused cross-entropy, use these; other layouts and double
// precision keep std::exp.
//
// Every element goes through the same vector code (a row's tail is padded, not
// handled by a scalar loop), so a value does not depend on where it sits in the row,
// and the sum is accumulated lane by lane in a fixed order: same input, same bits.
#pragma once
#include <cstdint>

namespace attnlab::detail {

// The largest element of x[0..n) (−inf for n = 0; NaNs are skipped, as std::max skips them).
float row_max(const float* x, std::int64_t n);

// exp(x[j] − m) for j < n, written to y[j] when y is not null, and their sum (in double).
// Requires x[j] − m ≤ 0, which m = row_max(x) guarantees: exp is then at most 1 and
// exactly 1 at the maximum. exp(−inf) = 0 exactly; NaN stays NaN. Relative error
// ≤ 2e-7 against the exact exponential; results below 2^−126 are flushed to 0.
double exp_shifted_sum(const float* x, float m, float* y, std::int64_t n);

// The same for a short row (a block of a longer one, n ≤ 1024: flash_attention's key
// blocks): y is required, and the sum runs in float lanes (each lane adds n/16 terms
// under AVX-512, relative error ≤ 64 float epsilons ≈ 4e-6 for n ≤ 1024), which saves
// exp_shifted_sum's widening to double on every vector (forward at T 2048: 63 -> 56 ms).
double exp_shifted_sum_block(const float* x, float m, float* y, std::int64_t n);

// y[j] *= a for j < n.
void scale_row(float* y, float a, std::int64_t n);

}  // namespace attnlab::detail
