// softmax_row.cpp — see softmax_row.hpp.
//
// The vectorised exp is in vec_math.hpp (shared with GELU).
#include "tensor/softmax_row.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "tensor/vec_math.hpp"

namespace attnlab::detail {
namespace {

using namespace vec;
typedef float VH __attribute__((vector_size(kLanes / 2 * sizeof(float))));     // half a VF
typedef double VD __attribute__((vector_size(kLanes / 2 * sizeof(double))));   // a VH, widened

// A row sum in double lanes: float lanes would lose the small terms of a long row
// (1.4 million terms summed in float lanes came out 3e-5 low in the test).
struct DoubleSum {
    VD lo{}, hi{};
    // The halves come out by a register shuffle: splitting e through memory (memcpy)
    // made GCC store the whole vector and reload half of it, a failed store-to-load
    // forward that took half of flash_attention's exp time (perf, AVX-512).
    void add(VF e) {
        lo += __builtin_convertvector(half<0>(e, std::make_integer_sequence<int, kLanes / 2>{}), VD);
        hi += __builtin_convertvector(half<kLanes / 2>(e, std::make_integer_sequence<int, kLanes / 2>{}), VD);
    }
    template <int First, int... I>
    static VH half(VF e, std::integer_sequence<int, I...>) { return __builtin_shufflevector(e, e, (First + I)...); }
    double total() const {
        double s = 0;
        for (int i = 0; i < kLanes / 2; ++i) s += lo[i];
        for (int i = 0; i < kLanes / 2; ++i) s += hi[i];
        return s;
    }
};

// The lanes of v added in double as a tree, lane i += lane i + w for w = kLanes/2, ..., 1
// (log2 kLanes steps, not a chain of kLanes dependent adds, which cost as much as a third
// of a block row's exponentials). With AVX-512 each step is one vector add of the two
// halves, the same additions in the same order as the loop; a short row (flash
// attention's rows of 32 keys) is mostly this. (GCC lowers the same steps written with
// vector extensions through memory, no faster than the loop; and the maskz forms of
// the intrinsics because GCC 12 warns falsely inside the plain ones.)
double tree_sum(VF v) {
#if defined(__AVX512F__)
    const __m512d f = _mm512_castps_pd(v);
    const __m512d lo = _mm512_maskz_cvtps_pd(0xff, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xff, f, 0)));
    const __m512d hi = _mm512_maskz_cvtps_pd(0xff, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xff, f, 1)));
    const __m512d s8 = _mm512_add_pd(lo, hi);
    const __m256d s4 = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xff, s8, 0), _mm512_maskz_extractf64x4_pd(0xff, s8, 1));
    const __m128d s2 = _mm_add_pd(_mm256_castpd256_pd128(s4), _mm256_extractf128_pd(s4, 1));
    return _mm_cvtsd_f64(s2) + _mm_cvtsd_f64(_mm_unpackhi_pd(s2, s2));
#else
    double lanes[kLanes];
    for (int i = 0; i < kLanes; ++i) lanes[i] = v[i];
    for (int w = kLanes / 2; w > 0; w /= 2)
        for (int i = 0; i < w; ++i) lanes[i] += lanes[i + w];
    return lanes[0];
#endif
}

float horizontal_max(VF v) {
    float m = -kInf;
    for (int i = 0; i < kLanes; ++i) m = std::max(m, v[i]);
    return m;
}

}  // namespace

float row_max(const float* x, std::int64_t n) {
    VF m = splat(-kInf);
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        const VF v = load(x + j);
        m = v > m ? v : m;  // NaN compares false: skipped
    }
    if (j < n) {
        const VF v = load_tail(x + j, n - j, -kInf);
        m = v > m ? v : m;
    }
    return horizontal_max(m);
}

double exp_shifted_sum(const float* x, float m, float* y, std::int64_t n) {
    DoubleSum sum;
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        const VF e = exp_nonpositive(load(x + j) - m);
        if (y) store(y + j, e);
        sum.add(e);
    }
    if (j < n) {
        const VF e = exp_nonpositive(load_tail(x + j, n - j, -kInf) - m);  // padding: exp(−inf) = 0
        if (y) store_tail(y + j, e, n - j);
        sum.add(e);
    }
    return sum.total();
}

double exp_shifted_sum_block(const float* x, float m, float* y, std::int64_t n) {
    VF sum{};  // float lanes: a block row is short (flash_attention's 512 keys: 32 terms a lane)
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        const VF e = exp_nonpositive(load(x + j) - m);
        store(y + j, e);
        sum += e;
    }
    if (j < n) {
        const VF e = exp_nonpositive(load_tail(x + j, n - j, -kInf) - m);  // padding: exp(−inf) = 0
        store_tail(y + j, e, n - j);
        sum += e;
    }
    return tree_sum(sum);
}

void scale_row(float* y, float a, std::int64_t n) {
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) store(y + j, load(y + j) * a);
    for (; j < n; ++j) y[j] *= a;
}

}  // namespace attnlab::detail
