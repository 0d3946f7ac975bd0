// gru.hpp — the gated recurrent unit (Cho et al., 2014): a cell, and the cell run over a sequence.
//
// PyTorch's torch.nn.GRUCell equations, gate order and parameter layout, so weights
// load from torch one to one:
//
//   r  = σ(W_ir x + b_ir + W_hr h + b_hr)          reset gate:  how much of h feeds the candidate
//   z  = σ(W_iz x + b_iz + W_hz h + b_hz)          update gate: how much of h is kept
//   n  = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))  candidate state
//   h' = (1 − z) ⊙ n + z ⊙ h
//
// weight_ih [3h, in] stacks (W_ir; W_iz; W_in), weight_hh [3h, h] stacks (W_hr; W_hz; W_hn),
// bias_ih and bias_hh [3h] likewise. Note r multiplies (W_hn h + b_hn), bias included:
// PyTorch's (and cuDNN's) form, not the original paper's r ⊙ h inside the product.
// Init: U(−1/√h, 1/√h) for every parameter, as PyTorch.
//
// Two implementations of one recurrence:
//   * composed (step_composed, forward_composed): the equations above written with
//     tensor ops, autograd deriving the backward — the readable reference;
//   * fused (step, forward): gru_fused below, one op per run of steps with a
//     hand-written backward (gru_fused.cpp) — several times faster, and tested
//     against the composed version, forward and every gradient.
// Both compute the input half of every gate (x W_ihᵀ + b_ih) for all T steps in one
// matmul before the loop. Left out: multiple layers, bidirectionality, dropout.
#pragma once
#include <vector>

#include "nn/module.hpp"
#include "tensor/rng.hpp"

namespace attnlab::nn {

class GRUCell : public Module {
public:
    GRUCell(std::int64_t input_size, std::int64_t hidden_size, Generator& gen = default_generator());

    // x [B, in], h [B, hidden] -> h' [B, hidden]
    Tensor forward(const Tensor& x, const Tensor& h) const;
    // The same step with the input projection given: gates_x = x W_ihᵀ + b_ih [B, 3·hidden].
    Tensor step(const Tensor& gates_x, const Tensor& h) const;           // fused
    Tensor step_composed(const Tensor& gates_x, const Tensor& h) const;  // the equations as ops
    // x [..., in] -> x W_ihᵀ + b_ih [..., 3·hidden]: the part of every gate that does not depend on h.
    Tensor input_gates(const Tensor& x) const;

    std::int64_t input_size, hidden_size;
    Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};

struct GRUOutput {
    Tensor outputs;  // [B, T, hidden]: the state after each step (zero past a sequence's length)
    Tensor last;     // [B, hidden]: the state after each sequence's last real step
};

// One layer, batch first (torch.nn.GRU(batch_first=True)); parameters live in `cell`.
class GRU : public Module {
public:
    GRU(std::int64_t input_size, std::int64_t hidden_size, Generator& gen = default_generator());

    // x [B, T, in], h0 [B, hidden] (undefined = zeros). With lengths (one per sequence,
    // 1 ≤ length ≤ T), sequence b stops at lengths[b]: later steps leave its state
    // unchanged and output zeros, which is what torch's pack_padded_sequence gives
    // for right-padded batches. Without lengths every sequence runs all T steps.
    GRUOutput forward(const Tensor& x, const Tensor& h0 = Tensor(),
                      const std::vector<std::int64_t>& lengths = {}) const;           // fused
    GRUOutput forward_composed(const Tensor& x, const Tensor& h0 = Tensor(),
                               const std::vector<std::int64_t>& lengths = {}) const;  // step_composed per step

    GRUCell cell;
};

// The recurrence of T steps as one op (gru_fused.cpp), given the input gates:
// gates_x [B, T, 3H] (= x W_ihᵀ + b_ih), h0 [B, H], weight_hh [3H, H], bias_hh [3H]
// -> outputs [B, T, H]. lengths as in GRU::forward. Differentiable in all four tensors.
Tensor gru_fused(const Tensor& gates_x, const Tensor& h0, const Tensor& weight_hh, const Tensor& bias_hh,
                 const std::vector<std::int64_t>& lengths = {});

}  // namespace attnlab::nn
