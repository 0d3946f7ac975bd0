// reduce.cpp — reductions: sum, mean, var, max/min (values + indices), argmax, sum_to.
//
// Every reduction along a dim views the (contiguous) input as [outer, n, inner]
// and reduces the middle axis. Sums accumulate in double whatever the dtype, so a
// float32 sum of many terms is as accurate as its result can hold, and the order
// of additions is fixed (deterministic).
//
// Only sum and max/min have hand-written backwards; mean and var are composed
// from them and get their gradients for free.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/row_sum.hpp"
#include "tensor/vec_math.hpp"

namespace attnlab {

struct Axis {  // x viewed as [outer, n, inner] around one dim
    std::int64_t outer = 1, n = 1, inner = 1;
};
static Axis axis_of(const Shape& s, std::int64_t d) {
    Axis a;
    for (std::int64_t i = 0; i < d; ++i) a.outer *= s[i];
    a.n = s[d];
    for (std::int64_t i = d + 1; i < s.size(); ++i) a.inner *= s[i];
    return a;
}
static Shape reduced_shape(const Shape& s, std::int64_t d, bool keepdim) {
    Shape out = s;
    if (keepdim) out[d] = 1;
    else out.erase(d);
    return out;
}

// Σ row[0..n) in double, in row_sum.hpp's fixed order.
template <typename T>
static double sum_row(const T* row, std::int64_t n) {
    return detail::sum_terms(n, [row](std::int64_t j) { return row[j]; });
}

// Columns summed together in vector registers by sum_columns.
constexpr std::int64_t kColumnBlock = 32;

// out[i] = Σ_j x[j·ld + i] for i < cols, rows j < rows (row stride ld): the reduction over a
// leading dim (a bias gradient, say). Each column is summed in double, rows in order, as a
// scalar loop would; the columns are just done kColumnBlock at a time, in vector registers,
// instead of through an accumulator array in memory that the compiler would not vectorise.
template <typename T>
static void sum_columns(const T* x, std::int64_t rows, std::int64_t cols, std::int64_t ld, T* out) {
    constexpr int kLanes = 8;
    constexpr int kVectors = kColumnBlock / kLanes;
    constexpr std::int64_t kBlock = kColumnBlock;
    typedef double VD __attribute__((vector_size(kLanes * sizeof(double))));
    typedef T VT __attribute__((vector_size(kLanes * sizeof(T))));
    std::int64_t i = 0;
    for (; i + kBlock <= cols; i += kBlock) {
        VD acc[kVectors] = {};
        for (std::int64_t j = 0; j < rows; ++j) {
            const T* row = x + j * ld + i;
            for (int v = 0; v < kVectors; ++v) {
                VT t;
                std::memcpy(&t, row + v * kLanes, sizeof t);
                VD wide;
                detail::vec::widen(t, wide);
                acc[v] += wide;
            }
        }
        for (int v = 0; v < kVectors; ++v)
            for (int l = 0; l < kLanes; ++l) out[i + v * kLanes + l] = static_cast<T>(acc[v][l]);
    }
    for (; i < cols; ++i) {  // the last cols % kBlock columns
        double acc = 0;
        for (std::int64_t j = 0; j < rows; ++j) acc += x[j * ld + i];
        out[i] = static_cast<T>(acc);
    }
}

Tensor sum(const Tensor& x, std::int64_t dim, bool keepdim) {
    const std::int64_t d = normalize_dim(dim, x.dim(), "sum");
    const Axis ax = axis_of(x.shape(), d);
    Tensor xc = contiguous(x);
    Tensor out = empty(reduced_shape(x.shape(), d, keepdim), x.dtype());
    dispatch_float(x.dtype(), "sum", [&]<typename T>(T) {
        const T* px = xc.const_data_ptr<T>();
        T* po = out.data_ptr<T>();
        // Threads split the sums, never one sum: each is added in one fixed order, so the
        // bits are the same at any thread count.
        if (ax.inner == 1) {  // reducing the last dim: rows are contiguous
            parallel_for_elements(ax.outer, ax.n, [&](std::int64_t lo, std::int64_t hi) {
                for (std::int64_t o = lo; o < hi; ++o) po[o] = static_cast<T>(sum_row(px + o * ax.n, ax.n));
            });
            return;
        }
        if (ax.outer == 1) {  // one [n, inner] block (a bias gradient): split its columns by blocks
            const std::int64_t blocks = (ax.inner + kColumnBlock - 1) / kColumnBlock;
            parallel_for_elements(blocks, ax.n * kColumnBlock, [&](std::int64_t lo, std::int64_t hi) {
                const std::int64_t first = lo * kColumnBlock, last = std::min(hi * kColumnBlock, ax.inner);
                sum_columns(px + first, ax.n, last - first, ax.inner, po + first);
            });
            return;
        }
        parallel_for_elements(ax.outer, ax.n * ax.inner, [&](std::int64_t lo, std::int64_t hi) {
            for (std::int64_t o = lo; o < hi; ++o)
                sum_columns(px + o * ax.n * ax.inner, ax.n, ax.inner, ax.inner, po + o * ax.inner);
        });
    });
    record(out, "sum", {x}, [d, keepdim, from = x.shape()](const Tensor& g) -> Grads {
        // d sum/dx = 1 everywhere: spread g back over the reduced dim
        return {expand(keepdim ? g : unsqueeze(g, d), from)};
    });
    return out;
}

Tensor sum(const Tensor& x) {
    if (x.dim() == 0) return clone(x);
    return reshape(sum(reshape(x, Shape{x.numel()}), 0), Shape{});
}

Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim) {
    std::vector<std::int64_t> ds;
    for (std::int64_t d : dims) ds.push_back(normalize_dim(d, x.dim(), "sum"));
    std::sort(ds.rbegin(), ds.rend());  // highest first, so earlier dims keep their numbers
    if (std::adjacent_find(ds.begin(), ds.end()) != ds.end()) throw ValueError("sum: a dim is repeated");
    Tensor out = x;
    for (std::int64_t d : ds) out = sum(out, d, keepdim);
    return out;
}

Tensor mean(const Tensor& x) { return div(sum(x), scalar(static_cast<double>(x.numel()), x.dtype())); }

Tensor mean(const Tensor& x, std::int64_t dim, bool keepdim) {
    const std::int64_t n = x.shape()[normalize_dim(dim, x.dim(), "mean")];
    return div(sum(x, dim, keepdim), scalar(static_cast<double>(n), x.dtype()));
}

Tensor var(const Tensor& x, std::int64_t dim, bool keepdim, std::int64_t correction) {
    const std::int64_t n = x.shape()[normalize_dim(dim, x.dim(), "var")];
    if (n - correction <= 0)
        throw ValueError("var: " + std::to_string(n) + " elements along dim " + std::to_string(dim) +
                         " with correction " + std::to_string(correction) + " leave no degrees of freedom");
    Tensor centered = sub(x, mean(x, dim, true));
    return div(sum(mul(centered, centered), dim, keepdim), scalar(static_cast<double>(n - correction), x.dtype()));
}

// Scatters g (reduced shape, keepdim) into zeros of `shape` at the picked indices along d.
static Tensor scatter_along(const Tensor& g, const Tensor& idx, std::int64_t d, const Shape& shape) {
    const Axis ax = axis_of(shape, d);
    Tensor out = zeros(shape, g.dtype());
    Tensor gc = contiguous(g);
    const std::int64_t* pi = idx.const_data_ptr<std::int64_t>();
    dispatch_float(g.dtype(), "max", [&]<typename T>(T) {
        const T* pg = gc.const_data_ptr<T>();
        T* po = out.data_ptr<T>();
        for (std::int64_t o = 0; o < ax.outer; ++o)
            for (std::int64_t i = 0; i < ax.inner; ++i)
                po[(o * ax.n + pi[o * ax.inner + i]) * ax.inner + i] = pg[o * ax.inner + i];
    });
    return out;
}

static ValuesIndices extreme(const char* name, const Tensor& x, std::int64_t dim, bool keepdim, bool want_max) {
    const std::int64_t d = normalize_dim(dim, x.dim(), name);
    const Axis ax = axis_of(x.shape(), d);
    if (ax.n == 0) throw ValueError(std::string(name) + ": cannot reduce an empty dim of shape " + x.shape().str());
    Tensor xc = contiguous(x);
    Shape kept = reduced_shape(x.shape(), d, true);
    Tensor values = empty(kept, x.dtype()), indices = empty(kept, kInt64);
    dispatch_float(x.dtype(), name, [&]<typename T>(T) {
        const T* px = xc.const_data_ptr<T>();
        T* pv = values.data_ptr<T>();
        std::int64_t* pi = indices.data_ptr<std::int64_t>();
        for (std::int64_t o = 0; o < ax.outer; ++o)
            for (std::int64_t i = 0; i < ax.inner; ++i) {
                const T* col = px + o * ax.n * ax.inner + i;
                std::int64_t best = 0;
                for (std::int64_t j = 1; j < ax.n; ++j) {
                    T v = col[j * ax.inner], b = col[best * ax.inner];
                    if (std::isnan(b)) break;  // NaN wins and stays, as in PyTorch
                    if (std::isnan(v) || (want_max ? v > b : v < b)) best = j;  // strict: first of ties
                }
                pv[o * ax.inner + i] = col[best * ax.inner];
                pi[o * ax.inner + i] = best;
            }
    });
    record(values, name, {x}, [indices, d, from = x.shape()](const Tensor& g) -> Grads {
        return {scatter_along(g, indices, d, from)};  // only the chosen element moved the output
    });
    if (!keepdim) return {squeeze(values, d), squeeze(indices, d)};
    return {values, indices};
}

ValuesIndices max(const Tensor& x, std::int64_t dim, bool keepdim) { return extreme("max", x, dim, keepdim, true); }
ValuesIndices min(const Tensor& x, std::int64_t dim, bool keepdim) { return extreme("min", x, dim, keepdim, false); }
Tensor max(const Tensor& x) { return reshape(max(reshape(x, Shape{x.numel()}), 0).values, Shape{}); }
Tensor argmax(const Tensor& x, std::int64_t dim, bool keepdim) { return max(x, dim, keepdim).indices; }

Tensor sum_to(const Tensor& g, const Shape& shape) {
    if (g.shape() == shape) return g;
    const std::int64_t lead = g.dim() - shape.size();
    if (lead < 0) throw ShapeError("sum_to: cannot sum shape " + g.shape().str() + " to the larger " + shape.str());
    std::vector<std::int64_t> dims;
    for (std::int64_t i = 0; i < g.dim(); ++i) {
        std::int64_t j = i - lead;
        if (j < 0 || (shape[j] == 1 && g.shape()[i] != 1)) dims.push_back(i);
        else if (shape[j] != g.shape()[i])
            throw ShapeError("sum_to: shape " + g.shape().str() + " is not a broadcast of " + shape.str());
    }
    if (g.is_contiguous() && dims.size() == static_cast<std::size_t>(lead) && lead > 1) {
        // Only leading dims go (a bias's gradient, [B, T, d] -> [d]): one pass over [B·T, d].
        return reshape(sum(reshape(g, Shape{g.numel() / shape.numel(), shape.numel()}), 0), shape);
    }
    return reshape(sum(g, dims, true), shape);  // keepdim, then drop the leading dims
}

}  // namespace attnlab
