// flash_attention_tile.hpp — the tile product inside flash_attention, without packing.
//
//   C[M, N] (= or +=) A[M, K] · B[K, N],   A(i, k) = A[i·a_rs + k·a_cs],   B(k, j) = B[k·b_rs + j]
//
// gemm_builtin (tensor/gemm.hpp) packs both operands on every call. That pays for big
// matrices; attention's tiles are small (64 query rows × 512 keys × d_k 64) and come by
// the thousand, and there the packing — strided gathers of kᵀ and of P — took more time
// than the multiply-adds (perf: 29% in packing against 43% in the micro-kernel). Here
// each B row is already contiguous (the kernel keeps kᵀ and vᵀ transposed once per
// head), so the register tile reads B straight from memory as whole vectors and A one
// broadcast element at a time: MR rows × NV vectors of accumulators, one multiply-add
// per vector and k, in k order — the same operations whatever the thread count.
//
// N must be a whole number of vectors; other widths (d_k 8 in float, a short last key
// block) go to gemm_builtin, which is exact for any shape.
#pragma once
#include <cstdint>
#include <algorithm>
#include <cstring>

#include "tensor/gemm.hpp"

namespace attnlab::nn::detail {

#if defined(__AVX512F__)
inline constexpr int kTileVectorBytes = 64, kTileAccumulators = 24, kTileVectors = 4;  // 24 accumulators of 32 registers
#elif defined(__AVX__)
inline constexpr int kTileVectorBytes = 32, kTileAccumulators = 12, kTileVectors = 4;  // 12 of 16
#else
inline constexpr int kTileVectorBytes = 16, kTileAccumulators = 12, kTileVectors = 4;
#endif

template <typename T>
struct TileVec {
    typedef T type __attribute__((vector_size(kTileVectorBytes)));
    static constexpr int lanes = kTileVectorBytes / static_cast<int>(sizeof(T));
};

// One register tile: MR rows × NV vectors of C. The loops are unrolled in full, so
// the MR·NV accumulators live in registers and `c += a * b` is one fused multiply-add.
template <typename T, int MR, int NV>
void tile_kernel(std::int64_t K, const T* __restrict A, std::int64_t a_rs, std::int64_t a_cs, const T* __restrict B,
                 std::int64_t b_rs, T* __restrict C, std::int64_t c_rs, bool accumulate) {
    using V = typename TileVec<T>::type;
    constexpr int L = TileVec<T>::lanes;
    V c[MR][NV] = {};
    for (std::int64_t k = 0; k < K; ++k) {
        V b[NV];
#pragma GCC unroll 32
        for (int v = 0; v < NV; ++v) std::memcpy(&b[v], B + k * b_rs + v * L, sizeof(V));
#pragma GCC unroll 32
        for (int i = 0; i < MR; ++i) {
            const T a = A[i * a_rs + k * a_cs];  // broadcast to every lane by the vector arithmetic
#pragma GCC unroll 32
            for (int v = 0; v < NV; ++v) c[i][v] += a * b[v];
        }
    }
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 32
        for (int v = 0; v < NV; ++v) {
            V old{};
            if (accumulate) std::memcpy(&old, C + i * c_rs + v * L, sizeof(V));
            const V sum = old + c[i][v];
            std::memcpy(C + i * c_rs + v * L, &sum, sizeof(V));
        }
    }
}

// The M rows of one column block of NV vectors, in register tiles as tall as the
// accumulators allow: kTileAccumulators / NV rows (with AVX-512: 6 rows of 4 vectors,
// 12 of 2, 24 of 1), then what is left in tiles of 8, 4, 2 and 1 rows. A multiply-add
// waits on the one before it into the same accumulator, so a tile needs about eight
// accumulators to keep both FMA units busy: tiles of a fixed 6 rows gave P·v at d_v 16
// (one vector) six, and the two rows left of a 32-row block two. Which tile computes a
// row changes none of its values: each element is the same chain of multiply-adds.
template <typename T, int NV>
void tile_rows(std::int64_t M, std::int64_t K, const T* A, std::int64_t a_rs, std::int64_t a_cs, const T* B, std::int64_t b_rs,
               T* C, std::int64_t c_rs, bool accumulate) {
    constexpr int MR = kTileAccumulators / NV;
    std::int64_t i = 0;
    auto rows = [&]<int H>(std::integral_constant<int, H>) {
        tile_kernel<T, H, NV>(K, A + i * a_rs, a_rs, a_cs, B, b_rs, C + i * c_rs, c_rs, accumulate);
        i += H;
    };
    // Sixteen rows left (a strip of a causal tile, or a block's last 16) go as two tiles of
    // 8, not 12 and 4: bench_workloads' kernel_flash_fwd_bwd_12x4x64x32, W7's attention,
    // whose products are strips of 16 rows by 2 vectors, runs 4-9% faster that way.
    while (M - i >= MR && !(MR > 8 && M - i == 16)) rows(std::integral_constant<int, MR>{});
    if constexpr (MR > 8) while (M - i >= 8) rows(std::integral_constant<int, 8>{});
    if constexpr (MR > 4) if (M - i >= 4) rows(std::integral_constant<int, 4>{});
    if constexpr (MR > 2) if (M - i >= 2) rows(std::integral_constant<int, 2>{});
    if (M - i >= 1) rows(std::integral_constant<int, 1>{});
}

template <typename T>
void tile_product(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t a_rs, std::int64_t a_cs, const T* B,
                  std::int64_t b_rs, T* C, std::int64_t c_rs, bool accumulate) {
    constexpr int L = TileVec<T>::lanes;
    if (N % L != 0 || K == 0) {
        gemm_builtin<T>(M, N, K, A, a_rs, a_cs, B, b_rs, 1, C, c_rs, accumulate);
        return;
    }
    for (std::int64_t j = 0; j < N; j += kTileVectors * L) {
        switch (std::min<std::int64_t>(kTileVectors, (N - j) / L)) {
            case 1: tile_rows<T, 1>(M, K, A, a_rs, a_cs, B + j, b_rs, C + j, c_rs, accumulate); break;
            case 2: tile_rows<T, 2>(M, K, A, a_rs, a_cs, B + j, b_rs, C + j, c_rs, accumulate); break;
            case 3: tile_rows<T, 3>(M, K, A, a_rs, a_cs, B + j, b_rs, C + j, c_rs, accumulate); break;
            default: tile_rows<T, kTileVectors>(M, K, A, a_rs, a_cs, B + j, b_rs, C + j, c_rs, accumulate); break;
        }
    }
}

}  // namespace attnlab::nn::detail
