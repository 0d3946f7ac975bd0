// index.cpp — gathering by integer index (index_select, embedding), one_hot, tril/triu.
//
// index_select moves the indexed dim to the front, so the kernel is always "copy
// whole rows of a [n, row] matrix"; its backward is the matching scatter-add
// (a row picked twice receives both gradients). Indices are int64 and are
// range-checked before any memory is touched.
#include <cstring>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

static void check_index(const char* op, const Tensor& index, std::int64_t n) {
    if (index.dtype() != kInt64)
        throw ValueError(std::string(op) + ": indices must be int64, got " + dtype_name(index.dtype()));
    for (std::int64_t i : index.to_vector<std::int64_t>())
        if (i < 0 || i >= n)
            throw ValueError(std::string(op) + ": index " + std::to_string(i) + " is out of range [0, " +
                             std::to_string(n) + ")");
}

// out[j, :] = src[idx[j], :] for a contiguous [n, row] src (add = false),
// or out[idx[j], :] += src[j, :] (add = true, the backward).
static void row_gather(const Tensor& src, const std::vector<std::int64_t>& idx, const Tensor& out, std::int64_t row,
                       bool add) {
    dispatch_float(src.dtype(), "index_select", [&]<typename T>(T) {
        const T* ps = src.const_data_ptr<T>();
        T* po = out.data_ptr<T>();
        for (std::size_t j = 0; j < idx.size(); ++j) {
            const std::int64_t i = idx[j];
            if (add)
                for (std::int64_t c = 0; c < row; ++c) po[i * row + c] += ps[static_cast<std::int64_t>(j) * row + c];
            else
                std::memcpy(po + static_cast<std::int64_t>(j) * row, ps + i * row, static_cast<std::size_t>(row) * sizeof(T));
        }
    });
}

Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index) {
    const std::int64_t d = normalize_dim(dim, x.dim(), "index_select");
    if (index.dim() != 1)
        throw ShapeError("index_select: index must be 1-D, got shape " + index.shape().str());
    const std::int64_t n = x.shape()[d];
    check_index("index_select", index, n);
    const std::vector<std::int64_t> idx = index.to_vector<std::int64_t>();

    Tensor front = contiguous(transpose(x.detach(), 0, d));  // the indexed dim first: [n, ...]
    const std::int64_t row = n ? front.numel() / n : 0;
    Shape picked_shape = front.shape();
    picked_shape[0] = index.numel();
    Tensor picked = empty(picked_shape, x.dtype());
    row_gather(front, idx, picked, row, false);
    Tensor out = contiguous(transpose(picked, 0, d));
    record(out, "index_select", {x}, [d, idx, row, front_shape = front.shape()](const Tensor& g) -> Grads {
        Tensor g_front = contiguous(transpose(g, 0, d));
        Tensor acc = zeros(front_shape, g.dtype());
        row_gather(g_front, idx, acc, row, true);  // scatter-add: repeated indices sum
        return {transpose(acc, 0, d)};
    });
    return out;
}

Tensor embedding(const Tensor& weight, const Tensor& ids) {
    if (weight.dim() != 2)
        throw ShapeError("embedding: weight must be [num_embeddings, dim], got " + weight.shape().str());
    Shape shape = ids.shape();
    shape.push_back(weight.shape()[1]);
    return reshape(index_select(weight, 0, reshape(ids, Shape{ids.numel()})), shape);  // [*ids.shape, d]
}

Tensor one_hot(const Tensor& ids, std::int64_t num_classes, DType dtype) {
    if (num_classes <= 0) throw ValueError("one_hot: num_classes must be positive, got " + std::to_string(num_classes));
    check_index("one_hot", ids, num_classes);
    Shape shape = ids.shape();
    shape.push_back(num_classes);
    Tensor out = zeros(shape, dtype);
    const std::vector<std::int64_t> idx = ids.to_vector<std::int64_t>();
    dispatch_float(dtype, "one_hot", [&]<typename T>(T) {
        T* po = out.data_ptr<T>();
        for (std::size_t j = 0; j < idx.size(); ++j) po[static_cast<std::int64_t>(j) * num_classes + idx[j]] = T(1);
    });
    return out;
}

// 1 where the (row, col) position is kept: col - row <= diagonal (lower) or >= diagonal (upper).
static Tensor triangle(const Tensor& x, std::int64_t diagonal, bool lower, const char* op) {
    if (x.dim() < 2) throw ShapeError(std::string(op) + ": needs at least 2 dims, got " + x.shape().str());
    const std::int64_t r = x.size(-2), c = x.size(-1);
    Tensor keep = empty(Shape{r, c}, x.dtype());
    dispatch_float(x.dtype(), op, [&]<typename T>(T) {
        T* pk = keep.data_ptr<T>();
        for (std::int64_t i = 0; i < r; ++i)
            for (std::int64_t j = 0; j < c; ++j) pk[i * c + j] = (lower ? j - i <= diagonal : j - i >= diagonal);
    });
    // where, not multiplication: -inf · 0 would be NaN. The gradient is g masked the same way.
    return where(keep, x, zeros(Shape{}, x.dtype()));
}

Tensor tril(const Tensor& x, std::int64_t diagonal) { return triangle(x, diagonal, true, "tril"); }
Tensor triu(const Tensor& x, std::int64_t diagonal) { return triangle(x, diagonal, false, "triu"); }

}  // namespace attnlab
