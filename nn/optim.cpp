// optim.cpp — see optim.hpp.
#include "nn/optim.hpp"

#include <cmath>
#include <numbers>

#include "autograd/node.hpp"
#include "nn/optim_fast.hpp"
#include "tensor/ops.hpp"
#include "tensor/reference.hpp"

namespace attnlab::nn {

Optimizer::Optimizer(std::vector<NamedParameter> params, double lr_) : lr(lr_), params_(std::move(params)) {
    for (const auto& p : params_)
        if (p.tensor.dtype() != kFloat32 || !p.tensor.is_contiguous())
            throw ValueError("Optimizer: parameter '" + p.name + "' must be a contiguous float32 tensor");
}

void Optimizer::zero_grad() {
    for (auto& p : params_) p.tensor.zero_grad();
}

Tensor& Optimizer::buffer(const std::string& kind, std::size_t i) {
    std::size_t k = 0;
    while (k < kinds_.size() && kinds_[k] != kind) ++k;
    if (k == kinds_.size()) {
        kinds_.push_back(kind);
        buffers_.emplace_back(params_.size());
    }
    Tensor& b = buffers_[k][i];
    if (!b.defined()) b = zeros_like(params_[i].tensor);
    return b;
}

std::vector<NamedParameter> Optimizer::state() const {
    std::vector<NamedParameter> out;
    for (std::size_t k = 0; k < kinds_.size(); ++k)
        for (std::size_t i = 0; i < params_.size(); ++i)
            if (buffers_[k][i].defined()) out.push_back({kinds_[k] + "." + params_[i].name, buffers_[k][i]});
    return out;
}

void Optimizer::load_state(const std::vector<NamedParameter>& state) {
    for (const auto& s : state) {
        const std::size_t dot = s.name.find('.');
        const std::string kind = s.name.substr(0, dot), pname = dot == std::string::npos ? "" : s.name.substr(dot + 1);
        std::size_t i = 0;
        while (i < params_.size() && params_[i].name != pname) ++i;
        if (i == params_.size()) throw ValueError("Optimizer::load_state: no parameter named '" + pname + "' for '" + s.name + "'");
        Tensor& b = buffer(kind, i);
        if (s.tensor.shape() != b.shape())
            throw ShapeError("Optimizer::load_state: '" + s.name + "' has shape " + s.tensor.shape().str() +
                             ", the parameter has " + b.shape().str());
        NoGradGuard no_grad;
        copy_(b, s.tensor);
    }
}

SGD::SGD(std::vector<NamedParameter> params, double lr_, double momentum_, double weight_decay_)
    : Optimizer(std::move(params), lr_), momentum(momentum_), weight_decay(weight_decay_) {}

void SGD::step() {
    NoGradGuard no_grad;
    ++steps_;
    for (std::size_t i = 0; i < params_.size(); ++i) {
        const Tensor& p = params_[i].tensor;
        if (!p.grad().defined()) continue;
        float* w = p.data_ptr<float>();
        const float* g = p.grad().const_data_ptr<float>();
        // The buffer starts at zero, so the first step sets it to d — torch's "buf = d" on first use.
        float* v = momentum != 0 ? buffer("momentum", i).data_ptr<float>() : nullptr;
        for (std::int64_t j = 0, n = p.numel(); j < n; ++j) {
            float d = g[j] + static_cast<float>(weight_decay) * w[j];
            if (v) d = v[j] = static_cast<float>(momentum) * v[j] + d;
            w[j] -= static_cast<float>(lr) * d;
        }
    }
}

Adam::Adam(std::vector<NamedParameter> params, double lr_, double beta1_, double beta2_, double eps_,
           double weight_decay_, bool decoupled_)
    : Optimizer(std::move(params), lr_), beta1(beta1_), beta2(beta2_), eps(eps_), weight_decay(weight_decay_),
      decoupled(decoupled_) {}

// One parameter's update, as the formula reads, in float:
//   Adam: g += λ·w          AdamW: w ← w·(1 − lr·λ)        (λ = weight_decay)
//   m ← β1·m + (1 − β1)·g;  v ← β2·v + (1 − β2)·g²
//   w ← w − lr·m̂ / (√v̂ + eps),  with m̂ = m / (1 − β1ᵗ) and v̂ = v / (1 − β2ᵗ)
// The corrections are folded into two constants, step_size = lr / (1 − β1ᵗ) and
// 1/√(1 − β2ᵗ), as PyTorch does (and as the fast path does, so both round alike: Adam
// divides by √v, which magnifies any rounding difference in a gradient near zero).
void Adam::update(float* w, const float* g, float* m, float* v, std::int64_t n) const {
    const double bc1 = 1 - std::pow(beta1, static_cast<double>(steps_));
    const double bc2 = 1 - std::pow(beta2, static_cast<double>(steps_));
    const float step_size = static_cast<float>(lr / bc1), inv_sqrt_bc2 = static_cast<float>(1 / std::sqrt(bc2));
    const float b1 = static_cast<float>(beta1), b2 = static_cast<float>(beta2), e = static_cast<float>(eps);
    const float decay = static_cast<float>(weight_decay), shrink = static_cast<float>(1 - lr * weight_decay);
    for (std::int64_t j = 0; j < n; ++j) {
        float gj = g[j];
        if (decoupled) w[j] = w[j] * shrink;  // AdamW: decay the weight itself
        else gj += decay * w[j];             // Adam: L2 penalty in the gradient
        m[j] = b1 * m[j] + (1 - b1) * gj;
        v[j] = b2 * v[j] + (1 - b2) * gj * gj;
        w[j] -= step_size * m[j] / (std::sqrt(v[j]) * inv_sqrt_bc2 + e);
    }
}

void Adam::step() {
    NoGradGuard no_grad;
    ++steps_;
    std::vector<AdamSlot> slots;  // the parameters with a gradient, for the fast path
    for (std::size_t i = 0; i < params_.size(); ++i) {
        const Tensor& p = params_[i].tensor;
        if (!p.grad().defined()) continue;
        float* m = buffer("exp_avg", i).data_ptr<float>();
        float* v = buffer("exp_avg_sq", i).data_ptr<float>();
        if (reference_mode()) update(p.data_ptr<float>(), p.grad().data_ptr<float>(), m, v, p.numel());
        else slots.push_back({p.data_ptr<float>(), p.grad().data_ptr<float>(), m, v, p.numel()});
    }
    adam_update_fast(*this, slots);  // fast path: see nn/optim_fast.cpp; update() is what it computes
}

double clip_grad_norm(const std::vector<Tensor>& params, double max_norm) {
    if (!reference_mode()) {
        // fast path (contiguous float32 gradients): see nn/optim_fast.cpp; the loops below are what it computes
        std::vector<float*> grads;
        std::vector<std::int64_t> sizes;
        bool all_float = true;
        for (const Tensor& p : params) {
            if (!p.grad().defined()) continue;
            all_float = all_float && p.grad().dtype() == kFloat32 && p.grad().is_contiguous();
            if (!all_float) break;
            grads.push_back(p.grad().data_ptr<float>()), sizes.push_back(p.grad().numel());
        }
        if (all_float) return clip_grad_norm_fast(grads, sizes, max_norm);
    }
    // Each gradient is read in place (a leaf's is contiguous), not copied out, and summed
    // in double in element order; float32 or float64 alike.
    double total = 0;
    for (const Tensor& p : params) {
        if (!p.grad().defined()) continue;
        const Tensor g = contiguous(p.grad());
        dispatch_float(g.dtype(), "clip_grad_norm", [&]<typename T>(T) {
            const T* pg = g.const_data_ptr<T>();
            for (std::int64_t j = 0, n = g.numel(); j < n; ++j) total += static_cast<double>(pg[j]) * static_cast<double>(pg[j]);
        });
    }
    total = std::sqrt(total);
    const double coef = max_norm / (total + 1e-6);  // torch's epsilon, so a zero gradient is left alone
    if (coef < 1) {
        NoGradGuard no_grad;
        for (const Tensor& p : params)
            if (p.grad().defined())
                dispatch_float(p.grad().dtype(), "clip_grad_norm", [&]<typename T>(T) {
                    Tensor g = p.grad();
                    if (!g.is_contiguous()) {  // scale a contiguous copy and make it the gradient
                        g = contiguous(g);
                        Tensor(p).set_grad(g);
                    }
                    T* pg = g.data_ptr<T>();
                    for (std::int64_t j = 0, n = g.numel(); j < n; ++j) pg[j] *= static_cast<T>(coef);
                });
    }
    return total;
}

double warmup_cosine_lr(std::int64_t step, double base_lr, std::int64_t warmup, std::int64_t total, double min_lr) {
    if (step < warmup) return base_lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
    if (step >= total) return min_lr;
    const double progress = static_cast<double>(step - warmup) / static_cast<double>(std::max<std::int64_t>(1, total - warmup));
    return min_lr + 0.5 * (base_lr - min_lr) * (1 + std::cos(std::numbers::pi * progress));
}

}  // namespace attnlab::nn
