// tensor.hpp — Tensor: an n-dimensional view of shared storage, plus the autograd
// fields that let reverse-mode differentiation run through it.
//
// A Tensor is a cheap handle (one shared_ptr) to a TensorImpl, which holds
//   storage  — a reference-counted, 64-byte aligned byte buffer,
//   shape, strides, offset (in elements) — how this tensor reads that buffer,
//   dtype    — float32, float64 or int64,
//   requires_grad, grad, grad_fn — the autograd state (autograd/node.hpp).
// Copying a Tensor copies the handle, not the data, exactly as assigning a tensor
// in Python does. Views (reshape, transpose, narrow, expand, ...) make a new
// TensorImpl over the same storage; contiguous() and clone() copy.
//
// The operations themselves are free functions declared in tensor/ops.hpp; the
// methods below are the usual chaining shorthands for them (x.transpose(0, 1)).
#pragma once
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tensor/dtype.hpp"
#include "tensor/shape.hpp"

namespace attnlab {

struct Node;  // autograd/node.hpp

// A 64-byte aligned buffer (a full cache line, and one AVX-512 register).
struct Storage {
    explicit Storage(std::size_t nbytes);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    void* data;
    std::size_t nbytes;
    // Counts the writable pointers handed out (Tensor::data_ptr) and the direct
    // writes (copy_, fill_, the loaders): unchanged means the contents are too, so a
    // copy derived from them (tensor/packed_weights.hpp) is still good.
    std::atomic<std::uint64_t> version{0};
    void mark_written() { version.fetch_add(1, std::memory_order_acq_rel); }
    std::shared_ptr<void> packed;  // tensor/packed_weights.cpp's slot for this buffer
};

struct TensorImpl {
    std::shared_ptr<Storage> storage;
    Shape shape;
    Shape strides;            // in elements
    std::int64_t offset = 0;  // in elements
    DType dtype = DType::f32;

    bool requires_grad = false;        // leaf: set by the user; result of an op: some input requires grad
    bool retains_grad = false;         // keep .grad on a non-leaf after backward (retain_grad())
    std::shared_ptr<Node> grad_fn;     // the op that produced this tensor; null for leaves
    std::shared_ptr<TensorImpl> grad;  // accumulated gradient, same shape as this tensor
};

class Tensor {
public:
    Tensor() = default;  // an undefined tensor (like None): defined() is false
    explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

    // ---- what it is --------------------------------------------------------------
    bool defined() const { return impl_ != nullptr; }
    const Shape& shape() const { return impl_->shape; }
    const Shape& strides() const { return impl_->strides; }
    std::int64_t offset() const { return impl_->offset; }
    DType dtype() const { return impl_->dtype; }
    std::int64_t dim() const { return impl_->shape.size(); }
    // Negative d counts from the end. Inline: the kernels ask for sizes on every call.
    std::int64_t size(std::int64_t d) const { return shape()[normalize_dim(d, dim(), "size")]; }
    std::int64_t numel() const { return impl_->shape.numel(); }
    bool is_contiguous() const;
    bool same(const Tensor& other) const { return impl_ == other.impl_; }  // the same tensor object
    TensorImpl* impl() const { return impl_.get(); }
    const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

    // Typed pointer to element [0, ..., 0]; throws if T does not match dtype(). The caller
    // may write through it, so it counts as a write (Storage::version).
    template <typename T> T* data_ptr() const;
    // The same for reading only (PyTorch's const_data_ptr): no write is counted. Reading a
    // weight (at(), item(), an op's input) then keeps its cached packing
    // (tensor/packed_weights.hpp), and skips an atomic increment per call.
    template <typename T> const T* const_data_ptr() const;
    // The single value of a one-element tensor, as double.
    double item() const;
    // The element at a full index, as double (for tests and printing; not for hot loops).
    double at(std::initializer_list<std::int64_t> index) const;
    // All elements in row-major order, converted to T.
    template <typename T> std::vector<T> to_vector() const;

    // ---- autograd ----------------------------------------------------------------
    bool requires_grad() const { return impl_->requires_grad; }
    Tensor& requires_grad_(bool on = true);  // only on leaves, like PyTorch
    bool is_leaf() const;
    Tensor grad() const { return Tensor(impl_->grad); }  // undefined until a backward reaches it
    void set_grad(const Tensor& g);
    void zero_grad() { impl_->grad.reset(); }  // PyTorch's set_to_none=True
    void retain_grad();                     // keep .grad on this non-leaf after backward
    const char* grad_fn_name() const;       // "matmul", ... or "" for a leaf
    // Reverse-mode differentiation from this tensor (autograd/engine.cpp).
    // Without an argument the tensor must hold one element (d self/d self = 1).
    void backward(bool retain_graph = false) const;
    void backward(const Tensor& grad, bool retain_graph = false) const;
    Tensor detach() const;  // same storage, no history, requires_grad false
    // Replaces what this tensor holds (storage, shape, strides, dtype) with src's,
    // keeping its autograd identity — PyTorch's `param.data = src`. Every handle to
    // this tensor sees the change (Module::to converts parameters this way).
    void set_data(const Tensor& src);

    // ---- shorthands for ops in tensor/ops.hpp ------------------------------------
    Tensor reshape(const Shape& s) const;
    Tensor view(const Shape& s) const;
    Tensor transpose(std::int64_t d0, std::int64_t d1) const;
    Tensor permute(const Shape& order) const;
    Tensor mT() const;  // transpose of the last two dims
    Tensor unsqueeze(std::int64_t d) const;
    Tensor squeeze(std::int64_t d) const;
    Tensor expand(const Shape& s) const;
    Tensor narrow(std::int64_t d, std::int64_t start, std::int64_t length) const;
    Tensor select(std::int64_t d, std::int64_t index) const;
    Tensor flatten() const;
    Tensor contiguous() const;
    Tensor clone() const;
    Tensor to(DType t) const;
    Tensor sum() const;
    Tensor sum(std::int64_t d, bool keepdim = false) const;
    Tensor mean() const;
    Tensor mean(std::int64_t d, bool keepdim = false) const;
    Tensor matmul(const Tensor& other) const;
    Tensor softmax(std::int64_t d) const;
    Tensor exp() const;
    Tensor log() const;

private:
    std::shared_ptr<TensorImpl> impl_;
};

// ---- creation ----------------------------------------------------------------------
Tensor empty(const Shape& shape, DType dtype = kFloat32);  // uninitialised
Tensor zeros(const Shape& shape, DType dtype = kFloat32);
Tensor ones(const Shape& shape, DType dtype = kFloat32);
Tensor full(const Shape& shape, double value, DType dtype = kFloat32);
Tensor scalar(double value, DType dtype = kFloat32);  // shape []
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor arange(std::int64_t end, DType dtype = kInt64);
Tensor arange(double start, double end, double step = 1.0, DType dtype = kFloat32);
// From values in row-major order; values.size() must equal shape.numel().
template <typename T> Tensor from_vector(const std::vector<T>& values, const Shape& shape);
Tensor from_vector(const std::vector<double>& values, const Shape& shape, DType dtype);
// Literals: tensor({1, 2}), tensor({{1, 2}, {3, 4}}), tensor({{{...}}}); ragged input throws.
// Rows of one element ({{1}, {2}}) are ambiguous to C++'s brace rules: write
// tensor({1, 2}).reshape({2, 1}) instead.
Tensor tensor(std::initializer_list<double> v, DType dtype = kFloat32);
Tensor tensor(std::initializer_list<std::initializer_list<double>> v, DType dtype = kFloat32);
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<double>>> v,
              DType dtype = kFloat32);

// A view of `base`'s storage with the given geometry (used by view ops; no autograd).
Tensor make_view(const Tensor& base, const Shape& shape, const Shape& strides, std::int64_t offset);

}  // namespace attnlab
