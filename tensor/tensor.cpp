// tensor.cpp — storage, creation, element access and the Tensor shorthands.
#include "tensor/tensor.hpp"

#include <cmath>
#include <cstring>
#include <new>

#include "autograd/node.hpp"
#include "tensor/allocator.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

Storage::Storage(std::size_t n) : data(allocate_storage(n)), nbytes(n) {}  // n = 0 still gets a unique pointer

Storage::~Storage() { release_storage(data, nbytes); }

// ---- what it is --------------------------------------------------------------------

bool Tensor::is_contiguous() const {
    // Sizes of 1 place no constraint on their stride (PyTorch's rule too).
    std::int64_t expected = 1;
    for (std::int64_t i = dim() - 1; i >= 0; --i) {
        if (shape()[i] == 1) continue;
        if (strides()[i] != expected) return false;
        if (__builtin_mul_overflow(expected, shape()[i], &expected)) return false;  // [0, 2^40, 2^40]: no layout
    }
    return true;
}

template <typename T>
const T* Tensor::const_data_ptr() const {
    if (dtype_of<T>() != dtype())
        throw ValueError(std::string("data_ptr: asked for ") + dtype_name(dtype_of<T>()) + " but the tensor is " +
                         dtype_name(dtype()));
    return static_cast<const T*>(impl_->storage->data) + impl_->offset;
}
template const float* Tensor::const_data_ptr<float>() const;
template const double* Tensor::const_data_ptr<double>() const;
template const std::int64_t* Tensor::const_data_ptr<std::int64_t>() const;

template <typename T>
T* Tensor::data_ptr() const {
    const T* p = const_data_ptr<T>();
    impl_->storage->mark_written();  // the caller may write through it
    return const_cast<T*>(p);
}
template float* Tensor::data_ptr<float>() const;
template double* Tensor::data_ptr<double>() const;
template std::int64_t* Tensor::data_ptr<std::int64_t>() const;

double Tensor::item() const {
    if (numel() != 1)
        throw ValueError("item: the tensor has " + std::to_string(numel()) + " elements, shape " + shape().str() +
                         "; item() needs exactly one");
    return dispatch_all(dtype(), [&]<typename T>(T) { return static_cast<double>(*const_data_ptr<T>()); });
}

double Tensor::at(std::initializer_list<std::int64_t> index) const {
    if (static_cast<std::int64_t>(index.size()) != dim())
        throw ValueError("at: " + std::to_string(index.size()) + " indices for a tensor of shape " + shape().str());
    std::int64_t off = 0, d = 0;
    for (std::int64_t i : index) {
        if (i < 0 || i >= shape()[d])
            throw ValueError("at: index " + std::to_string(i) + " is out of range for dim " + std::to_string(d) +
                             " of shape " + shape().str());
        off += i * strides()[d++];
    }
    return dispatch_all(dtype(), [&]<typename T>(T) { return static_cast<double>(const_data_ptr<T>()[off]); });
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
    Tensor c = attnlab::contiguous(*this);
    std::vector<T> out(static_cast<std::size_t>(numel()));
    dispatch_all(dtype(), [&]<typename S>(S) {
        const S* p = c.const_data_ptr<S>();
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(p[i]);
    });
    return out;
}
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<std::int64_t> Tensor::to_vector<std::int64_t>() const;

// ---- autograd fields -------------------------------------------------------------------

Tensor& Tensor::requires_grad_(bool on) {
    if (!is_leaf())
        throw AutogradError(std::string("requires_grad_: only leaf tensors can change requires_grad; this one is "
                                        "the result of '") + grad_fn_name() + "' (use detach() for a new leaf)");
    if (on && !is_floating(dtype())) throw AutogradError("requires_grad_: int64 tensors cannot require grad");
    impl_->requires_grad = on;
    return *this;
}

bool Tensor::is_leaf() const { return impl_->grad_fn == nullptr; }

void Tensor::set_grad(const Tensor& g) {
    if (g.defined() && (g.shape() != shape() || g.dtype() != dtype()))
        throw ShapeError("set_grad: gradient of shape " + g.shape().str() + " for a tensor of shape " +
                         shape().str());
    impl_->grad = g.defined() ? g.impl_ : nullptr;
}

void Tensor::retain_grad() {
    if (!requires_grad()) throw AutogradError("retain_grad: the tensor does not require grad");
    impl_->retains_grad = true;
}

const char* Tensor::grad_fn_name() const { return impl_->grad_fn ? impl_->grad_fn->name : ""; }

Tensor Tensor::detach() const { return make_view(*this, shape(), strides(), offset()); }

void Tensor::set_data(const Tensor& src) {
    impl_->storage = src.impl()->storage;
    impl_->shape = src.shape();
    impl_->strides = src.strides();
    impl_->offset = src.offset();
    impl_->dtype = src.dtype();
    impl_->grad.reset();  // a gradient of the old shape or dtype would no longer fit
}

// ---- shorthands ------------------------------------------------------------------------

Tensor Tensor::reshape(const Shape& s) const { return attnlab::reshape(*this, s); }
Tensor Tensor::view(const Shape& s) const { return attnlab::view(*this, s); }
Tensor Tensor::transpose(std::int64_t d0, std::int64_t d1) const { return attnlab::transpose(*this, d0, d1); }
Tensor Tensor::permute(const Shape& order) const { return attnlab::permute(*this, order); }
Tensor Tensor::mT() const { return attnlab::transpose(*this, -2, -1); }
Tensor Tensor::unsqueeze(std::int64_t d) const { return attnlab::unsqueeze(*this, d); }
Tensor Tensor::squeeze(std::int64_t d) const { return attnlab::squeeze(*this, d); }
Tensor Tensor::expand(const Shape& s) const { return attnlab::expand(*this, s); }
Tensor Tensor::narrow(std::int64_t d, std::int64_t start, std::int64_t length) const {
    return attnlab::narrow(*this, d, start, length);
}
Tensor Tensor::select(std::int64_t d, std::int64_t index) const { return attnlab::select(*this, d, index); }
Tensor Tensor::flatten() const { return attnlab::flatten(*this); }
Tensor Tensor::contiguous() const { return attnlab::contiguous(*this); }
Tensor Tensor::clone() const { return attnlab::clone(*this); }
Tensor Tensor::to(DType t) const { return attnlab::to_dtype(*this, t); }
Tensor Tensor::sum() const { return attnlab::sum(*this); }
Tensor Tensor::sum(std::int64_t d, bool keepdim) const { return attnlab::sum(*this, d, keepdim); }
Tensor Tensor::mean() const { return attnlab::mean(*this); }
Tensor Tensor::mean(std::int64_t d, bool keepdim) const { return attnlab::mean(*this, d, keepdim); }
Tensor Tensor::matmul(const Tensor& other) const { return attnlab::matmul(*this, other); }
Tensor Tensor::softmax(std::int64_t d) const { return attnlab::softmax(*this, d); }
Tensor Tensor::exp() const { return attnlab::exp(*this); }
Tensor Tensor::log() const { return attnlab::log(*this); }

// ---- creation --------------------------------------------------------------------------

Tensor make_view(const Tensor& base, const Shape& shape, const Shape& strides, std::int64_t offset) {
    auto impl = std::allocate_shared<TensorImpl>(ObjectAllocator<TensorImpl>());
    impl->storage = base.impl()->storage;
    impl->shape = shape;
    impl->strides = strides;
    impl->offset = offset;
    impl->dtype = base.dtype();
    return Tensor(std::move(impl));
}

// Every tensor's memory comes from here. The byte count is checked before anything
// is allocated, and a request the machine cannot meet is named, not a bare bad_alloc.
static Tensor allocate(const Shape& shape, DType dtype, const char* op) {
    for (std::int64_t s : shape)
        if (s < 0) throw ValueError(std::string(op) + ": negative size in shape " + shape.str());
    const std::size_t nbytes = checked_nbytes(shape, dtype_size(dtype), op);
    auto impl = std::allocate_shared<TensorImpl>(ObjectAllocator<TensorImpl>());
    impl->strides = contiguous_strides(shape);
    try {
        impl->storage = std::allocate_shared<Storage>(ObjectAllocator<Storage>(), nbytes);
    } catch (const std::bad_alloc&) {
        throw ShapeError(std::string(op) + ": cannot allocate " + std::to_string(nbytes) + " bytes for shape " +
                         shape.str() + " of " + dtype_name(dtype) + " (out of memory)");
    }
    impl->shape = shape;
    impl->dtype = dtype;
    return Tensor(std::move(impl));
}

Tensor empty(const Shape& shape, DType dtype) { return allocate(shape, dtype, "empty"); }

Tensor full(const Shape& shape, double value, DType dtype) {
    Tensor t = allocate(shape, dtype, "full");
    fill_(t, value);
    return t;
}

Tensor zeros(const Shape& shape, DType dtype) {
    Tensor t = allocate(shape, dtype, "zeros");
    std::memset(t.impl()->storage->data, 0, t.impl()->storage->nbytes);  // all-zero bits are 0.0 and 0
    return t;
}

Tensor ones(const Shape& shape, DType dtype) { return full(shape, 1.0, dtype); }
Tensor scalar(double value, DType dtype) { return full(Shape{}, value, dtype); }
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.dtype()); }
Tensor ones_like(const Tensor& t) { return ones(t.shape(), t.dtype()); }

Tensor arange(std::int64_t end, DType dtype) { return arange(0.0, static_cast<double>(end), 1.0, dtype); }

Tensor arange(double start, double end, double step, DType dtype) {
    if (step == 0 || !std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step))
        throw ValueError("arange: bad range start=" + std::to_string(start) + " end=" + std::to_string(end) +
                         " step=" + std::to_string(step));
    double n = std::ceil((end - start) / step);
    Tensor t = empty(Shape{n > 0 ? static_cast<std::int64_t>(n) : 0}, dtype);
    dispatch_all(dtype, [&]<typename T>(T) {
        T* p = t.data_ptr<T>();
        for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(start + static_cast<double>(i) * step);
    });
    return t;
}

template <typename T>
Tensor from_vector(const std::vector<T>& values, const Shape& shape) {
    if (static_cast<std::int64_t>(values.size()) != shape.numel())
        throw ShapeError("from_vector: " + std::to_string(values.size()) + " values do not fill shape " +
                         shape.str() + " (" + std::to_string(shape.numel()) + " elements)");
    Tensor t = empty(shape, dtype_of<T>());
    if (!values.empty()) std::memcpy(t.data_ptr<T>(), values.data(), values.size() * sizeof(T));
    return t;
}
template Tensor from_vector<float>(const std::vector<float>&, const Shape&);
template Tensor from_vector<double>(const std::vector<double>&, const Shape&);
template Tensor from_vector<std::int64_t>(const std::vector<std::int64_t>&, const Shape&);

Tensor from_vector(const std::vector<double>& values, const Shape& shape, DType dtype) {
    return to_dtype(from_vector<double>(values, shape), dtype);
}

Tensor tensor(std::initializer_list<double> v, DType dtype) {
    return from_vector(std::vector<double>(v), Shape{static_cast<std::int64_t>(v.size())}, dtype);
}

Tensor tensor(std::initializer_list<std::initializer_list<double>> v, DType dtype) {
    std::vector<double> flat;
    std::int64_t cols = v.size() ? static_cast<std::int64_t>(v.begin()->size()) : 0;
    for (const auto& row : v) {
        if (static_cast<std::int64_t>(row.size()) != cols)
            throw ShapeError("tensor: ragged nested list: rows of length " + std::to_string(cols) + " and " +
                             std::to_string(row.size()));
        flat.insert(flat.end(), row.begin(), row.end());
    }
    return from_vector(flat, Shape{static_cast<std::int64_t>(v.size()), cols}, dtype);
}

Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<double>>> v, DType dtype) {
    std::vector<Tensor> planes;
    for (const auto& plane : v) planes.push_back(tensor(plane, dtype));
    if (planes.empty()) return empty(Shape{0, 0, 0}, dtype);
    for (const Tensor& p : planes)
        if (p.shape() != planes[0].shape())
            throw ShapeError("tensor: ragged nested list: planes of shape " + planes[0].shape().str() + " and " +
                             p.shape().str());
    return stack(planes, 0);
}

}  // namespace attnlab
