// flash_attention.hpp — exact attention without the T×T matrix (FlashAttention's idea).
//
//   output = softmax(q kᵀ · scale + mask) v        the same formula as scaled_dot_product_attention
//
// The composed path (nn/attention.cpp) materialises the scores and weights,
// [..., Tq, Tk] each, and keeps them for backward: 268 MB at B 1, H 8, T 2048.
// This op never forms them. It walks query blocks × key/value blocks and keeps,
// per query row i, only a running max m_i, a running sum l_i and an output
// accumulator o_i (the "online softmax", Milakov & Gimelshein 2018):
//
//   for each key block J:    S = q_I k_Jᵀ·scale (+ mask)       [bq, bk], then reused as P
//                            m_new = max(m, rowmax S)
//                            P = exp(S − m_new),  α = exp(m − m_new)
//                            l = α·l + rowsum P,  o = α·o + P v_J
//   at the end:              output_i = o_i / l_i,  lse_i = m_i + log l_i
//
// lse (the log-sum-exp of row i's scores) is all backward keeps: it rebuilds any
// block of weights as P = exp(S − lse) and runs the softmax-and-matmul chain rule
// block by block (D_i = dO_i · O_i;  dV += Pᵀ dO;  dP = dO vᵀ;  dS = P ∘ (dP − D);
// dq += scale·dS k;  dk += scale·dSᵀ q). Extra memory is O(T), not O(T²).
//
// Masks: any Mask (causal with offset, padding, local, strided, combined, from an
// additive 0/−∞ tensor). Causal, local and strided reach the kernel as rules on
// (i, j) (nn/mask.hpp), never as a Tq × Tk tensor; padding and explicit tensors are
// read in place. A key block the mask blocks entirely for a query block is
// skipped (causal: the loop stops at the diagonal). A query row whose every key is
// blocked gets a zero output and zero gradient — the same rule as softmax's.
//
// Threads: forward splits (batch·head, run of query blocks), backward splits the
// batch·head index; each thread writes only its own rows, and every value is
// computed by the same operations in the same order whatever the thread count:
// bit-identical results at 1, 2 or n threads. (No atomics, no split reductions.)
// Backward with a single head therefore runs on one thread.
//
// Shapes: q [..., Tq, d_k], k [..., Tk, d_k], v [..., Tk, d_v] with the same
// leading (batch) dims; float32 or float64. Read scaled_dot_product_attention
// first: it is the formula this file computes, and the tests hold the two equal.
//
// Layout: q, k and v are read through their strides (any view whose rows are
// contiguous, e.g. heads split off [B, T, H, d_k] by a transpose, or a k shared by
// every head through expand); other views are copied first. The output's dims lie
// in memory in q's order, as PyTorch's CPU flash kernel does: heads that came in as
// a transposed view go out as one, and merging them back is a view, not a copy.
// Each value is the same whatever the layout.
#pragma once
#include <optional>

#include "nn/attention.hpp"  // attention_scale: the same scale on both paths
#include "nn/mask.hpp"

namespace attnlab::nn {

struct FlashAttentionResult {
    Tensor output;  // [..., Tq, d_v]
    Tensor lse;     // [..., Tq]: log Σ_j exp(score_ij), −inf for a fully masked row (no grad)
};

// Differentiable in q, k and v. scale: 1/√d_k unless given.
Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Mask& mask = Mask(),
                       std::optional<double> scale = std::nullopt);
// The same with an additive float mask (0 / −∞ only; see Mask::from_additive).
Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& additive_mask,
                       std::optional<double> scale = std::nullopt);
// The output and each row's log-sum-exp (phase 5 rebuilds weights from it).
FlashAttentionResult flash_attention_with_lse(const Tensor& q, const Tensor& k, const Tensor& v,
                                              const Mask& mask = Mask(), std::optional<double> scale = std::nullopt);

// The block sizes the kernel walks: query rows × key rows per tile. Longer key blocks
// mean fewer rescales and row passes per key; forward at T 2048, 1 thread (CPU ms,
// medians of 7): 64 keys 68, 128 keys 60, 256 keys 55, 512 keys 52.5. A longer block
// also wastes more of the diagonal tile under a causal mask, so it stops at 512.
inline constexpr std::int64_t kFlashQueryBlock = 64;
inline constexpr std::int64_t kFlashKeyBlock = 512;

}  // namespace attnlab::nn
