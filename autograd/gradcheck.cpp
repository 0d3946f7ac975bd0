// gradcheck.cpp — see gradcheck.hpp.
#include "autograd/gradcheck.hpp"

#include <cmath>
#include <sstream>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

namespace attnlab {

GradcheckResult gradcheck(const GradcheckFn& f, const std::vector<Tensor>& xs, const GradcheckOptions& opt) {
    // The inputs are probed in place (so a module's own parameters can be inputs) and
    // restored afterwards, values and .grad alike.
    std::vector<Tensor> saved_grads;
    for (const Tensor& x : xs) {
        if (x.dtype() != kFloat64 || !x.is_contiguous() || !x.is_leaf())
            throw ValueError(std::string("gradcheck: inputs must be contiguous float64 leaves, got ") +
                             dtype_name(x.dtype()) + " " + x.shape().str() + (x.is_leaf() ? "" : " (not a leaf)"));
        saved_grads.push_back(x.grad());
        x.impl()->grad.reset();
    }

    // Analytic: one backward of L = Σ out ⊙ R.
    Tensor out = f(xs);
    Generator gen(opt.seed);
    const Tensor r = randn(out.shape(), kFloat64, gen);
    sum(mul(out, r)).backward();
    std::vector<Tensor> analytic;
    for (std::size_t k = 0; k < xs.size(); ++k) {
        analytic.push_back(xs[k].grad().defined() ? xs[k].grad() : zeros_like(xs[k]));
        xs[k].impl()->grad = saved_grads[k].impl_ptr();
    }

    auto loss_at = [&]() {
        NoGradGuard no_grad;
        return sum(mul(f(xs), r)).item();
    };

    GradcheckResult result;
    result.inputs.resize(xs.size());
    for (std::size_t k = 0; k < xs.size(); ++k) {
        if (!xs[k].requires_grad()) continue;
        GradcheckInputReport& rep = result.inputs[k];
        const double* pa = analytic[k].data_ptr<double>();
        double worst_excess = 0;
        for (std::int64_t i = 0; i < xs[k].numel(); ++i) {
            // Poked and restored through a fresh data_ptr() each time: that marks the storage
            // written, so nothing derived from its old contents (tensor/packed_weights.hpp) is reused.
            auto poke = [&](double value) { xs[k].data_ptr<double>()[i] = value; };
            const double saved = xs[k].data_ptr<double>()[i];
            poke(saved + opt.eps);
            const double up = loss_at();
            poke(saved - opt.eps);
            const double down = loss_at();
            poke(saved);
            const double numeric = (up - down) / (2 * opt.eps);
            const double abs_err = std::abs(pa[i] - numeric);
            // How far past its tolerance this element is; NaN compares false, so it counts as failing.
            double excess = abs_err - (opt.atol + opt.rtol * std::abs(numeric));
            if (std::isnan(excess)) excess = INFINITY;
            if (rep.worst_index < 0 || excess > worst_excess) {
                worst_excess = excess;
                rep.worst_index = i;
                rep.analytic_at_worst = pa[i];
                rep.numeric_at_worst = numeric;
            }
            rep.max_abs_error = std::max(rep.max_abs_error, abs_err);
            rep.max_rel_error = std::max(rep.max_rel_error, abs_err / std::max(std::abs(numeric), 1e-12));
        }
        rep.ok = worst_excess <= 0;
        result.ok = result.ok && rep.ok;
    }
    return result;
}

std::string GradcheckResult::summary() const {
    std::ostringstream s;
    s << (ok ? "gradcheck passed" : "gradcheck FAILED");
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const auto& r = inputs[k];
        if (r.worst_index < 0) continue;
        s << "\n  input " << k << (r.ok ? " ok" : " BAD") << ": max abs err " << r.max_abs_error << ", max rel err "
          << r.max_rel_error << ", worst at flat index " << r.worst_index << " (analytic " << r.analytic_at_worst
          << ", numeric " << r.numeric_at_worst << ")";
    }
    return s.str();
}

}  // namespace attnlab
