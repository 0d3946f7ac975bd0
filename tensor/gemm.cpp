// gemm.cpp — interim i-k-j kernel, replaced by the tuned kernel branch.
#include "tensor/gemm.hpp"
namespace attnlab {
template <typename T>
void gemm(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t a_rs, std::int64_t a_cs,
          const T* B, std::int64_t b_rs, std::int64_t b_cs, T* C, std::int64_t ldc, bool accumulate) {
    for (std::int64_t i = 0; i < M; ++i) {
        T* c = C + i * ldc;
        if (!accumulate) for (std::int64_t j = 0; j < N; ++j) c[j] = 0;
        for (std::int64_t k = 0; k < K; ++k) {
            T a = A[i * a_rs + k * a_cs];
            for (std::int64_t j = 0; j < N; ++j) c[j] += a * B[k * b_rs + j * b_cs];
        }
    }
}
template void gemm<float>(std::int64_t, std::int64_t, std::int64_t, const float*, std::int64_t, std::int64_t,
                          const float*, std::int64_t, std::int64_t, float*, std::int64_t, bool);
template void gemm<double>(std::int64_t, std::int64_t, std::int64_t, const double*, std::int64_t, std::int64_t,
                           const double*, std::int64_t, std::int64_t, double*, std::int64_t, bool);
}
