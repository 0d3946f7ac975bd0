// views.cpp — ops that re-read the same storage with new shape/strides/offset.
//
// None of these copies data (reshape copies only when no view can express it, as
// in PyTorch). The backward of a view is the inverse re-indexing of the gradient:
// reshape back, transpose back, or scatter into zeros for narrow/select.
#include <algorithm>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

// Resolves one -1 in `shape` so the sizes multiply to numel.
static Shape infer_size(const Shape& shape, std::int64_t numel, const char* op, const Shape& from) {
    Shape out = shape;
    std::int64_t known = 1, infer = -1;
    for (std::int64_t i = 0; i < out.size(); ++i) {
        if (out[i] == -1) {
            if (infer >= 0) throw ShapeError(std::string(op) + ": only one dimension can be -1, got " + shape.str());
            infer = i;
        } else if (out[i] < 0) {
            throw ShapeError(std::string(op) + ": negative size in " + shape.str());
        } else {
            known = checked_mul(known, out[i], op, shape);
        }
    }
    if (infer >= 0 && known != 0 && numel % known == 0) out[infer] = numel / known;
    if ((infer >= 0 && known == 0) || out.numel() != numel)
        throw ShapeError(std::string(op) + ": shape " + shape.str() + " is invalid for input of shape " + from.str() +
                         " (" + std::to_string(numel) + " elements)");
    return out;
}

// Strides that make `shape` a view of x's elements in row-major order, if any exist.
// Dims of x that are laid out back to back ("chunks") can be re-split freely.
static bool view_strides(const Tensor& x, const Shape& shape, Shape& strides) {
    if (x.is_contiguous()) {
        strides = contiguous_strides(shape);
        return true;
    }
    // Walk x's dims from the last, grouping contiguous chunks; each chunk must be
    // tiled exactly by a run of the new shape's dims (PyTorch's computeStride).
    strides = shape;
    std::int64_t view_d = shape.size() - 1;
    std::int64_t chunk_base_stride = x.dim() ? x.strides().back() : 1;
    std::int64_t tensor_numel = 1, view_numel = 1;
    for (std::int64_t d = x.dim() - 1; d >= 0; --d) {
        tensor_numel *= x.shape()[d];
        bool chunk_ends = d == 0 || (x.shape()[d - 1] != 1 && x.strides()[d - 1] != tensor_numel * chunk_base_stride);
        if (!chunk_ends) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
            strides[view_d] = view_numel * chunk_base_stride;
            view_numel *= shape[view_d];
            --view_d;
        }
        if (view_numel != tensor_numel) return false;
        if (d > 0) {
            chunk_base_stride = x.strides()[d - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    return view_d == -1;
}

Tensor view(const Tensor& x, const Shape& shape) {
    Shape s = infer_size(shape, x.numel(), "view", x.shape());
    Shape strides;
    if (!view_strides(x, s, strides))
        throw ShapeError("view: shape " + s.str() + " is not a view of a tensor of shape " + x.shape().str() +
                         " with strides " + x.strides().str() + " (use reshape, which copies)");
    Tensor out = make_view(x, s, strides, x.offset());
    record(out, "view", {x}, [from = x.shape()](const Tensor& g) -> Grads { return {reshape(g, from)}; });
    return out;
}

Tensor reshape(const Tensor& x, const Shape& shape) {
    Shape s = infer_size(shape, x.numel(), "reshape", x.shape());
    Shape strides;
    if (view_strides(x, s, strides)) return view(x, s);
    return view(contiguous(x), s);
}

Tensor transpose(const Tensor& x, std::int64_t d0, std::int64_t d1) {
    std::int64_t a = normalize_dim(d0, x.dim(), "transpose"), b = normalize_dim(d1, x.dim(), "transpose");
    Shape shape = x.shape(), strides = x.strides();
    std::swap(shape[a], shape[b]);
    std::swap(strides[a], strides[b]);
    Tensor out = make_view(x, shape, strides, x.offset());
    record(out, "transpose", {x}, [a, b](const Tensor& g) -> Grads { return {transpose(g, a, b)}; });
    return out;
}

Tensor permute(const Tensor& x, const Shape& order) {
    if (order.size() != x.dim())
        throw ShapeError("permute: order " + order.str() + " does not match a tensor of shape " + x.shape().str());
    Shape shape, strides, inverse = order;
    std::vector<bool> used(static_cast<std::size_t>(x.dim()), false);
    for (std::int64_t i = 0; i < order.size(); ++i) {
        std::int64_t d = normalize_dim(order[i], x.dim(), "permute");
        if (used[static_cast<std::size_t>(d)])
            throw ValueError("permute: dim " + std::to_string(d) + " repeats in order " + order.str());
        used[static_cast<std::size_t>(d)] = true;
        shape.push_back(x.shape()[d]);
        strides.push_back(x.strides()[d]);
        inverse[d] = i;
    }
    Tensor out = make_view(x, shape, strides, x.offset());
    record(out, "permute", {x}, [inverse](const Tensor& g) -> Grads { return {permute(g, inverse)}; });
    return out;
}

Tensor unsqueeze(const Tensor& x, std::int64_t dim) {
    std::int64_t d = normalize_dim(dim, x.dim() + 1, "unsqueeze");
    Shape shape = x.shape(), strides = x.strides();
    // The new size-1 dim's stride is irrelevant to indexing; this value keeps it contiguous.
    std::int64_t s = d < x.dim() ? x.shape()[d] * x.strides()[d] : 1;
    shape.insert(d, 1);
    strides.insert(d, s);
    Tensor out = make_view(x, shape, strides, x.offset());
    record(out, "unsqueeze", {x}, [d](const Tensor& g) -> Grads { return {squeeze(g, d)}; });
    return out;
}

Tensor squeeze(const Tensor& x, std::int64_t dim) {
    std::int64_t d = normalize_dim(dim, x.dim(), "squeeze");
    if (x.shape()[d] != 1)
        throw ShapeError("squeeze: dim " + std::to_string(dim) + " of shape " + x.shape().str() + " is not 1");
    Shape shape = x.shape(), strides = x.strides();
    shape.erase(d);
    strides.erase(d);
    Tensor out = make_view(x, shape, strides, x.offset());
    record(out, "squeeze", {x}, [d](const Tensor& g) -> Grads { return {unsqueeze(g, d)}; });
    return out;
}

Tensor expand(const Tensor& x, const Shape& shape) {
    if (shape.size() < x.dim())
        throw ShapeError("expand: cannot expand shape " + x.shape().str() + " to fewer dims " + shape.str());
    Shape out_shape = shape, strides = shape;
    std::int64_t lead = shape.size() - x.dim();
    for (std::int64_t i = 0; i < shape.size(); ++i) {
        std::int64_t j = i - lead;
        std::int64_t have = j >= 0 ? x.shape()[j] : 1;
        std::int64_t want = shape[i] == -1 && j >= 0 ? have : shape[i];
        if (want < 0 || (have != want && have != 1))
            throw ShapeError("expand: shape " + x.shape().str() + " cannot be expanded to " + shape.str());
        out_shape[i] = want;
        strides[i] = (j < 0 || have != want) ? 0 : x.strides()[j];  // stride 0 repeats the one element
    }
    checked_numel(out_shape, "expand");  // no memory, but every later numel() must fit in int64
    Tensor out = make_view(x, out_shape, strides, x.offset());
    record(out, "expand", {x}, [from = x.shape()](const Tensor& g) -> Grads { return {sum_to(g, from)}; });
    return out;
}

Tensor slice(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step) {
    std::int64_t d = normalize_dim(dim, x.dim(), "slice");
    std::int64_t n = x.shape()[d];
    if (step <= 0) throw ValueError("slice: step must be positive, got " + std::to_string(step));
    // Python slice rules: negative bounds count from the end, out-of-range bounds clamp.
    if (start < 0) start += n;
    if (end < 0) end += n;
    start = std::clamp<std::int64_t>(start, 0, n);
    end = std::clamp<std::int64_t>(end, start, n);
    Shape shape = x.shape(), strides = x.strides();
    shape[d] = end == start ? 0 : (end - start - 1) / step + 1;  // (not end - start + step - 1: step may be huge)
    if (shape[d] > 1) strides[d] = checked_mul(strides[d], step, "slice", x.shape());
    Tensor out = make_view(x, shape, strides, x.offset() + start * x.strides()[d]);
    record(out, "slice", {x}, [d, start, end, step, from = x.shape()](const Tensor& g) -> Grads {
        Tensor gx = zeros(from, g.dtype());  // d slice/dx scatters g back into place
        copy_(slice(gx, d, start, end, step), g);
        return {gx};
    });
    return out;
}

Tensor narrow(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t length) {
    std::int64_t d = normalize_dim(dim, x.dim(), "narrow");
    if (start < 0 || length < 0 || start > x.shape()[d] || length > x.shape()[d] - start)  // no start + length: it may overflow
        throw ValueError("narrow: start " + std::to_string(start) + " + length " + std::to_string(length) +
                         " exceeds dim " + std::to_string(dim) + " of shape " + x.shape().str());
    return slice(x, d, start, start + length);
}

Tensor select(const Tensor& x, std::int64_t dim, std::int64_t index) {
    std::int64_t d = normalize_dim(dim, x.dim(), "select");
    std::int64_t n = x.shape()[d];
    if (index < -n || index >= n)
        throw ValueError("select: index " + std::to_string(index) + " is out of range for dim " +
                         std::to_string(dim) + " of shape " + x.shape().str());
    if (index < 0) index += n;
    return squeeze(slice(x, d, index, index + 1), d);
}

Tensor flatten(const Tensor& x, std::int64_t start_dim, std::int64_t end_dim) {
    if (x.dim() == 0) return reshape(x, Shape{1});
    std::int64_t s = normalize_dim(start_dim, x.dim(), "flatten"), e = normalize_dim(end_dim, x.dim(), "flatten");
    if (s > e) throw ValueError("flatten: start_dim " + std::to_string(start_dim) + " comes after end_dim " +
                                std::to_string(end_dim));
    Shape shape;
    for (std::int64_t i = 0; i < s; ++i) shape.push_back(x.shape()[i]);
    std::int64_t merged = 1;
    for (std::int64_t i = s; i <= e; ++i) merged = checked_mul(merged, x.shape()[i], "flatten", x.shape());
    shape.push_back(merged);
    for (std::int64_t i = e + 1; i < x.dim(); ++i) shape.push_back(x.shape()[i]);
    return reshape(x, shape);
}

}  // namespace attnlab
