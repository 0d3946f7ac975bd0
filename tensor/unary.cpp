// unary.cpp — elementwise functions of one tensor and their derivatives.
//
// unary_map applies f to every element (flat loop when contiguous, row walk
// otherwise) into a new contiguous tensor, split over threads when it is large.
// Where the derivative is cheapest in terms of the output (exp, tanh, sigmoid),
// backward captures out.detach().
#include <algorithm>
#include <cmath>
#include <numbers>

#include "autograd/node.hpp"
#include "tensor/gelu_run.hpp"
#include "tensor/iter.hpp"
#include "tensor/ops.hpp"
#include "tensor/vec_math.hpp"

namespace attnlab {

template <typename F>
static Tensor unary_map(const char* name, const Tensor& x, F f) {
    Tensor out = empty(x.shape(), x.dtype());
    dispatch_float(x.dtype(), name, [&]<typename T>(T) {
        T* po = out.data_ptr<T>();
        if (x.is_contiguous()) {
            const T* px = x.const_data_ptr<T>();
            parallel_for_elements(x.numel(), 1, [&](std::int64_t lo, std::int64_t hi) {
                for (std::int64_t i = lo; i < hi; ++i) po[i] = static_cast<T>(f(px[i]));
            });
            return;
        }
        const T* px = static_cast<const T*>(x.impl()->storage->data);
        parallel_for_each_row<2>(x.shape(), {x.strides(), out.strides()}, {x.offset(), 0},
                                 [&](const std::array<std::int64_t, 2>& o, std::int64_t n,
                                     const std::array<std::int64_t, 2>& s) {
                                     for (std::int64_t i = 0; i < n; ++i)
                                         po[o[1] + i] = static_cast<T>(f(px[o[0] + i * s[0]]));
                                 });
    });
    return out;
}

Tensor neg(const Tensor& x) {
    Tensor out = unary_map("neg", x, [](auto v) { return -v; });
    record(out, "neg", {x}, [](const Tensor& g) -> Grads { return {neg(g)}; });
    return out;
}

Tensor exp(const Tensor& x) {
    Tensor out = unary_map("exp", x, [](auto v) { return std::exp(v); });
    record(out, "exp", {x}, [y = out.detach()](const Tensor& g) -> Grads { return {mul(g, y)}; });  // (eˣ)' = eˣ
    return out;
}

Tensor log(const Tensor& x) {
    Tensor out = unary_map("log", x, [](auto v) { return std::log(v); });
    record(out, "log", {x}, [x](const Tensor& g) -> Grads { return {div(g, x)}; });  // (ln x)' = 1/x
    return out;
}

Tensor sqrt(const Tensor& x) {
    Tensor out = unary_map("sqrt", x, [](auto v) { return std::sqrt(v); });
    record(out, "sqrt", {x}, [y = out.detach()](const Tensor& g) -> Grads {
        return {div(g, mul(y, scalar(2.0, y.dtype())))};  // (√x)' = 1/(2√x)
    });
    return out;
}

Tensor abs(const Tensor& x) {
    Tensor out = unary_map("abs", x, [](auto v) { return std::abs(v); });
    record(out, "abs", {x}, [x](const Tensor& g) -> Grads {
        // sign(x), with 0 at the kink as in PyTorch
        Tensor sign = unary_map("abs", x, [](auto v) { return (v > 0) - (v < 0); });
        return {mul(g, sign)};
    });
    return out;
}

Tensor tanh(const Tensor& x) {
    Tensor out = unary_map("tanh", x, [](auto v) { return std::tanh(v); });
    record(out, "tanh", {x}, [y = out.detach()](const Tensor& g) -> Grads {
        return {mul(g, sub(ones_like(y), mul(y, y)))};  // tanh' = 1 - tanh²
    });
    return out;
}

Tensor sigmoid(const Tensor& x) {
    // Two branches so that exp never overflows: for v < 0 use eᵛ/(1+eᵛ).
    Tensor out = unary_map("sigmoid", x, [](auto v) {
        using T = decltype(v);
        if (v >= 0) return T(1) / (T(1) + std::exp(-v));
        T e = std::exp(v);
        return e / (T(1) + e);
    });
    record(out, "sigmoid", {x}, [y = out.detach()](const Tensor& g) -> Grads {
        return {mul(g, mul(y, sub(ones_like(y), y)))};  // σ' = σ(1 - σ)
    });
    return out;
}

Tensor relu(const Tensor& x) {
    Tensor out = unary_map("relu", x, [](auto v) { return v > 0 ? v : decltype(v)(0); });
    record(out, "relu", {x}, [x](const Tensor& g) -> Grads {
        return {mul(g, gt(x, zeros(Shape{}, x.dtype())))};  // 1 where x > 0; 0 at the kink, as PyTorch
    });
    return out;
}

// GELU of a float run, vectorised (vec_math.hpp): y = x·Φ(x) and, when dydx is not
// null, Φ(x) + x·φ(x). Φ(x) = ½·erfc(|x|/√2) for x < 0 and 1 − ½·erfc(|x|/√2) above;
// relative error ≈ 2e-7 against the scalar formula in gelu() below, which it replaces
// for float32; float64 keeps the formula (tests/tensor/test_elementwise.cpp compares the two).
void detail::gelu_float_run(const float* x, float* y, float* dydx, std::int64_t n) {
    using namespace detail::vec;
    constexpr float kInvSqrt2 = static_cast<float>(std::numbers::sqrt2 / 2);
    constexpr float kInvSqrt2Pi = static_cast<float>(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
    // Per vector v: z = |v|/√2, cdf = ½·erfc(z) or 1 − ½·erfc(z), y = v·cdf. Each step of
    // erfc runs over a block of kBlock vectors before the next (see vec_math.hpp): every
    // element gets the same operations in the same order as erfc_nonnegative one vector
    // at a time, so the same bits (tests/tensor/test_elementwise.cpp checks), while the
    // block's independent chains overlap in the core (bench_workloads --only kernel_gelu).
    constexpr int kBlock = 16;
    VF v[kBlock], z[kBlock], u[kBlock], t[kBlock];
    for (std::int64_t i = 0; i < n; i += kBlock * kLanes) {
        const std::int64_t count = std::min<std::int64_t>(n - i, kBlock * kLanes);
        const int vectors = static_cast<int>((count + kLanes - 1) / kLanes);  // the last may be partial
        for (int j = 0; j < vectors; ++j) {
            const std::int64_t left = count - j * kLanes;
            v[j] = left >= kLanes ? load(x + i + j * kLanes) : load_tail(x + i + j * kLanes, left, 0.0f);
            z[j] = (v[j] < 0.0f ? -v[j] : v[j]) * kInvSqrt2;
            u[j] = erfc_u(z[j]);
        }
        for (int j = 0; j < vectors; ++j) t[j] = erfc_exponent(z[j], u[j]);
        for (int j = 0; j < vectors; ++j) {
            const VF half_erfc = 0.5f * (u[j] * exp_nonpositive(t[j]));
            const VF cdf = v[j] < 0.0f ? half_erfc : 1.0f - half_erfc;
            const VF out = v[j] * cdf;
            const std::int64_t left = count - j * kLanes;
            float* py = y + i + j * kLanes;
            if (left >= kLanes) store(py, out);
            else store_tail(py, out, left);
            if (!dydx) continue;
            const VF d = cdf + v[j] * exp_nonpositive(-0.5f * v[j] * v[j]) * kInvSqrt2Pi;  // Φ + x·φ
            float* pd = dydx + i + j * kLanes;
            if (left >= kLanes) store(pd, d);
            else store_tail(pd, d, left);
        }
    }
}

Tensor gelu(const Tensor& x) {
    // GELU(x) = x·Φ(x) = ½x(1 + erf(x/√2)), the exact form (PyTorch's approximate='none').
    // GELU'(x) = Φ(x) + x·φ(x), φ the standard normal density. When a gradient will be
    // needed, the derivative is computed in the same pass: erf is the expensive part,
    // and this way it is evaluated once per element, not once forward and once backward.
    const bool want_grad = needs_grad({x});
    Tensor xc = contiguous(x);
    Tensor out = empty(x.shape(), x.dtype());
    Tensor deriv = want_grad ? empty(x.shape(), x.dtype()) : Tensor();
    dispatch_float(x.dtype(), "gelu", [&]<typename T>(T) {
        const T* px = xc.const_data_ptr<T>();
        T* py = out.data_ptr<T>();
        T* pd = want_grad ? deriv.data_ptr<T>() : nullptr;
        if constexpr (std::is_same_v<T, float>) {
            // Each element's value is its own (no lane sees another), so chunks change no bits.
            return parallel_for_elements(x.numel(), 1, [&](std::int64_t lo, std::int64_t hi) {
                detail::gelu_float_run(px + lo, py + lo, pd ? pd + lo : nullptr, hi - lo);
            });
        }
        for (std::int64_t i = 0, n = x.numel(); i < n; ++i) {  // the formula, as written above (float64)
            const T v = px[i];
            const T cdf = T(0.5) * (T(1) + std::erf(v * T(std::numbers::sqrt2 / 2)));
            py[i] = v * cdf;
            if (pd) pd[i] = cdf + v * std::exp(T(-0.5) * v * v) * T(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
        }
    });
    record(out, "gelu", {x}, [deriv](const Tensor& g) -> Grads { return {mul(g, deriv)}; });
    return out;
}

}  // namespace attnlab
