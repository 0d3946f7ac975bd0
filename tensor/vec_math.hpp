// vec_math.hpp — float math on whole vectors (GCC vector extensions), for the
// elementwise kernels whose scalar libm calls cost more than the matmuls around
// them: softmax's exp (softmax_row.cpp), GELU's erf and exp (unary.cpp).
//
// VF is the widest float vector the target offers (AVX-512: 16 lanes, AVX: 8,
// else 4); GCC lowers the arithmetic to the matching instructions, as for the gemm
// micro-kernel. Internal to the library: tensor/'s kernels and nn/optim.cpp's Adam
// (whose square root GCC will not vectorise on its own) use them.
//
// exp(t) for t ≤ 0, the classic way (Cody–Waite reduction, as in Cephes' expf):
//   k = nearest integer to t / ln 2,   r = t − k·ln 2  (|r| ≤ ln 2 / 2, ln 2 split in two
//   parts so k·ln2_hi is exact),   exp(t) = 2^k · exp(r),
//   exp(r) ≈ 1 + r + r²·P(r), P a degree-5 minimax polynomial (Cephes' coefficients),
//   times 2^k (times_power_of_two).
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace attnlab::detail::vec {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
#elif defined(__AVX__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float VF __attribute__((vector_size(kLanes * sizeof(float))));
typedef std::int32_t VI __attribute__((vector_size(kLanes * sizeof(float))));

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMinArg = -87.33654f;      // ln(2^−126): below it, exp(t) is not a normal float
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;     // few mantissa bits: k·kLn2Hi is exact for |k| ≤ 126
constexpr float kLn2Lo = -2.12194440e-4f;  // ln 2 − kLn2Hi
constexpr float kRound = 12582912.0f;      // 1.5·2^23: (x + kRound) − kRound rounds x to an integer

inline VF load(const float* p) {
    VF v;
    std::memcpy(&v, p, sizeof v);  // one unaligned vector load
    return v;
}
inline void store(float* p, VF v) { std::memcpy(p, &v, sizeof v); }
inline VF splat(float x) { return VF{} + x; }

// A vector of floats widened to doubles, lane by lane: exact, so the same numbers however
// it is done. GCC 12 turns __builtin_convertvector of eight floats to eight doubles into two
// conversions of four, an extract and an insert; AVX-512 converts the eight in one
// instruction: LayerNorm's forward and backward run 8% faster (bench/ab.sh --only
// kernel_layer_norm, against __builtin_convertvector).
// (Through references: a function that took or returned these vectors by value would have
// an ABI that depends on the target's vector width, which GCC warns about without AVX-512.)
template <typename Floats, typename Doubles>
inline void widen(const Floats& f, Doubles& out) {
#if defined(__AVX512F__)
    // Every lane on, so plain vcvtps2pd: the unmasked intrinsic trips -Wuninitialized, as in
    // times_power_of_two below.
    if constexpr (sizeof(Floats) == 32 && sizeof(Doubles) == 64) {
        out = _mm512_maskz_cvtps_pd(static_cast<__mmask8>(0xff), f);
        return;
    }
#endif
    out = __builtin_convertvector(f, Doubles);
}

// A square block of kLanes × kLanes floats, one vector per row, transposed in registers
// (gemm's packing of a column-major B and flash attention's kᵀ use it): log2(kLanes)
// rounds of interleaving the first half of the rows with the second (row 2i takes the
// low halves of rows i and i + kLanes/2, element by element, row 2i+1 the high halves)
// turn rows into columns. Only moves values.
// Element n of the result: element Offset + n/2 of a (n even) or of b (n odd). Constant
// indices, so __builtin_shufflevector, which GCC and clang both have, is one instruction.
template <int Offset, int... N>
inline VF interleave(const VF& a, const VF& b, std::integer_sequence<int, N...>) {
    constexpr int W = static_cast<int>(sizeof...(N));
    return __builtin_shufflevector(a, b, (Offset + N / 2 + (N % 2) * W)...);
}

inline void transpose_block(VF (&v)[kLanes]) {
    constexpr int W = kLanes;
    constexpr auto lanes = std::make_integer_sequence<int, W>{};
#pragma GCC unroll 8
    for (int round = 1; round < W; round *= 2) {
        VF t[W];
#pragma GCC unroll 16
        for (int i = 0; i < W / 2; ++i) {
            t[2 * i] = interleave<0>(v[i], v[i + W / 2], lanes);          // low halves, element by element
            t[2 * i + 1] = interleave<W / 2>(v[i], v[i + W / 2], lanes);  // high halves
        }
#pragma GCC unroll 16
        for (int i = 0; i < W; ++i) v[i] = t[i];
    }
}

// y[c, r] = x[r, c] for one kLanes × kLanes block: a vector load per row of x (rows x_ld
// floats apart), transpose_block, a vector store per row of y (y_ld apart).
inline void transpose_block(const float* x, std::int64_t x_ld, float* y, std::int64_t y_ld) {
    VF v[kLanes];
#pragma GCC unroll 16
    for (int r = 0; r < kLanes; ++r) v[r] = load(x + r * x_ld);
    transpose_block(v);
#pragma GCC unroll 16
    for (int c = 0; c < kLanes; ++c) store(y + c * y_ld, v[c]);
}

// The last `count` (< kLanes) elements, padded with `fill` to a whole vector. With
// AVX-512 one masked load or store (the lanes past `count` are never touched, so they
// cannot fault) rather than a copy through a buffer: a short row (a softmax over 8 keys)
// is all tail.
inline VF load_tail(const float* p, std::int64_t count, float fill) {
#if defined(__AVX512F__)
    return _mm512_mask_loadu_ps(splat(fill), static_cast<__mmask16>((1u << count) - 1), p);
#else
    float buf[kLanes];
    for (int i = 0; i < kLanes; ++i) buf[i] = i < count ? p[i] : fill;
    return load(buf);
#endif
}
inline void store_tail(float* p, VF v, std::int64_t count) {
#if defined(__AVX512F__)
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << count) - 1), v);
#else
    float buf[kLanes];
    store(buf, v);
    for (std::int64_t i = 0; i < count; ++i) p[i] = buf[i];
#endif
}

// x as computed and rounded, for a float or a VF: the compiler may not fuse the operation
// that made it into a later one. GCC contracts a * b − c into one fused multiply-subtract
// (one rounding instead of two) where it sees fit, and may see fit in a vector loop and
// not in its scalar tail, or in one caller and not another (nn/optim.cpp's AdamW did).
// An empty asm that claims to change x in its register is a wall no contraction crosses.
template <typename V>
inline V unfused(V x) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__("" : "+v"(x));
#else
    volatile V kept = x;
    x = kept;
#endif
    return x;
}

// √v per lane, correctly rounded as the scalar std::sqrt (IEEE requires it of both), so a
// loop that uses it gives the scalar loop's bits. GCC vectorises no std::sqrt while
// errno must be set for a negative argument (-fmath-errno, the default), and per-function
// optimize("no-math-errno") does not lift that; the instruction is named here instead.
inline VF sqrt(VF v) {
#if defined(__AVX512F__)
    return _mm512_maskz_sqrt_ps(__mmask16(0xffff), v);  // (GCC 12 warns falsely inside _mm512_sqrt_ps)
#elif defined(__AVX__)
    return _mm256_sqrt_ps(v);
#elif defined(__SSE2__)
    return _mm_sqrt_ps(v);
#else
    for (int i = 0; i < kLanes; ++i) v[i] = __builtin_sqrtf(v[i]);
    return v;
#endif
}

// p · 2^k for whole numbers k in [−126, 0]: 2^k built in a float's exponent bits, then
// one product, rounded as any product is (a result below the normal range too).
inline VF times_power_of_two_bits(VF p, VF k) {
    const VI bits = (__builtin_convertvector(k, VI) + 127) << 23;
    VF two_k;
    std::memcpy(&two_k, &bits, sizeof two_k);
    return p * two_k;
}

// The same product in one instruction where there is one (AVX-512's vscalefps, which
// rounds it the same way: tests/tensor/test_softmax.cpp compares the two for every k),
// instead of four: GELU runs 4% faster and flash attention's forward 2% (bench/ab.sh
// --only 'kernel_gelu|flash_fwd_T2048', against the bits version).
inline VF times_power_of_two(VF p, VF k) {
#if defined(__AVX512F__)
    // The masked form with every lane on is plain vscalefps; GCC 12's _mm512_scalef_ps
    // passes an undefined vector as its merge source, which -Wuninitialized reports.
    return _mm512_mask_scalef_ps(p, static_cast<__mmask16>(0xffff), p, k);
#else
    return times_power_of_two_bits(p, k);
#endif
}

// exp(t) for t ≤ 0: relative error ≤ 2e-7; exp(−inf) = 0, NaN stays NaN, results
// below 2^−126 flush to 0.
inline VF exp_nonpositive(VF t) {
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
    const VF e = times_power_of_two(p, k);
    return normal ? e : (t != t ? t : VF{});  // NaN stays NaN; the rest is 0
}

// erfc(z) for z ≥ 0 as exp(−z² + P(u))·u with u = 1/(1 + z/2): the Chebyshev fit of
// Numerical Recipes (section 6.2, erfcc), relative error < 1.2e-7 for every z ≥ 0, so both
// tails of the normal CDF keep their relative accuracy (1 − erf(z) would not).
// In three steps, erfc_nonnegative below composing them, so that a kernel can run each
// step over a block of vectors before the next (GELU's, unary.cpp): one vector's chain
// of a division, ten dependent FMAs and an exp is too long for the core to overlap
// with the next vector's; a block of independent chains per step is not.
inline VF erfc_u(VF z) { return 1.0f / (1.0f + 0.5f * z); }

// The exponent −z² + P(u), clamped to ≤ 0 for exp_nonpositive.
inline VF erfc_exponent(VF z, VF u) {
    VF p = splat(0.17087277f);
    p = p * u - 0.82215223f;
    p = p * u + 1.48851587f;
    p = p * u - 1.13520398f;
    p = p * u + 0.27886807f;
    p = p * u - 0.18628806f;
    p = p * u + 0.09678418f;
    p = p * u + 0.37409196f;
    p = p * u + 1.00002368f;
    p = p * u - 1.26551223f;
    VF t = p - z * z;
    return t < 0.0f ? t : VF{};  // ≤ 0 up to rounding (it is 3e-8 at z = 0)
}

inline VF erfc_nonnegative(VF z) {
    const VF u = erfc_u(z);
    return u * exp_nonpositive(erfc_exponent(z, u));
}

}  // namespace attnlab::detail::vec
