// gradcheck.hpp — checking an op's backward against finite differences.
//
// For f(inputs) -> out, gradcheck compares the analytic gradient of the scalar
//   L = Σ out ⊙ R,   R a fixed random tensor,
// with central differences (L(x + h) − L(x − h)) / 2h, one input element at a time.
// The random projection R matters: a plain Σ out checks nothing for softmax (its
// rows always sum to 1, so that sum has gradient 0 whatever backward returns).
//
// Inputs must be float64 (differences in float32 lose half their digits to
// rounding); keep them away from kinks (relu at 0, max ties), where the two
// one-sided derivatives differ and no finite difference is right.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab {

struct GradcheckOptions {
    double eps = 1e-6;   // step h; central differences have error O(h²) plus rounding O(ε/h)
    double atol = 1e-7;  // pass if |analytic − numeric| ≤ atol + rtol·|numeric|, elementwise
    double rtol = 1e-5;
    std::uint64_t seed = 1234;  // for R
};

struct GradcheckInputReport {
    double max_abs_error = 0;
    double max_rel_error = 0;
    std::int64_t worst_index = -1;  // flat index of the worst element (row-major)
    double analytic_at_worst = 0, numeric_at_worst = 0;
    bool ok = true;
};

struct GradcheckResult {
    bool ok = true;
    std::vector<GradcheckInputReport> inputs;  // one per input (skipped ones stay default)
    std::string summary() const;               // one line per input, for a failing test's output
};

using GradcheckFn = std::function<Tensor(const std::vector<Tensor>&)>;

// Checks every input that requires grad. Inputs must be contiguous float64 leaves;
// they are perturbed in place while probing and restored afterwards (values and
// .grad), so a module's own parameters can be passed as inputs.
GradcheckResult gradcheck(const GradcheckFn& f, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace attnlab
