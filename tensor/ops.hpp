// ops.hpp — every tensor operation attnlab has, in one list.
//
// Each op checks its inputs (throwing ShapeError / ValueError with the op's name
// and the offending shapes), computes its result, and — when an input requires
// grad — records its backward right beside the forward in the .cpp named here.
// Semantics follow PyTorch (broadcasting, negative dims, keepdim, matmul batching);
// docs/reference.md lists where attnlab differs on purpose.
//
// To add an op: declare it here under its file, write forward + record(backward)
// in that file, add a gradcheck test in tests/autograd/test_gradcheck_ops.cpp and
// a bad-input test beside its forward tests.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab {

// ---- views.cpp: views share storage and copy nothing --------------------------------
Tensor reshape(const Tensor& x, const Shape& shape);  // one size may be -1; copies only if it must
Tensor view(const Tensor& x, const Shape& shape);     // like reshape but never copies (error instead)
Tensor transpose(const Tensor& x, std::int64_t d0, std::int64_t d1);
Tensor permute(const Tensor& x, const Shape& order);
Tensor unsqueeze(const Tensor& x, std::int64_t dim);
Tensor squeeze(const Tensor& x, std::int64_t dim);    // dim must have size 1
Tensor expand(const Tensor& x, const Shape& shape);   // size-1 dims stretch with stride 0; -1 keeps a size
Tensor narrow(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t length);
Tensor slice(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step = 1);
Tensor select(const Tensor& x, std::int64_t dim, std::int64_t index);  // removes dim
Tensor flatten(const Tensor& x, std::int64_t start_dim = 0, std::int64_t end_dim = -1);

// ---- copy.cpp: copies and conversions -----------------------------------------------
Tensor contiguous(const Tensor& x);  // x itself if already contiguous
Tensor clone(const Tensor& x);
Tensor to_dtype(const Tensor& x, DType dtype);
// dst[...] = src (broadcast to dst's shape); dst may be any view. No autograd: dst
// must not require grad while recording (in-place updates go under NoGradGuard).
void copy_(const Tensor& dst, const Tensor& src);
void fill_(const Tensor& dst, double value);

// ---- binary.cpp: elementwise with broadcasting ---------------------------------------
Tensor add(const Tensor& a, const Tensor& b);
// dst += src (broadcast to dst's shape), in place: the same bits as add(dst, src) without a
// new tensor. No autograd, as copy_: neither may require grad while recording.
void add_(const Tensor& dst, const Tensor& src);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, double exponent);
Tensor maximum(const Tensor& a, const Tensor& b);
// Comparisons give 1 where true and 0 where false, in the inputs' float dtype (no bool dtype).
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
// where(cond, a, b): a where cond is nonzero, else b; all three broadcast together.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// x with value wherever mask is nonzero (mask broadcasts to x's shape).
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);
Tensor operator-(const Tensor& a);

// ---- unary.cpp: elementwise functions ------------------------------------------------
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);  // x·Φ(x) with the exact erf, PyTorch's default

// ---- reduce.cpp: reductions ----------------------------------------------------------
Tensor sum(const Tensor& x);                                   // all elements -> shape []
Tensor sum(const Tensor& x, std::int64_t dim, bool keepdim = false);
Tensor sum(const Tensor& x, const std::vector<std::int64_t>& dims, bool keepdim = false);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, std::int64_t dim, bool keepdim = false);
// Variance with Bessel's correction by default (correction = 1), as torch.var.
Tensor var(const Tensor& x, std::int64_t dim, bool keepdim = false, std::int64_t correction = 1);
struct ValuesIndices {
    Tensor values;   // differentiable: the gradient flows to the (first) maximal element
    Tensor indices;  // int64
};
ValuesIndices max(const Tensor& x, std::int64_t dim, bool keepdim = false);
ValuesIndices min(const Tensor& x, std::int64_t dim, bool keepdim = false);
Tensor max(const Tensor& x);  // all elements -> shape []
Tensor argmax(const Tensor& x, std::int64_t dim, bool keepdim = false);
// The gradient of broadcasting: sums g over the dims that broadcasting stretched to
// turn `shape` into g.shape(). Every broadcasting op's backward ends with it.
Tensor sum_to(const Tensor& g, const Shape& shape);

// ---- softmax.cpp ---------------------------------------------------------------------
// Numerically stable (the row max is subtracted first). A row whose entries are all
// -inf (fully masked) gives an all-zero row and a zero gradient, never NaN.
Tensor softmax(const Tensor& x, std::int64_t dim);
Tensor log_softmax(const Tensor& x, std::int64_t dim);
// softmax's backward from its output p = softmax(x, d) and the upstream gradient g:
// p ⊙ (g − Σ_d g ⊙ p). The fused loop softmax() records, and the composed ops it is
// tested against (same bits).
Tensor softmax_backward(const Tensor& p, const Tensor& g, std::int64_t d);
Tensor softmax_backward_composed(const Tensor& p, const Tensor& g, std::int64_t d);

// ---- matmul.cpp ----------------------------------------------------------------------
// PyTorch semantics: 1-D·1-D dot, 2-D matrix product, and batched products whose
// leading (batch) dims broadcast; [..., n, k] @ [..., k, m] -> [..., n, m].
Tensor matmul(const Tensor& a, const Tensor& b);
// x @ weightᵀ + bias, PyTorch's F.linear: weight [out, in], bias [out] or undefined (none).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);

// ---- join.cpp: joining and splitting ------------------------------------------------
Tensor cat(const std::vector<Tensor>& xs, std::int64_t dim);
Tensor stack(const std::vector<Tensor>& xs, std::int64_t dim);
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim);
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim);

// ---- index.cpp: gathering by index, and triangles -------------------------------------
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index);  // index: int64, 1-D
// Rows of weight [V, d] picked by ids (int64, any shape) -> [*ids.shape, d].
Tensor embedding(const Tensor& weight, const Tensor& ids);
Tensor one_hot(const Tensor& ids, std::int64_t num_classes, DType dtype = kFloat32);
Tensor tril(const Tensor& x, std::int64_t diagonal = 0);  // zero above the diagonal (last two dims)
Tensor triu(const Tensor& x, std::int64_t diagonal = 0);  // zero below the diagonal

// ---- print.cpp -----------------------------------------------------------------------
// PyTorch style: tensor([[0.2595, 0.0351]]) with the shape, e.g. "tensor([...], shape=[1, 2])".
std::string to_string(const Tensor& x);
std::ostream& operator<<(std::ostream& os, const Tensor& x);

}  // namespace attnlab
