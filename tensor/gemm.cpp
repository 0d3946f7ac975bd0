// gemm.cpp — the gemm entry points: argument checks, the trivial shapes, the
// reference triple loop, and the choice between the built-in kernel and OpenBLAS.
// The fast kernel itself is in gemm_kernel.cpp, the OpenBLAS adapter in gemm_openblas.cpp.
#include "tensor/gemm.hpp"

#include <algorithm>
#include <new>
#include <string>

#include "tensor/error.hpp"

namespace attnlab {
namespace {

std::string dims(int64_t M, int64_t N, int64_t K) {
    return "M=" + std::to_string(M) + ", N=" + std::to_string(N) + ", K=" + std::to_string(K);
}

template <typename T>
void check_args(const char* op, int64_t M, int64_t N, int64_t K, const T* A, const T* B, const T* C, int64_t ldc) {
    if (M < 0 || N < 0 || K < 0) throw ValueError(std::string(op) + ": negative size: " + dims(M, N, K));
    if (!A && M > 0 && K > 0) throw ValueError(std::string(op) + ": A is null with " + dims(M, N, K));
    if (!B && K > 0 && N > 0) throw ValueError(std::string(op) + ": B is null with " + dims(M, N, K));
    if (!C && M > 0 && N > 0) throw ValueError(std::string(op) + ": C is null with " + dims(M, N, K));
    // Rows of C closer than N elements apart would overlap.
    if (M > 1 && ldc < N)
        throw ValueError(std::string(op) + ": ldc=" + std::to_string(ldc) + " is less than N with " + dims(M, N, K));
}

// Handles the shapes with no products to sum; returns true if nothing is left to do.
template <typename T>
bool trivial_shape(int64_t M, int64_t N, int64_t K, T* C, int64_t ldc, bool accumulate) {
    if (M == 0 || N == 0) return true;
    if (K > 0) return false;
    if (!accumulate)  // an empty sum is zero
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = T(0);
    return true;
}

}  // namespace

// One dot product per element, summed in order k = 0, 1, ..., K-1, then added to C.
template <typename T>
void gemm_reference(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs, const T* B,
                    int64_t b_rs, int64_t b_cs, T* C, int64_t ldc, bool accumulate) {
    check_args("gemm_reference", M, N, K, A, B, C, ldc);
    for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) {
            T sum = T(0);
            for (int64_t k = 0; k < K; ++k) sum += A[i * a_rs + k * a_cs] * B[k * b_rs + j * b_cs];
            C[i * ldc + j] = accumulate ? C[i * ldc + j] + sum : sum;
        }
    }
}

template <typename T>
void gemm_builtin(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs, const T* B,
                  int64_t b_rs, int64_t b_cs, T* C, int64_t ldc, bool accumulate) {
    check_args("gemm", M, N, K, A, B, C, ldc);
    if (trivial_shape(M, N, K, C, ldc, accumulate)) return;
    detail::gemm_blocked(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate);
}

template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs, const T* B, int64_t b_rs,
          int64_t b_cs, T* C, int64_t ldc, bool accumulate) {
#ifdef ATTNLAB_OPENBLAS
    check_args("gemm", M, N, K, A, B, C, ldc);
    if (trivial_shape(M, N, K, C, ldc, accumulate)) return;
    detail::gemm_openblas(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate);
#else
    gemm_builtin(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate);
#endif
}

template <typename T>
PackedB<T> gemm_pack_b(int64_t K, int64_t N, const T* B, int64_t b_rs, int64_t b_cs) {
    if (K < 0 || N < 0 || (!B && K * N > 0))
        throw ValueError("gemm_pack_b: bad operand: K=" + std::to_string(K) + " N=" + std::to_string(N) +
                         (B ? "" : " with a null B"));
    constexpr std::align_val_t kAlign{64};
    const int64_t n = std::max<int64_t>(1, detail::packed_b_elements<T>(K, N));
    T* panels = static_cast<T*>(::operator new(static_cast<size_t>(n) * sizeof(T), kAlign));
    PackedB<T> packed{K, N, std::shared_ptr<const T>(panels, [](const T* p) {  // kAlign: a constant, not captured
                          ::operator delete(const_cast<T*>(p), kAlign);
                      })};
    if (K > 0 && N > 0) detail::pack_b_panels(K, N, B, b_rs, b_cs, panels);
    return packed;
}

template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs, const T* B, int64_t b_rs,
          int64_t b_cs, const PackedB<T>* packed, T* C, int64_t ldc, bool accumulate, const T* bias) {
    check_args("gemm", M, N, K, A, B, C, ldc);
    if (packed && (packed->K != K || packed->N != N))
        throw ValueError("gemm: packed B is " + dims(0, packed->N, packed->K) + ", the product " + dims(M, N, K));
    // The bias as a step of its own, after the product: OpenBLAS (which packs B itself) and
    // K = 0 (an empty sum).
    auto add_bias = [&] {
        if (bias)
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = C[i * ldc + j] + bias[j];
    };
#ifdef ATTNLAB_OPENBLAS
    gemm(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate);
    add_bias();
#else
    if (trivial_shape(M, N, K, C, ldc, accumulate)) return add_bias();
    detail::gemm_blocked(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, packed ? packed->panels.get() : nullptr,
                         bias);
#endif
}

template PackedB<float> gemm_pack_b<float>(int64_t, int64_t, const float*, int64_t, int64_t);
template PackedB<double> gemm_pack_b<double>(int64_t, int64_t, const double*, int64_t, int64_t);
template void gemm<float>(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, const float*, int64_t, int64_t,
                          const PackedB<float>*, float*, int64_t, bool, const float*);
template void gemm<double>(int64_t, int64_t, int64_t, const double*, int64_t, int64_t, const double*, int64_t,
                           int64_t, const PackedB<double>*, double*, int64_t, bool, const double*);

#define ATTNLAB_INSTANTIATE_GEMM(fn, T)                                                                         \
    template void fn<T>(int64_t, int64_t, int64_t, const T*, int64_t, int64_t, const T*, int64_t, int64_t, T*, \
                        int64_t, bool);
ATTNLAB_INSTANTIATE_GEMM(gemm, float)
ATTNLAB_INSTANTIATE_GEMM(gemm, double)
ATTNLAB_INSTANTIATE_GEMM(gemm_builtin, float)
ATTNLAB_INSTANTIATE_GEMM(gemm_builtin, double)
ATTNLAB_INSTANTIATE_GEMM(gemm_reference, float)
ATTNLAB_INSTANTIATE_GEMM(gemm_reference, double)
#undef ATTNLAB_INSTANTIATE_GEMM

}  // namespace attnlab
