// gemm.hpp — C = A·B on raw strided buffers (interim: replaced by the tuned kernel branch).
#pragma once
#include <cstdint>
namespace attnlab {
template <typename T>
void gemm(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t a_rs, std::int64_t a_cs,
          const T* B, std::int64_t b_rs, std::int64_t b_cs, T* C, std::int64_t ldc, bool accumulate);
}
