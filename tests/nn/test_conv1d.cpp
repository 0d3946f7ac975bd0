// test_conv1d.cpp — the causal dilated Conv1d: its value against the definition written as
// loops, its gradients against finite differences, its receptive field and its bad input.
#include <catch2/catch.hpp>

#include "nn/conv1d.hpp"
#include "tensor/ops.hpp"
#include "tests/support/gradcheck_helpers.hpp"

using namespace attnlab;
using attnlab::testing::check_gradients;

TEST_CASE("causal_conv1d computes y[t] = b + sum_j W[:, :, j] x[t - d(K-1-j)] with x[< 0] = 0", "[nn][conv1d]") {
    Generator gen(3);
    const std::int64_t B = 2, T = 7, in = 3, out = 4, K = 3, d = 2;
    const Tensor x = randn({B, T, in}, kFloat64, gen), w = randn({out, in, K}, kFloat64, gen), b = randn({out}, kFloat64, gen);
    const Tensor y = nn::causal_conv1d(x, w, b, d);
    REQUIRE(y.shape() == Shape{B, T, out});
    for (std::int64_t n = 0; n < B; ++n)
        for (std::int64_t t = 0; t < T; ++t)
            for (std::int64_t o = 0; o < out; ++o) {
                double expected = b.at({o});
                for (std::int64_t j = 0; j < K; ++j) {
                    const std::int64_t src = t - d * (K - 1 - j);
                    if (src < 0) continue;
                    for (std::int64_t c = 0; c < in; ++c) expected += w.at({o, c, j}) * x.at({n, src, c});
                }
                CHECK(y.at({n, t, o}) == Approx(expected).margin(1e-12));
            }
}

TEST_CASE("causal_conv1d's gradients match finite differences in x, weight and bias", "[nn][conv1d][gradcheck]") {
    Generator gen(4);
    for (std::int64_t dilation : {1, 3}) {
        INFO("dilation " << dilation);
        const Tensor x = attnlab::testing::grad_input(gen, {2, 6, 3}), w = attnlab::testing::grad_input(gen, {2, 3, 3});
        const Tensor b = attnlab::testing::grad_input(gen, {2});
        check_gradients([dilation](const std::vector<Tensor>& in) { return nn::causal_conv1d(in[0], in[1], in[2], dilation); },
                        {x, w, b});
    }
}

TEST_CASE("a stack of causal convolutions reads exactly its receptive field", "[nn][conv1d]") {
    CHECK(nn::Conv1d::receptive_field(3, {1, 2, 4}) == 15);
    CHECK(nn::Conv1d::receptive_field(3, {1, 1, 1}) == 7);
    Generator gen(5);
    nn::Conv1d c1(2, 2, 3, 1, gen), c2(2, 2, 3, 2, gen);  // field 1 + 2 + 4 = 7
    c1.to(kFloat64), c2.to(kFloat64);
    const Tensor x = randn({1, 10, 2}, kFloat64, gen).requires_grad_();
    select(c2.forward(c1.forward(x)), 1, 9).sum().backward();  // the output at the last position
    for (std::int64_t t = 0; t < 10; ++t) {
        INFO("position " << t);
        const double g = sum(abs(x.grad().select(0, 0).select(0, t))).item();
        if (t < 10 - 7) CHECK(g == 0.0);  // outside the field: no path at all
        else CHECK(g > 0.0);
    }
}

TEST_CASE("Conv1d rejects bad sizes and shapes, naming the operation", "[nn][conv1d][bad_input]") {
    CHECK_THROWS_WITH(nn::Conv1d(3, 4, 3, 0), Catch::Contains("Conv1d(3, 4, 3, dilation 0)"));
    nn::Conv1d c(3, 4, 3);
    CHECK_THROWS_WITH(c.forward(zeros({2, 5, 2})), Catch::Contains("causal_conv1d: x [2, 5, 2]"));
}
