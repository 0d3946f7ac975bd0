// tensor_matchers.hpp — Catch2 matchers for tensors.
//
//   CHECK_THAT(y, IsCloseTo(expected, 1e-4));   // same shape, |y − e| ≤ atol + rtol·|e| everywhere
//
// On failure the message shows both shapes, the max difference and the first
// mismatching elements, so a red test says what went wrong without a debugger.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>

#include "tensor/ops.hpp"

namespace attnlab::testing {

class TensorCloseMatcher : public Catch::MatcherBase<Tensor> {
public:
    TensorCloseMatcher(Tensor expected, double atol, double rtol)
        : expected_(std::move(expected)), atol_(atol), rtol_(rtol) {}

    bool match(const Tensor& actual) const override {
        std::ostringstream why;
        bool ok = actual.shape() == expected_.shape();
        if (!ok) why << "shape " << actual.shape().str() << " != expected " << expected_.shape().str();
        if (ok) {
            const auto a = actual.to_vector<double>(), e = expected_.to_vector<double>();
            double max_diff = 0;
            int shown = 0;
            for (std::size_t i = 0; i < a.size(); ++i) {
                const bool same_inf = std::isinf(a[i]) && a[i] == e[i];
                const double diff = same_inf ? 0.0 : std::abs(a[i] - e[i]);
                if (!(diff <= atol_ + rtol_ * std::abs(e[i]))) {  // NaN fails too
                    ok = false;
                    if (shown++ < 5) why << "\n    [" << i << "] got " << a[i] << ", expected " << e[i];
                }
                if (!std::isnan(diff)) max_diff = std::max(max_diff, diff);
            }
            if (!ok) why << "\n    max |difference| " << max_diff << " (atol " << atol_ << ", rtol " << rtol_ << ")";
        }
        description_ = why.str();
        return ok;
    }
    std::string describe() const override {
        return "is close to " + to_string(expected_) + (description_.empty() ? "" : "\n  " + description_);
    }

private:
    Tensor expected_;
    double atol_, rtol_;
    mutable std::string description_;
};

inline TensorCloseMatcher IsCloseTo(const Tensor& expected, double atol = 1e-6, double rtol = 0) {
    return TensorCloseMatcher(expected, atol, rtol);
}

// Bitwise equality (determinism and causality tests): same shape, same dtype, same bits.
inline bool bit_identical(const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
    const Tensor ca = contiguous(a), cb = contiguous(b);
    return std::memcmp(static_cast<const char*>(ca.impl()->storage->data) + ca.offset() * static_cast<std::int64_t>(dtype_size(ca.dtype())),
                       static_cast<const char*>(cb.impl()->storage->data) + cb.offset() * static_cast<std::int64_t>(dtype_size(cb.dtype())),
                       static_cast<std::size_t>(ca.numel()) * dtype_size(ca.dtype())) == 0;
}

}  // namespace attnlab::testing
