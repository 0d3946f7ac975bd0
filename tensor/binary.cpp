// binary.cpp — elementwise ops of two (or three) tensors, with NumPy broadcasting.
//
// One kernel, binary_map, serves every op: it broadcasts the shapes, takes a flat
// loop when both inputs are contiguous and already the output's shape, and walks
// rows with broadcast strides otherwise; either loop splits over threads once the
// output is large (parallel_for_elements: the same bits at any thread count). Each op below is then its arithmetic in
// one lambda plus its backward; every backward ends in sum_to, which folds the
// gradient back over the dims broadcasting stretched.
//
// Both inputs must have the same dtype: attnlab does not promote silently.
#include <cmath>

#include "autograd/node.hpp"
#include "tensor/iter.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

static void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
    if (!a.defined() || !b.defined()) throw ValueError(std::string(op) + ": undefined tensor argument");
    if (a.dtype() != b.dtype())
        throw ValueError(std::string(op) + ": dtypes differ: " + dtype_name(a.dtype()) + " " + a.shape().str() +
                         " and " + dtype_name(b.dtype()) + " " + b.shape().str() + " (convert one with .to())");
}

template <typename Op>
static Tensor binary_map(const char* name, const Tensor& a, const Tensor& b, Op op) {
    check_same_dtype(name, a, b);
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), name);
    Tensor out = empty(shape, a.dtype());
    dispatch_float(a.dtype(), name, [&]<typename T>(T) {
        T* po = out.data_ptr<T>();
        if (a.shape() == shape && b.shape() == shape && a.is_contiguous() && b.is_contiguous()) {
            const T* pa = a.const_data_ptr<T>();
            const T* pb = b.const_data_ptr<T>();
            parallel_for_elements(out.numel(), 1, [&](std::int64_t lo, std::int64_t hi) {
                for (std::int64_t i = lo; i < hi; ++i) po[i] = static_cast<T>(op(pa[i], pb[i]));
            });
            return;
        }
        const T* pa = static_cast<const T*>(a.impl()->storage->data);
        const T* pb = static_cast<const T*>(b.impl()->storage->data);
        parallel_for_each_row<3>(shape, {broadcast_strides(a, shape), broadcast_strides(b, shape), out.strides()},
                                 {a.offset(), b.offset(), 0},
                                 [&](const std::array<std::int64_t, 3>& o, std::int64_t n,
                                     const std::array<std::int64_t, 3>& s) {
                            const T *ra = pa + o[0], *rb = pb + o[1];
                            T* ro = po + o[2];
                            // The common layouts get loops the compiler vectorises: both rows
                            // contiguous (a bias added to each row), or one side a scalar (x·s).
                            if (s[0] == 1 && s[1] == 1) {
                                for (std::int64_t i = 0; i < n; ++i) ro[i] = static_cast<T>(op(ra[i], rb[i]));
                                return;
                            }
                            if (s[0] == 1 && s[1] == 0) {
                                const T b0 = rb[0];
                                for (std::int64_t i = 0; i < n; ++i) ro[i] = static_cast<T>(op(ra[i], b0));
                                return;
                            }
                            for (std::int64_t i = 0; i < n; ++i) ro[i] = static_cast<T>(op(ra[i * s[0]], rb[i * s[1]]));
                        });
    });
    return out;
}

Tensor add(const Tensor& a, const Tensor& b) {
    Tensor out = binary_map("add", a, b, [](auto x, auto y) { return x + y; });
    record(out, "add", {a, b}, [sa = a.shape(), sb = b.shape()](const Tensor& g) -> Grads {
        return {sum_to(g, sa), sum_to(g, sb)};  // d(a+b)/da = d(a+b)/db = 1
    });
    return out;
}

// One row of dst += src: restrict-qualified (distinct storages), so it vectorises
// without a runtime alias check.
template <typename T>
static void add_row(std::int64_t n, T* __restrict dst, const T* __restrict src) {
    for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(dst[i] + src[i]);
}

void add_(const Tensor& dst, const Tensor& src) {
    check_same_dtype("add_", dst, src);
    if (GradMode::enabled() && (dst.requires_grad() || src.requires_grad()))
        throw AutogradError("add_: in-place add with a tensor that requires grad would lose its gradient; "
                            "use add(), or NoGradGuard");
    if (broadcast_shapes(dst.shape(), src.shape(), "add_") != dst.shape())
        throw ShapeError("add_: " + src.shape().str() + " cannot be broadcast to the destination's " + dst.shape().str());
    // The case it is for, a bias row added to every row of a fresh result (Linear in
    // inference): src is dst's last dims (after any leading 1s), both contiguous, in
    // different storages. Any other layout goes through add() and copy_, which also
    // keeps overlapping views of one storage right.
    const Shape& ds = dst.shape();
    const Shape& ss = src.shape();
    std::int64_t lead = 0;  // src's leading size-1 dims
    while (lead < ss.size() && ss[lead] == 1) ++lead;
    bool trailing = ss.size() - lead <= ds.size();
    for (std::int64_t i = lead; trailing && i < ss.size(); ++i) trailing = ss[i] == ds[ds.size() - ss.size() + i];
    const std::int64_t n = src.numel();
    if (!trailing || n == 0 || !dst.is_contiguous() || !src.is_contiguous() ||
        dst.impl()->storage == src.impl()->storage) {
        copy_(dst, add(dst, src));
        return;
    }
    dst.impl()->storage->mark_written();
    dispatch_float(dst.dtype(), "add_", [&]<typename T>(T) {
        T* pd = dst.data_ptr<T>();
        const T* ps = src.const_data_ptr<T>();
        parallel_for_elements(dst.numel() / n, n, [&](std::int64_t lo, std::int64_t hi) {
            for (std::int64_t r = lo; r < hi; ++r) add_row(n, pd + r * n, ps);
        });
    });
}

Tensor sub(const Tensor& a, const Tensor& b) {
    Tensor out = binary_map("sub", a, b, [](auto x, auto y) { return x - y; });
    record(out, "sub", {a, b}, [sa = a.shape(), sb = b.shape()](const Tensor& g) -> Grads {
        return {sum_to(g, sa), sum_to(neg(g), sb)};  // d(a-b)/db = -1
    });
    return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
    Tensor out = binary_map("mul", a, b, [](auto x, auto y) { return x * y; });
    record(out, "mul", {a, b}, [a, b](const Tensor& g) -> Grads {
        return {a.requires_grad() ? sum_to(mul(g, b), a.shape()) : Tensor(),  // d(ab)/da = b
                b.requires_grad() ? sum_to(mul(g, a), b.shape()) : Tensor()};
    });
    return out;
}

Tensor div(const Tensor& a, const Tensor& b) {
    Tensor out = binary_map("div", a, b, [](auto x, auto y) { return x / y; });
    record(out, "div", {a, b}, [a, b](const Tensor& g) -> Grads {
        return {a.requires_grad() ? sum_to(div(g, b), a.shape()) : Tensor(),  // d(a/b)/da = 1/b
                b.requires_grad() ? sum_to(neg(div(mul(g, a), mul(b, b))), b.shape()) : Tensor()};  // -a/b²
    });
    return out;
}

Tensor pow(const Tensor& a, const Tensor& b) {
    Tensor out = binary_map("pow", a, b, [](auto x, auto y) { return std::pow(x, y); });
    record(out, "pow", {a, b}, [a, b, y = out.detach()](const Tensor& g) -> Grads {
        return {a.requires_grad() ? sum_to(mul(g, mul(b, pow(a, sub(b, ones_like(b))))), a.shape()) : Tensor(),
                b.requires_grad() ? sum_to(mul(g, mul(y, log(a))), b.shape()) : Tensor()};  // d a^b/db = a^b ln a
    });
    return out;
}

Tensor pow(const Tensor& a, double exponent) {
    Tensor e = scalar(exponent, a.dtype());
    Tensor out = binary_map("pow", a, e, [](auto x, auto y) { return std::pow(x, y); });
    record(out, "pow", {a}, [a, exponent](const Tensor& g) -> Grads {
        return {mul(g, mul(pow(a, exponent - 1), scalar(exponent, a.dtype())))};  // d aⁿ/da = n·aⁿ⁻¹
    });
    return out;
}

Tensor maximum(const Tensor& a, const Tensor& b) {
    Tensor out = binary_map("maximum", a, b, [](auto x, auto y) { return x >= y ? x : y; });
    record(out, "maximum", {a, b}, [a, b](const Tensor& g) -> Grads {
        // The larger input takes the gradient; a tie splits it evenly (as PyTorch does).
        Tensor share_a = add(gt(a, b), mul(eq(a, b), scalar(0.5, a.dtype())));
        return {sum_to(mul(g, share_a), a.shape()), sum_to(mul(g, sub(ones_like(share_a), share_a)), b.shape())};
    });
    return out;
}

// Comparisons: 0/1 results, no gradient (they are piecewise constant).
Tensor eq(const Tensor& a, const Tensor& b) { return binary_map("eq", a, b, [](auto x, auto y) { return x == y; }); }
Tensor ne(const Tensor& a, const Tensor& b) { return binary_map("ne", a, b, [](auto x, auto y) { return x != y; }); }
Tensor lt(const Tensor& a, const Tensor& b) { return binary_map("lt", a, b, [](auto x, auto y) { return x < y; }); }
Tensor le(const Tensor& a, const Tensor& b) { return binary_map("le", a, b, [](auto x, auto y) { return x <= y; }); }
Tensor gt(const Tensor& a, const Tensor& b) { return binary_map("gt", a, b, [](auto x, auto y) { return x > y; }); }
Tensor ge(const Tensor& a, const Tensor& b) { return binary_map("ge", a, b, [](auto x, auto y) { return x >= y; }); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
    check_same_dtype("where", a, b);
    const Shape shape = broadcast_shapes(broadcast_shapes(cond.shape(), a.shape(), "where"), b.shape(), "where");
    Tensor out = empty(shape, a.dtype());
    dispatch_float(a.dtype(), "where", [&]<typename T>(T) {
        dispatch_all(cond.dtype(), [&]<typename C>(C) {
            const C* pc = static_cast<const C*>(cond.impl()->storage->data);
            const T* pa = static_cast<const T*>(a.impl()->storage->data);
            const T* pb = static_cast<const T*>(b.impl()->storage->data);
            T* po = out.data_ptr<T>();
            parallel_for_each_row<4>(shape,
                            {broadcast_strides(cond, shape), broadcast_strides(a, shape), broadcast_strides(b, shape),
                             out.strides()},
                            {cond.offset(), a.offset(), b.offset(), 0},
                            [&](const std::array<std::int64_t, 4>& o, std::int64_t n,
                                const std::array<std::int64_t, 4>& s) {
                                // Masking scores (a contiguous row against a scalar fill value,
                                // or that fill against a gradient row) gets a vectorisable loop.
                                const C* rc = pc + o[0];
                                const T *ra = pa + o[1], *rb = pb + o[2];
                                T* ro = po + o[3];
                                if (s[0] == 1 && s[1] == 1 && s[2] == 0) {
                                    const T b0 = rb[0];
                                    for (std::int64_t i = 0; i < n; ++i) ro[i] = rc[i] != C(0) ? ra[i] : b0;
                                    return;
                                }
                                if (s[0] == 1 && s[1] == 0 && s[2] == 1) {
                                    const T a0 = ra[0];
                                    for (std::int64_t i = 0; i < n; ++i) ro[i] = rc[i] != C(0) ? a0 : rb[i];
                                    return;
                                }
                                for (std::int64_t i = 0; i < n; ++i)
                                    po[o[3] + i] = pc[o[0] + i * s[0]] != C(0) ? pa[o[1] + i * s[1]]
                                                                              : pb[o[2] + i * s[2]];
                            });
        });
    });
    record(out, "where", {a, b}, [cond, sa = a.shape(), sb = b.shape()](const Tensor& g) -> Grads {
        Tensor zero = zeros(Shape{}, g.dtype());  // the gradient goes to whichever input was chosen
        return {sum_to(where(cond, g, zero), sa), sum_to(where(cond, zero, g), sb)};
    });
    return out;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
    if (broadcast_shapes(mask.shape(), x.shape(), "masked_fill") != x.shape())
        throw ShapeError("masked_fill: mask of shape " + mask.shape().str() + " does not broadcast to input shape " +
                         x.shape().str());
    return where(mask, scalar(value, x.dtype()), x);  // the filled entries get zero gradient
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, double b) { return add(a, scalar(b, a.dtype())); }
Tensor operator-(const Tensor& a, double b) { return sub(a, scalar(b, a.dtype())); }
Tensor operator*(const Tensor& a, double b) { return mul(a, scalar(b, a.dtype())); }
Tensor operator/(const Tensor& a, double b) { return div(a, scalar(b, a.dtype())); }
Tensor operator+(double a, const Tensor& b) { return add(scalar(a, b.dtype()), b); }
Tensor operator-(double a, const Tensor& b) { return sub(scalar(a, b.dtype()), b); }
Tensor operator*(double a, const Tensor& b) { return mul(scalar(a, b.dtype()), b); }
Tensor operator/(double a, const Tensor& b) { return div(scalar(a, b.dtype()), b); }
Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace attnlab
