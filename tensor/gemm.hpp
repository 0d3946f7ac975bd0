// gemm.hpp — general matrix multiply, the one kernel every matmul in attnlab goes through.
//
//   C[M,N] = A[M,K] · B[K,N]        (accumulate == false)
//   C[M,N] += A[M,K] · B[K,N]       (accumulate == true)
//
// A and B are addressed by element strides, so a transposed view is just swapped
// strides and needs no copy:
//   A(i,k) = A[i*a_rs + k*a_cs]      B(k,j) = B[k*b_rs + j*b_cs]      C(i,j) = C[i*ldc + j]
// Strides may be any integers (zero or negative too); C must not overlap A or B.
//
// Three implementations sit behind this header:
//   gemm_reference  the plain triple loop: the readable definition, used by the tests.
//   gemm_builtin    attnlab's own blocked, packed, register-tiled kernel (gemm_kernel.cpp),
//                   multithreaded over output blocks with parallel_for.
//   gemm            what the library calls: gemm_builtin, or OpenBLAS when built with
//                   BLAS=openblas (gemm_openblas.cpp).
//
// Determinism: gemm_builtin computes every C element by the same sequence of
// floating-point operations whatever num_threads() is, so results are
// bit-identical across thread counts. (OpenBLAS makes no such promise.)
//
// Errors: negative sizes, null pointers with nonzero sizes, or ldc < N with
// more than one row throw ValueError naming gemm and the values. K == 0 is
// allowed: C becomes 0 (or is left unchanged when accumulating).
#pragma once
#include <cstdint>
#include <memory>

namespace attnlab {

// Instantiated for T = float and T = double.
template <typename T>
void gemm(int64_t M, int64_t N, int64_t K,
          const T* A, int64_t a_rs, int64_t a_cs,
          const T* B, int64_t b_rs, int64_t b_cs,
          T* C, int64_t ldc, bool accumulate);

// B packed once for many products that share it (a weight every forward reads;
// tensor/packed_weights.hpp caches them): the panels gemm_builtin would pack on each
// call, so a product with them is bit-identical to one without.
template <typename T>
struct PackedB {
    int64_t K = 0, N = 0;
    std::shared_ptr<const T> panels;  // 64-byte aligned
};
template <typename T>
PackedB<T> gemm_pack_b(int64_t K, int64_t N, const T* B, int64_t b_rs, int64_t b_cs);

// gemm with B's packed panels when packed is not null (the same K and N; B and its
// strides are still needed: the smallest products skip packing and read B directly).
// Built with BLAS=openblas, packed is ignored.
// bias, when not null, is a column bias of N elements added to every row once the sum
// is complete: C = A·B + bias (or C + A·B + bias), rounded exactly as the product
// followed by a separate y + bias, without a second pass over C (Linear in inference).
template <typename T>
void gemm(int64_t M, int64_t N, int64_t K,
          const T* A, int64_t a_rs, int64_t a_cs,
          const T* B, int64_t b_rs, int64_t b_cs, const PackedB<T>* packed,
          T* C, int64_t ldc, bool accumulate, const T* bias = nullptr);

template <typename T>
void gemm_builtin(int64_t M, int64_t N, int64_t K,
                  const T* A, int64_t a_rs, int64_t a_cs,
                  const T* B, int64_t b_rs, int64_t b_cs,
                  T* C, int64_t ldc, bool accumulate);

template <typename T>
void gemm_reference(int64_t M, int64_t N, int64_t K,
                    const T* A, int64_t a_rs, int64_t a_cs,
                    const T* B, int64_t b_rs, int64_t b_cs,
                    T* C, int64_t ldc, bool accumulate);

namespace detail {
// The implementations behind gemm and gemm_builtin, defined in gemm_kernel.cpp
// and gemm_openblas.cpp. They take arguments gemm.cpp has already validated,
// with M, N, K all positive.
// packed_b: B's panels from pack_b_panels, or null to pack them on the way.
// bias: a column bias, or null (see gemm above).
template <typename T>
void gemm_blocked(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs,
                  const T* B, int64_t b_rs, int64_t b_cs, T* C, int64_t ldc, bool accumulate,
                  const T* packed_b = nullptr, const T* bias = nullptr);
template <typename T>
int64_t packed_b_elements(int64_t K, int64_t N);
template <typename T>
void pack_b_panels(int64_t K, int64_t N, const T* B, int64_t b_rs, int64_t b_cs, T* out);
template <typename T>
void gemm_openblas(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs,
                   const T* B, int64_t b_rs, int64_t b_cs, T* C, int64_t ldc, bool accumulate);
}  // namespace detail

}  // namespace attnlab
