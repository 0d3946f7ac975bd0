// mask.cpp — see mask.hpp.
#include "nn/mask.hpp"

#include <cmath>
#include <functional>

#include "tensor/ops.hpp"

namespace attnlab::nn {

// A [Tq, Tk] 0/1 mask from a predicate on (absolute query position, key position).
static Mask build(const char* name, std::int64_t Tq, std::int64_t Tk, std::int64_t offset,
                  const std::function<bool(std::int64_t, std::int64_t)>& allowed) {
    if (Tq < 0 || Tk < 0) throw ValueError(std::string("Mask::") + name + ": negative size Tq=" + std::to_string(Tq) + " Tk=" + std::to_string(Tk));
    if (offset == Mask::kAuto) offset = Tk - Tq;
    if (offset < 0) throw ValueError(std::string("Mask::") + name + ": offset " + std::to_string(offset) + " is negative (Tq=" + std::to_string(Tq) + " > Tk=" + std::to_string(Tk) + "?)");
    std::vector<float> v(static_cast<std::size_t>(Tq * Tk));
    for (std::int64_t i = 0; i < Tq; ++i)
        for (std::int64_t j = 0; j < Tk; ++j) v[static_cast<std::size_t>(i * Tk + j)] = allowed(offset + i, j) ? 1.0f : 0.0f;
    return Mask::from_allowed(from_vector(v, {Tq, Tk}));
}

Mask Mask::causal(std::int64_t Tq, std::int64_t Tk, std::int64_t offset) {
    return build("causal", Tq, Tk, offset, [](std::int64_t p, std::int64_t j) { return j <= p; });
}

Mask Mask::local(std::int64_t Tq, std::int64_t Tk, std::int64_t window, std::int64_t offset) {
    if (window < 0) throw ValueError("Mask::local: window must be >= 0, got " + std::to_string(window));
    return build("local", Tq, Tk, offset, [window](std::int64_t p, std::int64_t j) { return std::abs(p - j) <= window; });
}

Mask Mask::strided(std::int64_t Tq, std::int64_t Tk, std::int64_t stride, std::int64_t offset) {
    if (stride <= 0) throw ValueError("Mask::strided: stride must be positive, got " + std::to_string(stride));
    return build("strided", Tq, Tk, offset, [stride](std::int64_t p, std::int64_t j) { return ((p - j) % stride + stride) % stride == 0; });
}

Mask Mask::padding(const std::vector<std::int64_t>& lengths, std::int64_t Tk) {
    std::vector<float> v;
    for (std::int64_t len : lengths) {
        if (len < 0 || len > Tk)
            throw ValueError("Mask::padding: length " + std::to_string(len) + " is outside [0, " + std::to_string(Tk) + "]");
        for (std::int64_t j = 0; j < Tk; ++j) v.push_back(j < len ? 1.0f : 0.0f);
    }
    return from_allowed(from_vector(v, {static_cast<std::int64_t>(lengths.size()), 1, Tk}));
}

Mask Mask::from_allowed(const Tensor& allowed) {
    if (allowed.dim() != 2 && allowed.dim() != 3)
        throw ShapeError("Mask: expected [Tq, Tk] or [B, Tq, Tk], got " + allowed.shape().str());
    return Mask(ne(allowed.to(kFloat32).detach(), zeros({}, kFloat32)));
}

Mask Mask::from_additive(const Tensor& additive) {
    if (!is_floating(additive.dtype())) throw ValueError("Mask::from_additive: needs a float tensor, got int64");
    const std::vector<double> v = additive.to_vector<double>();
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] != 0.0 && v[i] != -INFINITY)
            throw ValueError("Mask::from_additive: entry " + std::to_string(i) + " is " + std::to_string(v[i]) +
                             "; an additive mask may hold only 0 (attend) and -inf (blocked) — a finite value like "
                             "-1e9 leaks weight when a whole row is masked");
    return from_allowed(eq(additive.detach(), zeros({}, additive.dtype())));
}

Mask Mask::operator&(const Mask& other) const {
    if (empty()) return other;
    if (other.empty()) return *this;
    return Mask(mul(allowed_, other.allowed_));  // broadcasts [Tq, Tk] with [B, 1, Tk] to [B, Tq, Tk]
}

Tensor Mask::additive(DType dtype) const {
    if (empty()) throw ValueError("Mask::additive: the mask is empty (allows everything)");
    return masked_fill(zeros(allowed_.shape(), dtype), eq(allowed_, zeros({})).to(dtype), -INFINITY);
}

Tensor Mask::apply(const Tensor& scores) const {
    if (empty()) return scores;
    Tensor m = allowed_;
    if (m.dim() == 3 && scores.dim() == 4) m = m.unsqueeze(1);  // [B, 1, Tq, Tk]: shared by every head
    const std::int64_t sd = scores.dim(), md = m.dim();
    bool fits = sd >= md && sd >= 2;
    for (std::int64_t i = 1; fits && i <= md; ++i) {
        std::int64_t s = scores.size(sd - i), k = m.size(md - i);
        fits = k == s || k == 1;
    }
    if (!fits) throw ShapeError("Mask::apply: mask " + allowed_.shape().str() + " does not fit scores " + scores.shape().str());
    return where(m.to(scores.dtype()), scores, full({}, -INFINITY, scores.dtype()));
}

}  // namespace attnlab::nn
