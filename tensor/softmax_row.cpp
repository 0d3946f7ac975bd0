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
    // forward that took half of flash_attention's exp time (perf, AVX-512). vec::widen's
    // single vcvtps2pd is not used here: after these shuffles it made flash attention's
    // forward 2% slower (bench/ab.sh --only 'kernel_flash|flash_fwd_T1024').
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

// The same maximum as horizontal_max for lanes that hold no NaN, by halving the vector
// (log2 kLanes steps instead of a dependent step per lane). Lanes in a tie of −0 and +0
// may give the other zero.
float tree_max(VF v) {
#if defined(__AVX512F__)
    // (the maskz forms, as in tree_sum: GCC 12 warns inside the plain ones' headers)
    constexpr __mmask16 all = 0xffff;
    __m512 x = v;
    x = _mm512_maskz_max_ps(all, x, _mm512_maskz_shuffle_f32x4(all, x, x, _MM_SHUFFLE(1, 0, 3, 2)));  // lane i against i ± 8
    x = _mm512_maskz_max_ps(all, x, _mm512_maskz_shuffle_f32x4(all, x, x, _MM_SHUFFLE(2, 3, 0, 1)));  // ± 4
    x = _mm512_maskz_max_ps(all, x, _mm512_maskz_permute_ps(all, x, _MM_SHUFFLE(1, 0, 3, 2)));        // ± 2
    x = _mm512_maskz_max_ps(all, x, _mm512_maskz_permute_ps(all, x, _MM_SHUFFLE(2, 3, 0, 1)));        // ± 1
    return _mm512_cvtss_f32(x);
#else
    float lanes[kLanes];
    std::memcpy(lanes, &v, sizeof lanes);
    for (int w = kLanes / 2; w > 0; w /= 2)
        for (int l = 0; l < w; ++l) lanes[l] = lanes[l + w] > lanes[l] ? lanes[l + w] : lanes[l];
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

namespace {

// x[0, kLanes) with the lanes from `count` on set to `fill`. When the whole vector lies in
// the row (room ≥ kLanes) it is a plain load and a select, not a masked load: the tile
// product has just stored these scores, and a masked load waits for such stores to
// retire instead of taking the data from them (perf annotate: it stalled the sums).
VF load_row(const float* p, std::int64_t count, std::int64_t room, float fill) {
    if (count >= kLanes) return load(p);
    if (room < kLanes) return load_tail(p, count, fill);
    VI lane;
    for (int l = 0; l < kLanes; ++l) lane[l] = l;
    return lane < static_cast<std::int32_t>(count) ? load(p) : splat(fill);
}

// y[0, room) = v's lanes, in one plain store when the row has room for all of them.
void store_row(float* p, VF v, std::int64_t room) {
    if (room >= kLanes) store(p, v);
    else store_tail(p, v, room);
}

}  // namespace

void row_max_rows(const float* x, std::int64_t width, const std::int64_t* n, float* m, std::int64_t rows) {
    for (std::int64_t i = 0; i < rows; ++i) {
        const float* xi = x + i * width;
        VF mi = splat(m[i]);
        for (std::int64_t j = 0; j < n[i]; j += kLanes) {
            const VF v = load_row(xi + j, n[i] - j, width - j, -kInf);
            mi = v > mi ? v : mi;  // NaN compares false: skipped
        }
        m[i] = tree_max(mi);
    }
}

void exp_shifted_sum_rows(float* x, std::int64_t width, const std::int64_t* n, const float* m, double* sums,
                          std::int64_t rows) {
    // The (row, vector) pairs go through exp kBlock at a time: they are independent, so
    // their chains overlap. A row's last vector is padded with −inf, as in
    // exp_shifted_sum_block, so its padding lanes come out 0, which P wants there anyway;
    // the sums add the vectors of a row in order, from 0, as exp_shifted_sum_block does.
    constexpr int kBlock = 16;
    VF t[kBlock];
    float* at[kBlock];
    std::int64_t row_of[kBlock];
    int pending = 0;
    std::int64_t row = -1;  // the row `sum` belongs to
    VF sum{};
    auto flush = [&] {
        for (int b = 0; b < pending; ++b) t[b] = exp_nonpositive(t[b]);
        for (int b = 0; b < pending; ++b) {
            store_row(at[b], t[b], x + (row_of[b] + 1) * width - at[b]);
            if (row_of[b] != row) {
                if (row >= 0) sums[row] = tree_sum(sum);
                sum = VF{}, row = row_of[b];
            }
            sum += t[b];
        }
        pending = 0;
    };
    for (std::int64_t i = 0; i < rows; ++i) {
        float* xi = x + i * width;
        sums[i] = 0;  // stays 0 for a row with no keys
        std::int64_t j = 0;
        for (; j < n[i]; j += kLanes) {
            t[pending] = load_row(xi + j, n[i] - j, width - j, -kInf) - m[i];
            at[pending] = xi + j, row_of[pending] = i;
            if (++pending == kBlock) flush();
        }
        for (; j < width; j += kLanes) store_row(xi + j, VF{}, width - j);  // P = 0 past the row's keys
    }
    flush();
    if (row >= 0) sums[row] = tree_sum(sum);
}

void scale_row(float* y, float a, std::int64_t n) {
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) store(y + j, load(y + j) * a);
    for (; j < n; ++j) y[j] *= a;
}

}  // namespace attnlab::detail
