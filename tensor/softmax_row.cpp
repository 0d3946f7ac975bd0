// softmax_row.cpp — see softmax_row.hpp.
//
// exp(t) for t ≤ 0, the classic way (Cody–Waite reduction, as in Cephes' expf):
//   k = nearest integer to t / ln 2,   r = t − k·ln 2  (|r| ≤ ln 2 / 2, ln 2 split in two
//   parts so k·ln2_hi is exact),   exp(t) = 2^k · exp(r),
//   exp(r) ≈ 1 + r + r²·P(r), P a degree-5 minimax polynomial (Cephes' coefficients),
//   2^k built directly in the float's exponent bits.
#include "tensor/softmax_row.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace attnlab::detail {
namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#elif defined(__AVX__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float VF __attribute__((vector_size(kLanes * sizeof(float))));
typedef std::int32_t VI __attribute__((vector_size(kLanes * sizeof(float))));
typedef float VH __attribute__((vector_size(kLanes / 2 * sizeof(float))));     // half a VF
typedef double VD __attribute__((vector_size(kLanes / 2 * sizeof(double))));   // a VH, widened

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMinArg = -87.33654f;      // ln(2^−126): below it, exp(t) is not a normal float
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;     // few mantissa bits: k·kLn2Hi is exact for |k| ≤ 126
constexpr float kLn2Lo = -2.12194440e-4f;  // ln 2 − kLn2Hi
constexpr float kRound = 12582912.0f;      // 1.5·2^23: (x + kRound) − kRound rounds x to an integer

VF load(const float* p) {
    VF v;
    std::memcpy(&v, p, sizeof v);  // one unaligned vector load
    return v;
}
void store(float* p, VF v) { std::memcpy(p, &v, sizeof v); }
VF splat(float x) { return VF{} + x; }

// The last n % kLanes elements, padded with `fill` to a whole vector.
VF load_tail(const float* p, std::int64_t count, float fill) {
    float buf[kLanes];
    for (int i = 0; i < kLanes; ++i) buf[i] = i < count ? p[i] : fill;
    return load(buf);
}
void store_tail(float* p, VF v, std::int64_t count) {
    float buf[kLanes];
    store(buf, v);
    for (std::int64_t i = 0; i < count; ++i) p[i] = buf[i];
}

VF exp_nonpositive(VF t) {
    const VI normal = t >= kMinArg;            // false for −inf, NaN and tiny results
    const VF c = normal ? t : splat(kMinArg);  // a safe argument for the arithmetic below
    const VF k = (c * kLog2e + kRound) - kRound;
    const VF r = (c - k * kLn2Hi) - k * kLn2Lo;
    VF p = splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    const VI bits = (__builtin_convertvector(k, VI) + 127) << 23;  // 2^k, k in [−126, 0]
    VF two_k;
    std::memcpy(&two_k, &bits, sizeof two_k);
    const VF e = p * two_k;
    return normal ? e : (t != t ? t : VF{});  // NaN stays NaN; the rest is 0
}

// A row sum in double lanes: float lanes would lose the small terms of a long row
// (1.4 million terms summed in float lanes came out 3e-5 low in the test).
struct DoubleSum {
    VD lo{}, hi{};
    void add(VF e) {
        VH a, b;
        std::memcpy(&a, &e, sizeof a);
        std::memcpy(&b, reinterpret_cast<const char*>(&e) + sizeof a, sizeof b);
        lo += __builtin_convertvector(a, VD);
        hi += __builtin_convertvector(b, VD);
    }
    double total() const {
        double s = 0;
        for (int i = 0; i < kLanes / 2; ++i) s += lo[i];
        for (int i = 0; i < kLanes / 2; ++i) s += hi[i];
        return s;
    }
};

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

void scale_row(float* y, float a, std::int64_t n) {
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) store(y + j, load(y + j) * a);
    for (; j < n; ++j) y[j] *= a;
}

}  // namespace attnlab::detail
