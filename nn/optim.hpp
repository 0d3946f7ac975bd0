// optim.hpp — optimizers (SGD with momentum, Adam, AdamW), gradient clipping and
// the warm-up + cosine learning-rate schedule.
//
// Updates follow PyTorch's formulas exactly (torch.optim.SGD / Adam / AdamW), are
// applied in place under NoGradGuard, and skip parameters without a gradient.
// state() lists every buffer by name ("exp_avg.blocks.0.ln1.weight", ...) so a
// checkpoint can store it and training resumes bit for bit.
#pragma once
#include <vector>

#include "nn/module.hpp"

namespace attnlab::nn {

class Optimizer {
public:
    Optimizer(std::vector<NamedParameter> params, double lr);
    virtual ~Optimizer() = default;
    virtual void step() = 0;
    void zero_grad();

    std::vector<NamedParameter> state() const;  // named buffers, in a stable order
    void load_state(const std::vector<NamedParameter>& state);  // throws if a buffer is missing or misshapen
    std::int64_t steps() const { return steps_; }
    void set_steps(std::int64_t n) { steps_ = n; }

    double lr;

protected:
    Tensor& buffer(const std::string& kind, std::size_t i);  // zero-initialised on first use
    std::vector<NamedParameter> params_;
    std::vector<std::string> kinds_;  // buffer kinds this optimizer keeps
    std::vector<std::vector<Tensor>> buffers_;  // [kind][param]
    std::int64_t steps_ = 0;
};

// v = momentum·v + g;  p -= lr·v   (no dampening, as torch.optim.SGD's default)
class SGD : public Optimizer {
public:
    SGD(std::vector<NamedParameter> params, double lr, double momentum = 0, double weight_decay = 0);
    void step() override;
    double momentum, weight_decay;
};

// m = β1 m + (1−β1) g;  v = β2 v + (1−β2) g²;  p -= lr · m̂ / (√v̂ + eps), with the
// bias corrections m̂ = m/(1−β1ᵗ), v̂ = v/(1−β2ᵗ). Adam adds weight_decay·p to g (L2);
// AdamW instead shrinks p by lr·weight_decay before the update (decoupled decay).
class Adam : public Optimizer {
public:
    Adam(std::vector<NamedParameter> params, double lr = 1e-3, double beta1 = 0.9, double beta2 = 0.999,
         double eps = 1e-8, double weight_decay = 0, bool decoupled = false);
    void step() override;
    // The update of one parameter's n elements, after ++steps: the formula in one loop.
    void update(float* w, const float* g, float* m, float* v, std::int64_t n) const;
    double beta1, beta2, eps, weight_decay;
    bool decoupled;
};

class AdamW : public Adam {
public:
    AdamW(std::vector<NamedParameter> params, double lr_ = 1e-3, double beta1_ = 0.9, double beta2_ = 0.999,
          double eps_ = 1e-8, double weight_decay_ = 0.01)
        : Adam(std::move(params), lr_, beta1_, beta2_, eps_, weight_decay_, true) {}
};

// Scales all gradients together so their global L2 norm is at most max_norm;
// returns the norm before clipping (as torch.nn.utils.clip_grad_norm_).
double clip_grad_norm(const std::vector<Tensor>& params, double max_norm);

// Linear warm-up from 0 to base_lr over `warmup` steps, then cosine decay to min_lr at `total`.
double warmup_cosine_lr(std::int64_t step, double base_lr, std::int64_t warmup, std::int64_t total, double min_lr = 0);

}  // namespace attnlab::nn
