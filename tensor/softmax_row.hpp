// softmax_row.hpp — the three loops of a float softmax row, vectorised (and, for
// flash_attention's tiles, the first two over many short rows at once).
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
// exp_shifted_sum's widening to double on every vector.
// flash_attention calls exp_shifted_sum_rows below, which gives these bits for a whole
// tile of rows at once; this one row is its definition, and what its test compares with.
double exp_shifted_sum_block(const float* x, float m, float* y, std::int64_t n);

// m[i] = max(m[i], x_i0, ..., x_i(n[i]−1)) for the rows of a flash_attention tile (row i at
// x + i·width). NaNs are skipped, as in row_max; the lanes are reduced in a tree, so a
// maximum of zero may have the other sign than row_max's (exp(x − m) cannot tell).
void row_max_rows(const float* x, std::int64_t width, const std::int64_t* n, float* m, std::int64_t rows);

// The rows of a flash_attention tile at once, in place: row i, at x + i·width, becomes
// exp(x_ij − m[i]) for j < n[i] and 0 for n[i] ≤ j < width, and sums[i] gets the sum.
// The bits of exp_shifted_sum_block row by row (the same lanes, added in the same order;
// tests/tensor/test_softmax.cpp checks): what changes is the schedule. A causal 32-key
// row is one or two vectors, and one vector's exp is a chain of a dozen dependent
// multiply-adds that the core, row after row, mostly waits out; here the vectors of
// several rows go through exp a block at a time, as GELU's erfc does (unary.cpp).
// A row with n[i] = 0 becomes all 0, whatever m[i] (−inf included); others need
// x_ij − m[i] ≤ 0 for j < n[i], as exp_shifted_sum does.
void exp_shifted_sum_rows(float* x, std::int64_t width, const std::int64_t* n, const float* m, double* sums,
                          std::int64_t rows);

// y[j] *= a for j < n.
void scale_row(float* y, float a, std::int64_t n);

}  // namespace attnlab::detail
