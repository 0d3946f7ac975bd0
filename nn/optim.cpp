// optim.cpp — see optim.hpp.
#include "nn/optim.hpp"

#include <cmath>
#include <numbers>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"
#include "tensor/vec_math.hpp"

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

namespace {

struct AdamConstants {
    float step_size, inv_sqrt_bc2, b1, b2, e, decay, shrink;
};

// One parameter's update: a separate function with restrict pointers, the length
// read once and the Adam/AdamW choice a template argument. The body is written once,
// for a float or a whole vector of them (detail::vec::VF), so the vector loop and the
// scalar tail do the same arithmetic in the same order: the same bits in every lane
// (tests/nn/test_loss_optim.cpp checks a tail element against a vector lane). The
// square root is spelled out: vec::sqrt, since GCC vectorises no std::sqrt. And AdamW's
// decayed weight is vec::unfused: called from a lambda (session 21 tried the update in
// runs over threads), GCC fused w·shrink − step into one multiply-subtract in the vector
// loop and not in the tail, and the test above failed; inlined here, it fused neither.
template <bool kDecoupled, typename V>
inline void adam_element(V& w, V g, V& m, V& v, const AdamConstants& c, V (*root)(V)) {
    if constexpr (kDecoupled) w = detail::vec::unfused(w * c.shrink);  // AdamW: decay the weight itself
    else g += c.decay * w;                    // Adam: L2 penalty in the gradient
    m = c.b1 * m + (1 - c.b1) * g;
    v = c.b2 * v + (1 - c.b2) * g * g;
    w -= c.step_size * m / (root(v) * c.inv_sqrt_bc2 + c.e);
}

template <bool kDecoupled>
void adam_update(float* __restrict w, const float* __restrict g, float* __restrict m, float* __restrict v,
                 std::int64_t n, const AdamConstants& c) {
    namespace vec = detail::vec;
    std::int64_t j = 0;
    for (; j + vec::kLanes <= n; j += vec::kLanes) {
        vec::VF wj = vec::load(w + j), mj = vec::load(m + j), vj = vec::load(v + j);
        adam_element<kDecoupled, vec::VF>(wj, vec::load(g + j), mj, vj, c, vec::sqrt);
        vec::store(w + j, wj), vec::store(m + j, mj), vec::store(v + j, vj);
    }
    for (; j < n; ++j) adam_element<kDecoupled, float>(w[j], g[j], m[j], v[j], c, [](float x) { return std::sqrt(x); });
}

}  // namespace

Adam::Adam(std::vector<NamedParameter> params, double lr_, double beta1_, double beta2_, double eps_,
           double weight_decay_, bool decoupled_)
    : Optimizer(std::move(params), lr_), beta1(beta1_), beta2(beta2_), eps(eps_), weight_decay(weight_decay_),
      decoupled(decoupled_) {}

void Adam::step() {
    NoGradGuard no_grad;
    ++steps_;
    const double bc1 = 1 - std::pow(beta1, static_cast<double>(steps_));
    const double bc2 = 1 - std::pow(beta2, static_cast<double>(steps_));
    const float step_size = static_cast<float>(lr / bc1), inv_sqrt_bc2 = static_cast<float>(1 / std::sqrt(bc2));
    const float b1 = static_cast<float>(beta1), b2 = static_cast<float>(beta2), e = static_cast<float>(eps);
    const float decay = static_cast<float>(weight_decay), shrink = static_cast<float>(1 - lr * weight_decay);
    const AdamConstants c{step_size, inv_sqrt_bc2, b1, b2, e, decay, shrink};
    for (std::size_t i = 0; i < params_.size(); ++i) {
        const Tensor& p = params_[i].tensor;
        if (!p.grad().defined()) continue;
        float* m = buffer("exp_avg", i).data_ptr<float>();
        float* v = buffer("exp_avg_sq", i).data_ptr<float>();
        if (decoupled) adam_update<true>(p.data_ptr<float>(), p.grad().data_ptr<float>(), m, v, p.numel(), c);
        else adam_update<false>(p.data_ptr<float>(), p.grad().data_ptr<float>(), m, v, p.numel(), c);
    }
}

double clip_grad_norm(const std::vector<Tensor>& params, double max_norm) {
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
