// gradcheck_helpers.hpp — the two lines every gradcheck test needs.
#pragma once
#include <catch2/catch.hpp>

#include "autograd/gradcheck.hpp"
#include "tensor/rng.hpp"

namespace attnlab::testing {

// A float64 leaf requiring grad, uniform in [lo, hi).
inline Tensor grad_input(Generator& gen, const Shape& shape, double lo = -1.0, double hi = 1.0) {
    return uniform(shape, lo, hi, kFloat64, gen).requires_grad_();
}

// Runs gradcheck and fails the current test with its per-input summary.
inline void check_gradients(const GradcheckFn& f, const std::vector<Tensor>& xs, const GradcheckOptions& opt = {}) {
    GradcheckResult r = gradcheck(f, xs, opt);
    INFO(r.summary());
    CHECK(r.ok);
}

}  // namespace attnlab::testing
