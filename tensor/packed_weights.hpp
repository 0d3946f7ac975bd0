// packed_weights.hpp — a weight matrix packed once for gemm, reused until it changes.
//
// gemm packs its B operand into the micro-kernel's order on every call. For x @ Wᵀ in
// a Linear that is the same weight every time: in generation (W6: 256 forwards of a
// few tokens each) repacking the weights was most of the work. packed_b_for() keeps
// the packed copy beside the tensor's Storage and hands it out while
//   - the storage's version is unchanged: Tensor::data_ptr() (the one way to a
//     writable pointer; copy_ and the file loaders that write storage directly bump
//     it too) counts as a write, so an optimizer step, copy_ or fill_ invalidates it;
//   - the geometry (offset, K, N, strides, dtype) is the one it was packed for.
// A buffer is packed only the second time it is seen unchanged as the same B, so
// activations (used once) and weights in training (changed every step) pay one
// lookup and no copy. matmul asks only with autograd off (inference, evaluation):
// code that pokes a tensor through a kept pointer (gradcheck did) runs with it on.
// The rule for code that writes tensors: take a fresh data_ptr() for each write,
// never keep a pointer across a matmul that reads the tensor.
// Products are bit-identical with and without the cache: the packed panels are the
// ones gemm would pack itself (tests/tensor/test_packed_weights.cpp).
#pragma once
#include <cstdint>
#include <memory>

#include "tensor/gemm.hpp"
#include "tensor/tensor.hpp"

namespace attnlab {

// The packed form of b (a [K, N] matrix with element strides b_rs, b_cs, read from
// its storage at b.offset()) if this exact operand was seen unchanged before, else
// null (and b is remembered). T = float or double, b's dtype.
template <typename T>
std::shared_ptr<const PackedB<T>> packed_b_for(const Tensor& b, std::int64_t K, std::int64_t N, std::int64_t b_rs,
                                               std::int64_t b_cs);

std::int64_t packed_b_hits();  // products served from a cached packing so far (for tests)

}  // namespace attnlab
