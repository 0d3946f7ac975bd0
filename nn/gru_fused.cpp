// gru_fused.cpp — the GRU recurrence as one op with a hand-written backward
// (backpropagation through time), the fast path of GRU and GRUCell.
//
// Why it exists: composed from tensor ops, one GRU step is ~14 small ops, each
// allocating its output and recording a node; and slicing step t out of a [B, T, ·]
// tensor costs a full-size gradient per step in backward (O(T²) in total). Here a
// whole run of T steps is one node: the forward loop saves r, z, n, (W_hn h + b_hn)
// and h_{t−1} per step, and the backward walks the steps in reverse once.
//
// The composed version (GRUCell::step_composed, GRU::forward_composed) is the
// reference: tests/nn/test_gru.cpp checks this op against it, forward and every
// gradient, and both against PyTorch's fixtures. Read that one first.
#include <algorithm>
#include <cmath>
#include <string>

#include "autograd/node.hpp"
#include "nn/fused_math.hpp"
#include "nn/gru.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {
namespace {

// What the forward pass saves for backward, one slab per step: [T, 5, B, H]
// holding h_{t−1}, r, z, n and W_hn h_{t−1} + b_hn.
enum Saved : std::int64_t { kHPrev, kR, kZ, kN, kGhn, kSavedCount };

bool is_valid(const std::vector<std::int64_t>& lengths, std::int64_t b, std::int64_t t) {
    return lengths.empty() || t < lengths[static_cast<std::size_t>(b)];  // step t is inside sequence b
}

}  // namespace

Tensor gru_fused(const Tensor& gates_x, const Tensor& h0, const Tensor& weight_hh, const Tensor& bias_hh,
                 const std::vector<std::int64_t>& lengths) {
    if (gates_x.dim() != 3 || h0.dim() != 2 || weight_hh.dim() != 2 || bias_hh.dim() != 1 ||
        weight_hh.size(0) != 3 * weight_hh.size(1) || gates_x.size(2) != weight_hh.size(0) || h0.size(0) != gates_x.size(0) ||
        h0.size(1) != weight_hh.size(1) || bias_hh.size(0) != weight_hh.size(0))
        throw ShapeError("gru_fused: expected gates_x [B, T, 3H], h0 [B, H], weight_hh [3H, H], bias_hh [3H]; got " +
                         gates_x.shape().str() + ", " + h0.shape().str() + ", " + weight_hh.shape().str() + ", " +
                         bias_hh.shape().str());
    const std::int64_t B = gates_x.size(0), T = gates_x.size(1), H = h0.size(1);
    if (!lengths.empty() && static_cast<std::int64_t>(lengths.size()) != B)
        throw ShapeError("gru_fused: " + std::to_string(lengths.size()) + " lengths for a batch of " + std::to_string(B));
    const Tensor gx = contiguous(gates_x);
    Tensor out = zeros({B, T, H}, gates_x.dtype());                  // [B, T, H]; zero where a sequence has ended
    Tensor saved = empty({T, kSavedCount, B, H}, gates_x.dtype());   // see Saved
    Tensor h = contiguous(h0).clone();                               // [B, H], the running state
    const Tensor bh = contiguous(bias_hh);
    {
        NoGradGuard no_grad;
        dispatch_float(gx.dtype(), "gru_fused", [&]<typename F>(F) {
            for (std::int64_t t = 0; t < T; ++t) {
                const Tensor gh = matmul(h, weight_hh.mT());  // [B, 3H] = W_hh h (b_hh is added below)
                const F* ghp = gh.const_data_ptr<F>();
                const F* bp = bh.const_data_ptr<F>();
                F* hp = h.data_ptr<F>();
                F* s = saved.data_ptr<F>() + t * kSavedCount * B * H;
                auto at = [&](Saved k, std::int64_t b) { return s + (k * B + b) * H; };
                for (std::int64_t b = 0; b < B; ++b) {
                    std::copy(hp + b * H, hp + (b + 1) * H, at(kHPrev, b));
                    if (!is_valid(lengths, b, t)) continue;  // the state is carried unchanged, the output stays 0
                    const F* xg = gx.const_data_ptr<F>() + (b * T + t) * 3 * H;
                    const F* hg = ghp + b * 3 * H;
                    F* o = out.data_ptr<F>() + (b * T + t) * H;
                    for (std::int64_t j = 0; j < H; ++j) {
                        const F r = fused::sigmoid(xg[j] + hg[j] + bp[j]);
                        const F z = fused::sigmoid(xg[H + j] + hg[H + j] + bp[H + j]);
                        const F ghn = hg[2 * H + j] + bp[2 * H + j];
                        const F n = fused::tanh(xg[2 * H + j] + r * ghn);
                        const F hprev = hp[b * H + j];
                        at(kR, b)[j] = r, at(kZ, b)[j] = z, at(kN, b)[j] = n, at(kGhn, b)[j] = ghn;
                        o[j] = hp[b * H + j] = n + z * (hprev - n);  // (1 − z) n + z h
                    }
                }
            }
        });
    }

    record(out, "gru_fused", {gates_x, h0, weight_hh, bias_hh},
           [saved, weight_hh = weight_hh.detach(), lengths, B, T, H](const Tensor& g) -> Grads {
        const Tensor dout = contiguous(g);                         // [B, T, H]
        Tensor dgx = zeros({B, T, 3 * H}, g.dtype());              // d gates_x
        Tensor dgh_all = zeros({T, B, 3 * H}, g.dtype());          // d (W_hh h_{t−1} + b_hh), every step
        Tensor dh = zeros({B, H}, g.dtype());                      // dL/dh_t arriving from step t + 1
        std::vector<double> dbias(static_cast<std::size_t>(3 * H), 0.0);  // Σ over steps and batch of dgh
        dispatch_float(g.dtype(), "gru_fused backward", [&]<typename F>(F) {
            for (std::int64_t t = T - 1; t >= 0; --t) {
                const F* s = saved.const_data_ptr<F>() + t * kSavedCount * B * H;
                auto at = [&](Saved k, std::int64_t b) { return s + (k * B + b) * H; };
                F* dgh = dgh_all.data_ptr<F>() + t * B * 3 * H;
                Tensor dh_direct = dh.clone();  // the part of dL/dh_{t−1} that skips W_hh: z ⊙ dh (or all of dh if invalid)
                F* dhp = dh.data_ptr<F>();
                F* dd = dh_direct.data_ptr<F>();
                for (std::int64_t b = 0; b < B; ++b) {
                    if (!is_valid(lengths, b, t)) continue;  // h_t = h_{t−1}: dh passes straight through, no gate gets gradient
                    const F* go = dout.const_data_ptr<F>() + (b * T + t) * H;
                    F* dx = dgx.data_ptr<F>() + (b * T + t) * 3 * H;
                    F* dhg = dgh + b * 3 * H;
                    for (std::int64_t j = 0; j < H; ++j) {
                        const F r = at(kR, b)[j], z = at(kZ, b)[j], n = at(kN, b)[j], ghn = at(kGhn, b)[j];
                        const F hprev = at(kHPrev, b)[j];
                        const F d = dhp[b * H + j] + go[j];        // dL/dh_t: from the future and from output t
                        const F dn = d * (F(1) - z);               // h_t = (1 − z) n + z h_{t−1}
                        const F dz = d * (hprev - n);
                        const F dan = dn * (F(1) - n * n);         // tanh' = 1 − tanh²
                        const F dar = dan * ghn * r * (F(1) - r);  // n's argument holds r ⊙ ghn; σ' = σ(1 − σ)
                        const F daz = dz * z * (F(1) - z);
                        dx[j] = dar, dx[H + j] = daz, dx[2 * H + j] = dan;
                        dhg[j] = dar, dhg[H + j] = daz, dhg[2 * H + j] = dan * r;
                        dd[b * H + j] = d * z;
                    }
                    for (std::int64_t j = 0; j < 3 * H; ++j) dbias[static_cast<std::size_t>(j)] += dhg[j];
                }
                // dL/dh_{t−1} = z ⊙ dL/dh_t + (d gates_h) W_hh     [B, 3H] @ [3H, H]
                dh = dh_direct + matmul(dgh_all.select(0, t), weight_hh);
            }
        });
        // Every step used the same W_hh and b_hh: their gradients sum over steps, in one matmul.
        const Tensor dgh_flat = dgh_all.reshape({T * B, 3 * H});
        const Tensor hprev_flat = saved.select(1, kHPrev).reshape({T * B, H});
        return {dgx, dh, matmul(dgh_flat.mT(), hprev_flat), from_vector(dbias, {3 * H}, g.dtype())};
    });
    return out;
}

}  // namespace attnlab::nn
