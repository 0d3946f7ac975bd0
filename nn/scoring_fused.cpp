// scoring_fused.cpp — additive (Bahdanau) scores as one op with a hand-written backward.
//
//   e[b, i, j] = Σ_c v[c] · tanh(q[b, i, c] + k[b, j, c])      q = W_s s, k = W_h h + b
//
// Composed from tensor ops (AdditiveScoring::score_composed) this materialises the
// [B, Tq, Tk, d_attn] tensor of every (query, key) pair four times over (the sum,
// its tanh, and their gradients), and the tanh dominated a seq2seq training step.
// Here the pair tensor exists once (its tanh, saved for backward). The composed
// version stays as the reference; tests/nn/test_scoring.cpp checks one against the other.
#include <algorithm>
#include <vector>

#include "autograd/node.hpp"
#include "nn/fused_math.hpp"
#include "nn/scoring.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

Tensor additive_scores(const Tensor& q, const Tensor& k, const Tensor& v) {
    if (q.dim() != 3 || k.dim() != 3 || v.dim() != 1 || q.size(0) != k.size(0) || q.size(2) != k.size(2) ||
        v.size(0) != q.size(2))
        throw ShapeError("additive_scores: expected q [B, Tq, A], k [B, Tk, A], v [A]; got " + q.shape().str() + ", " +
                         k.shape().str() + ", " + v.shape().str());
    const std::int64_t B = q.size(0), Tq = q.size(1), Tk = k.size(1), A = q.size(2);
    const Tensor qc = contiguous(q), kc = contiguous(k), vc = contiguous(v);
    Tensor scores = empty({B, Tq, Tk}, q.dtype());
    Tensor t = empty({B, Tq, Tk, A}, q.dtype());  // tanh(q_i + k_j), saved for backward
    dispatch_float(q.dtype(), "additive_scores", [&]<typename F>(F) {
        const F* vp = vc.const_data_ptr<F>();
        for (std::int64_t b = 0; b < B; ++b)
            for (std::int64_t i = 0; i < Tq; ++i) {
                const F* qi = qc.const_data_ptr<F>() + (b * Tq + i) * A;
                for (std::int64_t j = 0; j < Tk; ++j) {
                    const F* kj = kc.const_data_ptr<F>() + (b * Tk + j) * A;
                    F* tp = t.data_ptr<F>() + ((b * Tq + i) * Tk + j) * A;
                    double e = 0;
                    for (std::int64_t c = 0; c < A; ++c) e += static_cast<double>(vp[c]) * (tp[c] = fused::tanh(qi[c] + kj[c]));
                    scores.data_ptr<F>()[(b * Tq + i) * Tk + j] = static_cast<F>(e);
                }
            }
    });
    record(scores, "additive_scores", {q, k, v}, [t, vc, B, Tq, Tk, A](const Tensor& g) -> Grads {
        // With u = q_i + k_j and d = g_ij · v ⊙ (1 − tanh² u):  dq_i += d,  dk_j += d,  dv += g_ij · tanh u
        const Tensor gc = contiguous(g);
        Tensor dq = zeros({B, Tq, A}, g.dtype()), dk = zeros({B, Tk, A}, g.dtype());
        std::vector<double> dv(static_cast<std::size_t>(A), 0.0);
        dispatch_float(g.dtype(), "additive_scores backward", [&]<typename F>(F) {
            const F* vp = vc.const_data_ptr<F>();
            for (std::int64_t b = 0; b < B; ++b)
                for (std::int64_t i = 0; i < Tq; ++i) {
                    F* dqi = dq.data_ptr<F>() + (b * Tq + i) * A;
                    for (std::int64_t j = 0; j < Tk; ++j) {
                        const F gij = gc.const_data_ptr<F>()[(b * Tq + i) * Tk + j];
                        if (gij == 0) continue;  // masked keys get no gradient: skip their work
                        const F* tp = t.const_data_ptr<F>() + ((b * Tq + i) * Tk + j) * A;
                        F* dkj = dk.data_ptr<F>() + (b * Tk + j) * A;
                        for (std::int64_t c = 0; c < A; ++c) {
                            const F d = gij * vp[c] * (F(1) - tp[c] * tp[c]);
                            dqi[c] += d, dkj[c] += d;
                            dv[static_cast<std::size_t>(c)] += static_cast<double>(gij) * tp[c];
                        }
                    }
                }
        });
        return {dq, dk, from_vector(dv, {A}, g.dtype())};
    });
    return scores;
}

}  // namespace attnlab::nn
