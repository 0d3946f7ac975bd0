// gemm_openblas.cpp — gemm routed to OpenBLAS (cblas_sgemm / cblas_dgemm).
//
// Compiled only with BLAS=openblas (-DATTNLAB_OPENBLAS); otherwise this file is empty.
//
// CBLAS reads a matrix as row-major with a leading dimension, optionally
// transposed. Our operands are arbitrary strided views, so each one is
// described to CBLAS without a copy when it has a unit stride in one dimension
// (a plain or a transposed matrix), and copied into a contiguous row-major
// scratch buffer otherwise. OpenBLAS's own thread count is kept equal to
// num_threads(), so one setting controls every kernel.
//
// Left out: OpenBLAS's choice of CPU kernels. Debian's 0.3.21 does not
// recognise recent Xeons and falls back to slow SSE3 code unless the
// environment sets OPENBLAS_CORETYPE (e.g. SkylakeX); bench_matmul prints the
// core OpenBLAS picked. We deliberately do not set it from code: it is the
// user's machine and the user's library.
#ifdef ATTNLAB_OPENBLAS

#include <cblas.h>

#include <climits>
#include <optional>
#include <vector>

#include "tensor/gemm.hpp"
#include "tensor/parallel.hpp"

namespace attnlab::detail {
namespace {

struct BlasOperand {
    const void* data;
    CBLAS_TRANSPOSE trans;
    blasint ld;
};

// How CBLAS can read the rows x cols matrix with element (r, c) at p[r*rs + c*cs]
// in place: row-major with leading dimension rs, or column-major (CblasTrans)
// with leading dimension cs. A single row or column needs only one stride.
template <typename T>
std::optional<BlasOperand> in_place(int64_t rows, int64_t cols, const T* p, int64_t rs, int64_t cs) {
    if ((cs == 1 || cols == 1) && (rows == 1 || rs >= cols) && (rows == 1 ? cols : rs) <= INT_MAX)
        return BlasOperand{p, CblasNoTrans, static_cast<blasint>(rows == 1 ? cols : rs)};
    if ((rs == 1 || rows == 1) && (cols == 1 || cs >= rows) && (cols == 1 ? rows : cs) <= INT_MAX)
        return BlasOperand{p, CblasTrans, static_cast<blasint>(cols == 1 ? rows : cs)};
    return std::nullopt;
}

// Any other strides: copy to a row-major scratch buffer (one per operand and thread, reused).
template <typename T>
BlasOperand packed(int64_t rows, int64_t cols, const T* p, int64_t rs, int64_t cs, std::vector<T>& scratch) {
    scratch.resize(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) scratch[static_cast<size_t>(r * cols + c)] = p[r * rs + c * cs];
    return BlasOperand{scratch.data(), CblasNoTrans, static_cast<blasint>(cols)};
}

template <typename T>
BlasOperand operand(int64_t rows, int64_t cols, const T* p, int64_t rs, int64_t cs, std::vector<T>& scratch) {
    if (auto view = in_place(rows, cols, p, rs, cs)) return *view;
    return packed(rows, cols, p, rs, cs, scratch);
}

// Asks OpenBLAS rather than remembering what we last set, so a caller that
// changed it directly (bench_matmul does) is corrected on the next call.
void match_thread_count() {
    const int want = num_threads();
    if (openblas_get_num_threads() != want) openblas_set_num_threads(want);
}

void cblas_gemm(const BlasOperand& a, const BlasOperand& b, blasint M, blasint N, blasint K, float* C, blasint ldc,
                float beta) {
    cblas_sgemm(CblasRowMajor, a.trans, b.trans, M, N, K, 1.0f, static_cast<const float*>(a.data), a.ld,
                static_cast<const float*>(b.data), b.ld, beta, C, ldc);
}
void cblas_gemm(const BlasOperand& a, const BlasOperand& b, blasint M, blasint N, blasint K, double* C, blasint ldc,
                double beta) {
    cblas_dgemm(CblasRowMajor, a.trans, b.trans, M, N, K, 1.0, static_cast<const double*>(a.data), a.ld,
                static_cast<const double*>(b.data), b.ld, beta, C, ldc);
}

}  // namespace

template <typename T>
void gemm_openblas(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs, const T* B,
                   int64_t b_rs, int64_t b_cs, T* C, int64_t ldc, bool accumulate) {
    // With one row, C's leading dimension is never used, but CBLAS still wants it >= N.
    const int64_t c_ld = M == 1 ? N : ldc;
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX || c_ld > INT_MAX) {  // beyond CBLAS's 32-bit indices
        gemm_blocked(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate);
        return;
    }
    thread_local std::vector<T> a_scratch, b_scratch;
    const BlasOperand a = operand(M, K, A, a_rs, a_cs, a_scratch);
    const BlasOperand b = operand(K, N, B, b_rs, b_cs, b_scratch);
    match_thread_count();
    // beta = 0 tells BLAS not to read C at all, so NaNs already in C do not leak through.
    cblas_gemm(a, b, static_cast<blasint>(M), static_cast<blasint>(N), static_cast<blasint>(K), C,
               static_cast<blasint>(c_ld), accumulate ? T(1) : T(0));
}

template void gemm_openblas<float>(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, const float*, int64_t,
                                   int64_t, float*, int64_t, bool);
template void gemm_openblas<double>(int64_t, int64_t, int64_t, const double*, int64_t, int64_t, const double*,
                                    int64_t, int64_t, double*, int64_t, bool);

}  // namespace attnlab::detail

#endif  // ATTNLAB_OPENBLAS
