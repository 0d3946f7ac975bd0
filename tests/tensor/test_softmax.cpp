// test_softmax.cpp — softmax values, the -inf masking rule, stability.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/support/tensor_matchers.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;
using attnlab::testing::IsCloseTo;

TEST_CASE("softmax of the seed's examples, by hand", "[tensor][softmax]") {
    // seed 000 "Why -inf instead of zero": softmax([2, 0, 3]) = [0.2595, 0.0351, 0.7054]
    CHECK_THAT(softmax(tensor({2, 0, 3}), 0), IsCloseTo(tensor({0.2595, 0.0351, 0.7054}), 5e-5));
    // masking the middle entry to -inf removes it exactly: [0.2689, 0, 0.7311]
    Tensor masked = softmax(tensor({2, -INFINITY, 3}), 0);
    CHECK_THAT(masked, IsCloseTo(tensor({0.2689, 0, 0.7311}), 5e-5));
    CHECK(masked.at({1}) == 0.0);  // exactly zero, not merely small
}

TEST_CASE("softmax rows sum to one along the chosen dim", "[tensor][softmax]") {
    Tensor x = arange(0.0, 24.0).reshape({2, 3, 4}) * 0.3;
    CHECK_THAT(softmax(x, -1).sum(-1), IsCloseTo(ones({2, 3}), 1e-6));
    CHECK_THAT(softmax(x, 1).sum(1), IsCloseTo(ones({2, 4}), 1e-6));
    CHECK_THAT(exp(log_softmax(x, 1)), IsCloseTo(softmax(x, 1), 1e-6));
}

TEST_CASE("softmax is stable for huge scores", "[tensor][softmax]") {
    // exp(1000) overflows float; subtracting the row max first keeps it finite
    CHECK_THAT(softmax(tensor({1000, 1000}), 0), IsCloseTo(tensor({0.5, 0.5})));
    CHECK_THAT(log_softmax(tensor({1000, 0}), 0), IsCloseTo(tensor({0, -1000}), 1e-3));
}

TEST_CASE("a fully masked row gives zeros, never NaN", "[tensor][softmax][mask]") {
    Tensor scores = tensor({{1, 2, 3}, {-INFINITY, -INFINITY, -INFINITY}});
    CHECK_THAT(softmax(scores, 1), IsCloseTo(tensor({{0.0900, 0.2447, 0.6652}, {0, 0, 0}}), 1e-4));
    CHECK_THAT(log_softmax(scores, 1).select(0, 1), IsCloseTo(tensor({0, 0, 0})));

    SECTION("and a zero gradient, for softmax and log_softmax") {
        for (bool log_form : {false, true}) {
            Tensor s = scores.clone().requires_grad_();
            Tensor y = log_form ? log_softmax(s, 1) : softmax(s, 1);
            // Only the masked row's output feeds the loss.
            (y.select(0, 1) * tensor({1, 2, 3})).sum().backward();
            CHECK_THAT(s.grad(), IsCloseTo(zeros({2, 3})));
        }
    }
}
