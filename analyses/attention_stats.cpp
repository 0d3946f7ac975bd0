// attention_stats.cpp — see attention_stats.hpp.
#include "analyses/attention_stats.hpp"

#include <cmath>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

// |i − j| (or any f(i, j)) as a [Tq, Tk] tensor in the weights' dtype.
template <typename F>
static Tensor position_map(const Tensor& w, F f) {
    const std::int64_t Tq = w.size(-2), Tk = w.size(-1);
    std::vector<double> v(static_cast<std::size_t>(Tq * Tk));
    for (std::int64_t i = 0; i < Tq; ++i)
        for (std::int64_t j = 0; j < Tk; ++j) v[static_cast<std::size_t>(i * Tk + j)] = f(i, j);
    return from_vector(v, {Tq, Tk}, w.dtype());
}

static void check(const Tensor& w, const char* name) {
    if (w.dim() < 2) throw ShapeError(std::string(name) + ": expected weights [..., Tq, Tk], got " + w.shape().str());
}

Tensor row_entropy(const Tensor& w) {
    check(w, "row_entropy");
    NoGradGuard no_grad;
    // 0 · ln 0 = 0: where a weight is 0 its term is dropped (where, not w·ln(w + ε), so it is exact)
    Tensor zero = zeros({}, w.dtype());
    Tensor terms = where(gt(w, zero), w * log(where(gt(w, zero), w, ones({}, w.dtype()))), zero);
    return -sum(terms, -1);
}

Tensor row_distance(const Tensor& w) {
    check(w, "row_distance");
    NoGradGuard no_grad;
    return sum(w * position_map(w, [](auto i, auto j) { return std::abs(static_cast<double>(i - j)); }), -1);
}

Tensor diagonal_mass(const Tensor& w) {
    check(w, "diagonal_mass");
    NoGradGuard no_grad;
    return sum(w * position_map(w, [](auto i, auto j) { return i == j ? 1.0 : 0.0; }), -1);
}

Tensor local_mass(const Tensor& w) {
    check(w, "local_mass");
    NoGradGuard no_grad;
    return sum(w * position_map(w, [](auto i, auto j) { return std::abs(i - j) <= 1 ? 1.0 : 0.0; }), -1);
}

Tensor previous_mass(const Tensor& w) {
    check(w, "previous_mass");
    NoGradGuard no_grad;
    return sum(w * position_map(w, [](auto i, auto j) { return j == i - 1 ? 1.0 : 0.0; }), -1);
}

Tensor per_head_mean(const Tensor& per_query) {
    if (per_query.dim() != 3) throw ShapeError("per_head_mean: expected [B, H, Tq], got " + per_query.shape().str());
    return mean(mean(per_query, 2), 0);
}

Tensor attention_rollout(const std::vector<Tensor>& layers) {
    if (layers.empty()) throw ValueError("attention_rollout: no layers");
    NoGradGuard no_grad;
    Tensor rollout;
    for (const Tensor& a : layers) {
        if (a.dim() != 3 || a.size(1) != a.size(2))
            throw ShapeError("attention_rollout: each layer must be [H, T, T], got " + a.shape().str());
        Tensor eye = position_map(a, [](auto i, auto j) { return i == j ? 1.0 : 0.0; });
        Tensor mixed = mean(a, 0) * 0.5 + eye * 0.5;  // the residual stream carries half of each token through
        rollout = rollout.defined() ? matmul(mixed, rollout) : mixed;
    }
    return rollout;
}

Tensor head_similarity(const Tensor& heads) {
    if (heads.dim() != 3) throw ShapeError("head_similarity: expected [H, T, T], got " + heads.shape().str());
    NoGradGuard no_grad;
    Tensor flat = heads.reshape({heads.size(0), -1});                 // [H, T·T]
    Tensor unit = flat / sqrt(sum(flat * flat, 1, true));             // rows of length 1
    return matmul(unit, unit.mT());                                   // [H, H]
}

}  // namespace attnlab::lab
