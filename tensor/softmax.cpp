// softmax.cpp — softmax and log_softmax along a dim, with the masked-row rule.
//
// Stable form: softmax(x)ᵢ = exp(xᵢ − m) / Σⱼ exp(xⱼ − m), m = maxⱼ xⱼ, so no exp
// ever overflows. Masked entries are −inf and become exactly 0.
//
// The rule for a fully masked row (every entry −inf, e.g. a padding query that
// may attend to nothing): the naive formula gives (−inf) − (−inf) = NaN. attnlab
// defines the result as an all-zero row with zero gradient — for softmax and
// log_softmax alike — so one padded row can never poison a batch with NaN.
// PyTorch returns NaN there; this is a documented difference.
//
// The loops below are the formula, for every dtype and layout. Float rows along a
// contiguous last dim (attention's case) take the vectorised, threaded kernels of
// tensor/softmax_fast.cpp instead, at one dispatch point per direction, unless
// reference mode (tensor/reference.hpp) is on.
#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"
#include "tensor/reference.hpp"
#include "tensor/softmax_fast.hpp"

namespace attnlab {

// y = softmax(x) or log_softmax(x) along d; `alive` gets 1 per row with a finite max, else 0.
static Tensor softmax_forward(const Tensor& x, std::int64_t d, bool log_form, Tensor* alive) {
    std::int64_t outer = 1, n = x.shape()[d], inner = 1;
    for (std::int64_t i = 0; i < d; ++i) outer *= x.shape()[i];
    for (std::int64_t i = d + 1; i < x.dim(); ++i) inner *= x.shape()[i];
    Tensor xc = contiguous(x);
    Tensor y = empty(x.shape(), x.dtype());
    Shape row_shape = x.shape();
    row_shape[d] = 1;
    if (alive) *alive = empty(row_shape, x.dtype());
    if (x.dtype() == kFloat32 && inner == 1 && !reference_mode()) {
        // fast path: see tensor/softmax_fast.cpp; the loops below are what it computes
        detail::softmax_rows_fast(xc.const_data_ptr<float>(), y.data_ptr<float>(), alive ? alive->data_ptr<float>() : nullptr,
                                  outer, n, log_form);
        return y;
    }
    dispatch_float(x.dtype(), log_form ? "log_softmax" : "softmax", [&]<typename T>(T) {
        const T* px = xc.const_data_ptr<T>();
        T* py = y.data_ptr<T>();
        T* pa = alive ? alive->data_ptr<T>() : nullptr;
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < inner; ++i) {
                const T* xr = px + o * n * inner + i;  // the row, stride `inner`
                T* yr = py + o * n * inner + i;
                // pass 1: the row max
                T m = -std::numeric_limits<T>::infinity();
                for (std::int64_t j = 0; j < n; ++j) m = std::max(m, xr[j * inner]);
                if (pa) pa[o * inner + i] = m == -std::numeric_limits<T>::infinity() ? T(0) : T(1);
                if (m == -std::numeric_limits<T>::infinity()) {  // fully masked (or empty) row
                    for (std::int64_t j = 0; j < n; ++j) yr[j * inner] = T(0);
                    continue;
                }
                // pass 2: exponentials and their sum (in double: rows can be long)
                double s = 0;
                for (std::int64_t j = 0; j < n; ++j) {
                    T e = std::exp(xr[j * inner] - m);
                    if (!log_form) yr[j * inner] = e;
                    s += e;
                }
                // pass 3: normalise
                if (log_form) {
                    T log_s = static_cast<T>(std::log(s));
                    for (std::int64_t j = 0; j < n; ++j) yr[j * inner] = xr[j * inner] - m - log_s;
                } else {
                    T inv = static_cast<T>(1.0 / s);
                    for (std::int64_t j = 0; j < n; ++j) yr[j * inner] *= inv;
                }
            }
    });
    return y;
}

// dx = p ⊙ (g − Σⱼ gⱼpⱼ), as composed ops: it serves every dtype and layout, and it is the
// formula the fused kernel (tensor/softmax_fast.cpp) is tested against. A fully masked row has p = 0, so its
// gradient is 0.
Tensor softmax_backward_composed(const Tensor& p, const Tensor& g, std::int64_t d) {
    return mul(p, sub(g, sum(mul(g, p), d, true)));
}

Tensor softmax_backward(const Tensor& p, const Tensor& g, std::int64_t d) {
    if (reference_mode() || p.dtype() != kFloat32 || g.dtype() != kFloat32 || d != p.dim() - 1 || g.shape() != p.shape() ||
        !p.is_contiguous())
        return softmax_backward_composed(p, g, d);
    return detail::softmax_backward_fast(p, g);  // fast path: see tensor/softmax_fast.cpp; the line above is what it computes
}

Tensor softmax(const Tensor& x, std::int64_t dim) {
    const std::int64_t d = normalize_dim(dim, x.dim(), "softmax");
    Tensor y = softmax_forward(x, d, false, nullptr);
    record(y, "softmax", {x}, [d, p = y.detach()](const Tensor& g) -> Grads { return {softmax_backward(p, g, d)}; });
    return y;
}

Tensor log_softmax(const Tensor& x, std::int64_t dim) {
    const std::int64_t d = normalize_dim(dim, x.dim(), "log_softmax");
    Tensor alive;
    Tensor y = softmax_forward(x, d, true, &alive);
    record(y, "log_softmax", {x}, [d, x, alive](const Tensor& g) -> Grads {
        // dx = g − softmax(x) ⊙ Σⱼ gⱼ, and 0 on fully masked rows (alive = 0)
        return {mul(sub(g, mul(softmax(x, d), sum(g, d, true))), alive)};
    });
    return y;
}

}  // namespace attnlab
