// mask.cpp — see mask.hpp.
#include "nn/mask.hpp"

#include <cmath>
#include <functional>

#include "tensor/ops.hpp"

namespace attnlab::nn {

// A [Tq, Tk] rule, its sizes and offset checked (the tensor is built only when asked for).
static MaskRule rule(const char* name, MaskRule::Kind kind, std::int64_t Tq, std::int64_t Tk, std::int64_t offset,
                     std::int64_t param) {
    if (Tq < 0 || Tk < 0) throw ValueError(std::string("Mask::") + name + ": negative size Tq=" + std::to_string(Tq) + " Tk=" + std::to_string(Tk));
    if (offset == Mask::kAuto) offset = Tk - Tq;
    if (offset < 0) throw ValueError(std::string("Mask::") + name + ": offset " + std::to_string(offset) + " is negative (Tq=" + std::to_string(Tq) + " > Tk=" + std::to_string(Tk) + "?)");
    return {kind, Tq, Tk, offset, param};
}

Mask Mask::causal(std::int64_t Tq, std::int64_t Tk, std::int64_t offset) {
    return Mask(std::vector<MaskRule>{rule("causal", MaskRule::Kind::causal, Tq, Tk, offset, 0)});
}

Mask Mask::local(std::int64_t Tq, std::int64_t Tk, std::int64_t window, std::int64_t offset) {
    if (window < 0) throw ValueError("Mask::local: window must be >= 0, got " + std::to_string(window));
    return Mask(std::vector<MaskRule>{rule("local", MaskRule::Kind::local, Tq, Tk, offset, window)});
}

Mask Mask::strided(std::int64_t Tq, std::int64_t Tk, std::int64_t stride, std::int64_t offset) {
    if (stride <= 0) throw ValueError("Mask::strided: stride must be positive, got " + std::to_string(stride));
    return Mask(std::vector<MaskRule>{rule("strided", MaskRule::Kind::strided, Tq, Tk, offset, stride)});
}

const Tensor& Mask::allowed() const {
    std::call_once(built_->once, [&] {
        Tensor a = tensor_;
        for (const MaskRule& r : rules_) {
            std::vector<float> v(static_cast<std::size_t>(r.Tq * r.Tk));
            for (std::int64_t i = 0; i < r.Tq; ++i)
                for (std::int64_t j = 0; j < r.Tk; ++j) v[static_cast<std::size_t>(i * r.Tk + j)] = r.allows(i, j) ? 1.0f : 0.0f;
            const Tensor t = from_vector(v, {r.Tq, r.Tk});
            a = a.defined() ? mul(a, t) : t;  // broadcasts [Tq, Tk] with [B, 1, Tk] to [B, Tq, Tk]
        }
        built_->allowed = a;
    });
    return built_->allowed;
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

Mask Mask::batch_rows(std::int64_t lo, std::int64_t n) const {
    if (!tensor_.defined() || tensor_.dim() != 3 || tensor_.size(0) == 1) return *this;
    if (lo < 0 || n < 0 || lo + n > tensor_.size(0))
        throw ValueError("Mask::batch_rows: rows " + std::to_string(lo) + " .. " + std::to_string(lo + n - 1) +
                         " of a mask for " + std::to_string(tensor_.size(0)) + " sequences");
    return Mask(rules_, tensor_.narrow(0, lo, n).contiguous());
}

Mask Mask::operator&(const Mask& other) const {
    if (empty()) return other;
    if (other.empty()) return *this;
    std::vector<MaskRule> rules = rules_;
    rules.insert(rules.end(), other.rules_.begin(), other.rules_.end());
    for (const MaskRule& r : rules)
        if (r.Tq != rules[0].Tq || r.Tk != rules[0].Tk)
            throw ShapeError("Mask::operator&: masks of [" + std::to_string(rules[0].Tq) + ", " + std::to_string(rules[0].Tk) +
                             "] and [" + std::to_string(r.Tq) + ", " + std::to_string(r.Tk) + "] do not combine");
    const Tensor t = !tensor_.defined() ? other.tensor_ : !other.tensor_.defined() ? tensor_ : mul(tensor_, other.tensor_);
    if (!rules.empty() && t.defined()) {  // the tensor must broadcast against [Tq, Tk]: say so here, as before
        const std::int64_t Tq = rules[0].Tq, Tk = rules[0].Tk, n = t.dim();
        if ((t.size(n - 2) != Tq && t.size(n - 2) != 1) || (t.size(n - 1) != Tk && t.size(n - 1) != 1))
            throw ShapeError("Mask::operator&: mask " + t.shape().str() + " does not combine with [" + std::to_string(Tq) + ", " +
                             std::to_string(Tk) + "]");
    }
    return Mask(std::move(rules), t);
}

Tensor Mask::additive(DType dtype) const {
    if (empty()) throw ValueError("Mask::additive: the mask is empty (allows everything)");
    return masked_fill(zeros(allowed().shape(), dtype), eq(allowed(), zeros({})).to(dtype), -INFINITY);
}

Tensor Mask::apply(const Tensor& scores) const {
    if (empty()) return scores;
    Tensor m = allowed();
    if (m.dim() == 3 && scores.dim() == 4) m = m.unsqueeze(1);  // [B, 1, Tq, Tk]: shared by every head
    const std::int64_t sd = scores.dim(), md = m.dim();
    bool fits = sd >= md && sd >= 2;
    for (std::int64_t i = 1; fits && i <= md; ++i) {
        std::int64_t s = scores.size(sd - i), k = m.size(md - i);
        fits = k == s || k == 1;
    }
    if (!fits) throw ShapeError("Mask::apply: mask " + allowed().shape().str() + " does not fit scores " + scores.shape().str());
    return where(m.to(scores.dtype()), scores, full({}, -INFINITY, scores.dtype()));
}

}  // namespace attnlab::nn
