// join.cpp — cat, stack, split, chunk.
//
// cat copies each input into its slice of a new tensor; its backward hands each
// input the matching slice of the gradient. split and chunk are pure views
// (narrow), so they need no backward of their own.
#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

Tensor cat(const std::vector<Tensor>& xs, std::int64_t dim) {
    if (xs.empty()) throw ValueError("cat: expected a non-empty list of tensors");
    const Tensor& first = xs[0];
    const std::int64_t d = normalize_dim(dim, first.dim(), "cat");
    Shape shape = first.shape();
    shape[d] = 0;
    for (const Tensor& x : xs) {
        bool fits = x.dim() == first.dim() && x.dtype() == first.dtype();
        for (std::int64_t i = 0; fits && i < x.dim(); ++i) fits = i == d || x.shape()[i] == first.shape()[i];
        if (!fits)
            throw ShapeError("cat: tensors must match except in dim " + std::to_string(dim) + ": " +
                             first.shape().str() + " " + dtype_name(first.dtype()) + " vs " + x.shape().str() + " " +
                             dtype_name(x.dtype()));
        if (__builtin_add_overflow(shape[d], x.shape()[d], &shape[d]))
            throw ShapeError("cat: the sizes along dim " + std::to_string(dim) + " overflow int64 (" +
                             first.shape().str() + " and " + x.shape().str() + ")");
    }
    checked_numel(shape, "cat");
    Tensor out = empty(shape, first.dtype());
    std::vector<std::int64_t> sizes;
    {
        NoGradGuard no_grad;
        std::int64_t at = 0;
        for (const Tensor& x : xs) {
            copy_(narrow(out, d, at, x.shape()[d]), x);
            sizes.push_back(x.shape()[d]);
            at += x.shape()[d];
        }
    }
    record(out, "cat", xs, [d, sizes](const Tensor& g) -> Grads {
        Grads grads;  // d cat/dxᵢ is the i-th slice of g
        std::int64_t at = 0;
        for (std::int64_t s : sizes) {
            grads.push_back(narrow(g, d, at, s));
            at += s;
        }
        return grads;
    });
    return out;
}

Tensor stack(const std::vector<Tensor>& xs, std::int64_t dim) {
    if (xs.empty()) throw ValueError("stack: expected a non-empty list of tensors");
    const std::int64_t d = normalize_dim(dim, xs[0].dim() + 1, "stack");
    std::vector<Tensor> parts;
    for (const Tensor& x : xs) {
        if (x.shape() != xs[0].shape())
            throw ShapeError("stack: all tensors must have one shape, got " + xs[0].shape().str() + " and " +
                             x.shape().str());
        parts.push_back(unsqueeze(x, d));
    }
    return cat(parts, d);
}

std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim) {
    const std::int64_t d = normalize_dim(dim, x.dim(), "split");
    if (split_size <= 0) throw ValueError("split: split_size must be positive, got " + std::to_string(split_size));
    std::vector<Tensor> parts;
    for (std::int64_t at = 0; at < x.shape()[d]; at += split_size)
        parts.push_back(narrow(x, d, at, std::min(split_size, x.shape()[d] - at)));
    return parts;
}

std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim) {
    const std::int64_t d = normalize_dim(dim, x.dim(), "chunk");
    if (chunks <= 0) throw ValueError("chunk: chunks must be positive, got " + std::to_string(chunks));
    const std::int64_t n = x.shape()[d];
    return split(x, std::max<std::int64_t>(1, (n + chunks - 1) / chunks), d);  // PyTorch: ceil(n / chunks) each
}

}  // namespace attnlab
