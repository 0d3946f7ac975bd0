// copy.cpp — copies and dtype conversions: contiguous, clone, to_dtype, copy_, fill_.
//
// copy_ is the one strided copy everything else uses: it writes src (broadcast to
// dst's shape, converted to dst's dtype) into dst, whatever dst's strides are.
#include <cstring>
#include <type_traits>

#include "autograd/node.hpp"
#include "tensor/iter.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

static void check_inplace(const Tensor& dst, const char* op) {
    if (GradMode::enabled() && dst.requires_grad())
        throw AutogradError(std::string(op) + ": in-place write into a tensor that requires grad would corrupt "
                                              "the graph; wrap parameter updates in NoGradGuard");
}

void copy_(const Tensor& dst, const Tensor& src) {
    check_inplace(dst, "copy_");
    if (broadcast_shapes(src.shape(), dst.shape(), "copy_") != dst.shape())
        throw ShapeError("copy_: source of shape " + src.shape().str() + " cannot be broadcast to " +
                         dst.shape().str());
    const std::size_t esize = dtype_size(dst.dtype());
    dst.impl()->storage->mark_written();
    if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() && src.shape() == dst.shape()) {
        // memmove, not memcpy: dst and src may be overlapping views of one storage.
        std::memmove(static_cast<char*>(dst.impl()->storage->data) + dst.offset() * esize,
                     static_cast<const char*>(src.impl()->storage->data) + src.offset() * esize,
                     static_cast<std::size_t>(dst.numel()) * esize);
        return;
    }
    dispatch_all(dst.dtype(), [&]<typename D>(D) {
        dispatch_all(src.dtype(), [&]<typename S>(S) {
            D* pd = static_cast<D*>(dst.impl()->storage->data);
            const S* ps = static_cast<const S*>(src.impl()->storage->data);
            const std::array<Shape, 2> strides{dst.strides(), broadcast_strides(src, dst.shape())};
            const std::array<std::int64_t, 2> base{dst.offset(), src.offset()};
            auto copy_row = [&](const std::array<std::int64_t, 2>& o, std::int64_t n, const std::array<std::int64_t, 2>& s) {
                // Rows contiguous on both sides (splitting heads: rows of d_k)
                // are one memmove, not n strided element copies.
                if constexpr (std::is_same_v<D, S>)
                    if (s[0] == 1 && s[1] == 1) {
                        std::memmove(pd + o[0], ps + o[1], static_cast<std::size_t>(n) * sizeof(D));
                        return;
                    }
                for (std::int64_t i = 0; i < n; ++i) pd[o[0] + i * s[0]] = static_cast<D>(ps[o[1] + i * s[1]]);
            };
            // Views of one storage may overlap, and then only the one ordered walk copies
            // as the rows come; separate storages can be copied in parallel chunks.
            if (dst.impl()->storage == src.impl()->storage)
                for_each_row<2>(dst.shape(), strides, base, copy_row);
            else
                parallel_for_each_row<2>(dst.shape(), strides, base, copy_row);
        });
    });
}

void fill_(const Tensor& dst, double value) {
    check_inplace(dst, "fill_");
    dst.impl()->storage->mark_written();
    dispatch_all(dst.dtype(), [&]<typename D>(D) {
        D* pd = static_cast<D*>(dst.impl()->storage->data);
        const D v = static_cast<D>(value);
        for_each_row<1>(dst.shape(), {dst.strides()}, {dst.offset()},
                        [&](const std::array<std::int64_t, 1>& o, std::int64_t n,
                            const std::array<std::int64_t, 1>& s) {
                            for (std::int64_t i = 0; i < n; ++i) pd[o[0] + i * s[0]] = v;
                        });
    });
}

Tensor contiguous(const Tensor& x) {
    if (x.is_contiguous()) return x;
    return clone(x);
}

Tensor clone(const Tensor& x) {
    Tensor out = empty(x.shape(), x.dtype());
    {
        NoGradGuard no_grad;  // the copy itself is not an op of the graph; clone is
        copy_(out, x);
    }
    record(out, "clone", {x}, [](const Tensor& g) -> Grads { return {g}; });  // d clone(x)/dx = 1
    return out;
}

Tensor to_dtype(const Tensor& x, DType dtype) {
    if (x.dtype() == dtype) return x;
    Tensor out = empty(x.shape(), dtype);
    {
        NoGradGuard no_grad;
        copy_(out, x);
    }
    if (is_floating(dtype))
        record(out, "to_dtype", {x}, [from = x.dtype()](const Tensor& g) -> Grads { return {to_dtype(g, from)}; });
    return out;
}

}  // namespace attnlab
