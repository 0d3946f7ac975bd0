// test_gradcheck_ops.cpp — every differentiable op's backward against central differences.
//
// Each case builds float64 inputs away from the op's kinks and runs gradcheck
// (autograd/gradcheck.hpp), which reduces the output with a fixed random
// projection, so ops whose plain sum is constant (softmax) are really checked.
// Default tolerances: atol 1e-7, rtol 1e-5 — with h = 1e-6 the central-difference
// truncation error is ~1e-12·f''' and rounding ~1e-16/1e-6 = 1e-10 per unit of
// output, far below that; any real backward bug is off by O(1).
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/support/gradcheck_helpers.hpp"
#include "autograd/node.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

using namespace attnlab;
using attnlab::testing::check_gradients;

namespace {

Generator gen(2024);

Tensor input(const Shape& shape, double lo = -1.0, double hi = 1.0) { return attnlab::testing::grad_input(gen, shape, lo, hi); }


using V = const std::vector<Tensor>&;

}  // namespace

TEST_CASE("gradcheck: binary ops, plain and broadcasting", "[autograd][gradcheck]") {
    check_gradients([](V x) { return add(x[0], x[1]); }, {input({3, 4}), input({3, 4})});
    check_gradients([](V x) { return sub(x[0], x[1]); }, {input({3, 4}), input({4})});
    check_gradients([](V x) { return mul(x[0], x[1]); }, {input({2, 3, 4}), input({3, 1})});
    check_gradients([](V x) { return div(x[0], x[1]); }, {input({3, 4}), input({1, 4}, 0.5, 2.0)});
    check_gradients([](V x) { return pow(x[0], x[1]); }, {input({3, 4}, 0.5, 2.0), input({4})});
    check_gradients([](V x) { return pow(x[0], 3.0); }, {input({5})});
    check_gradients([](V x) { return maximum(x[0], x[1]); }, {input({4, 4}), input({4})});
    check_gradients([](V x) { return x[0] * 2.0 + 1.0 - x[0] / 3.0; }, {input({3})});
}

TEST_CASE("gradcheck: where and masked_fill route the gradient", "[autograd][gradcheck]") {
    Tensor cond = tensor({{1, 0, 1}, {0, 0, 1}}, kFloat64);
    check_gradients([cond](V x) { return where(cond, x[0], x[1]); }, {input({2, 3}), input({3})});
    check_gradients([cond](V x) { return masked_fill(x[0], cond, -5.0); }, {input({2, 3})});
}

TEST_CASE("gradcheck: unary functions", "[autograd][gradcheck]") {
    check_gradients([](V x) { return neg(x[0]); }, {input({4})});
    check_gradients([](V x) { return exp(x[0]); }, {input({4})});
    check_gradients([](V x) { return log(x[0]); }, {input({4}, 0.5, 3.0)});
    check_gradients([](V x) { return sqrt(x[0]); }, {input({4}, 0.5, 3.0)});
    check_gradients([](V x) { return abs(x[0]); }, {tensor({0.4, -0.7, 0.9, -0.2}, kFloat64).requires_grad_()});  // away from 0
    check_gradients([](V x) { return tanh(x[0]); }, {input({4}, -2, 2)});
    check_gradients([](V x) { return sigmoid(x[0]); }, {input({4}, -3, 3)});
    check_gradients([](V x) { return gelu(x[0]); }, {input({6}, -3, 3)});
    // relu away from its kink at 0
    check_gradients([](V x) { return relu(x[0]); }, {tensor({-0.7, -0.2, 0.3, 0.9}, kFloat64).requires_grad_()});
}

TEST_CASE("gradcheck: reductions", "[autograd][gradcheck]") {
    check_gradients([](V x) { return sum(x[0]); }, {input({3, 4})});
    check_gradients([](V x) { return sum(x[0], 1); }, {input({3, 4})});
    check_gradients([](V x) { return sum(x[0], {0, 2}, true); }, {input({2, 3, 4})});
    check_gradients([](V x) { return mean(x[0], 0); }, {input({3, 4})});
    check_gradients([](V x) { return var(x[0], 1); }, {input({3, 5})});
    // max away from ties: distinct values
    check_gradients([](V x) { return max(x[0], 1).values; }, {tensor({{0.1, 0.9, 0.5}, {0.7, 0.2, 0.3}}, kFloat64).requires_grad_()});
    check_gradients([](V x) { return min(x[0], 0, true).values; }, {tensor({{0.1, 0.9}, {0.7, 0.2}}, kFloat64).requires_grad_()});
}

TEST_CASE("gradcheck: softmax and log_softmax, with and without masked entries", "[autograd][gradcheck][softmax]") {
    check_gradients([](V x) { return softmax(x[0], -1); }, {input({3, 5}, -2, 2)});
    check_gradients([](V x) { return softmax(x[0], 0); }, {input({3, 5}, -2, 2)});
    check_gradients([](V x) { return log_softmax(x[0], 1); }, {input({2, 4, 3}, -2, 2)});
    Tensor mask = tensor({{0, 1, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 1}}, kFloat64);  // last row fully masked
    check_gradients([mask](V x) { return softmax(masked_fill(x[0], mask, -INFINITY), 1); }, {input({3, 4})});
    // log_softmax puts -inf at masked entries (log 0); a loss never reads them, so neither does the check.
    check_gradients([mask](V x) { return masked_fill(log_softmax(masked_fill(x[0], mask, -INFINITY), 1), mask, 0.0); },
          {input({3, 4})});
}

TEST_CASE("gradcheck: matmul in every batching form", "[autograd][gradcheck][matmul]") {
    check_gradients([](V x) { return matmul(x[0], x[1]); }, {input({3, 4}), input({4, 2})});
    check_gradients([](V x) { return matmul(x[0], x[1]); }, {input({2, 3, 4}), input({4, 5})});
    // a batched x @ 2-D W: dW is one product over all rows, also for a 4-D or non-contiguous x
    check_gradients([](V x) { return matmul(x[0], x[1]); }, {input({2, 2, 3, 4}), input({4, 5})});
    check_gradients([](V x) { return matmul(x[0].transpose(0, 1), x[1]); }, {input({3, 2, 4}), input({4, 5})});
    check_gradients([](V x) { return matmul(x[0], x[1]); }, {input({2, 1, 3, 4}), input({3, 4, 2})});
    check_gradients([](V x) { return matmul(x[0], x[1]); }, {input({4}), input({4, 3})});
    check_gradients([](V x) { return matmul(x[0], x[1]); }, {input({2, 4}), input({4})});
    check_gradients([](V x) { return matmul(x[0], x[1]); }, {input({4}), input({4})});
    check_gradients([](V x) { return matmul(x[0], x[1].mT()); }, {input({3, 4}), input({5, 4})});
}

TEST_CASE("gradcheck: views", "[autograd][gradcheck][views]") {
    check_gradients([](V x) { return x[0].reshape({4, 3}); }, {input({2, 6})});
    check_gradients([](V x) { return x[0].transpose(0, 2); }, {input({2, 3, 4})});
    check_gradients([](V x) { return x[0].permute({1, 2, 0}); }, {input({2, 3, 4})});
    check_gradients([](V x) { return x[0].unsqueeze(1).squeeze(1); }, {input({2, 3})});
    check_gradients([](V x) { return x[0].expand({4, 2, 3}); }, {input({2, 1})});
    check_gradients([](V x) { return x[0].narrow(1, 1, 2); }, {input({3, 4})});
    check_gradients([](V x) { return slice(x[0], 0, 1, 6, 2); }, {input({7})});
    check_gradients([](V x) { return x[0].select(0, -1); }, {input({3, 4})});
    check_gradients([](V x) { return flatten(x[0].transpose(0, 1)); }, {input({3, 4})});
    check_gradients([](V x) { return x[0].clone() * x[0].contiguous(); }, {input({3, 4})});
}

TEST_CASE("gradcheck: joins, index_select, embedding, triangles", "[autograd][gradcheck]") {
    check_gradients([](V x) { return cat({x[0], x[1], x[0]}, 1); }, {input({2, 3}), input({2, 1})});
    check_gradients([](V x) { return stack({x[0], x[1]}, 0); }, {input({2, 3}), input({2, 3})});
    check_gradients([](V x) { return split(x[0], 2, 1)[1] * chunk(x[0], 3, 1)[0]; }, {input({2, 6})});
    Tensor ids = from_vector<std::int64_t>({2, 0, 2, 1}, {4});  // a repeated index sums its gradients
    check_gradients([ids](V x) { return index_select(x[0], 1, ids); }, {input({3, 3})});
    check_gradients([](V x) { return embedding(x[0], from_vector<std::int64_t>({1, 1, 0, 3}, {2, 2})); }, {input({4, 3})});
    check_gradients([](V x) { return tril(x[0]) + triu(x[0], 1) * 2.0; }, {input({2, 3, 3})});
}

TEST_CASE("gradcheck: dtype conversion passes the gradient through", "[autograd][gradcheck]") {
    // float64 -> float32 -> float64 loses precision in the forward only; the check
    // needs looser tolerances because the function itself is rounded to float32.
    GradcheckOptions loose;
    loose.eps = 1e-3;
    loose.atol = 1e-3;
    loose.rtol = 1e-3;
    check_gradients([](V x) { return x[0].to(kFloat32).to(kFloat64) * x[0]; }, {input({4})}, loose);
}

TEST_CASE("gradcheck catches a wrong backward", "[autograd][gradcheck]") {
    // An op whose backward is deliberately off by a factor 2: gradcheck must fail.
    auto bad_square = [](V x) {
        Tensor out = x[0].detach() * x[0].detach();
        record(out, "bad_square", {x[0]}, [a = x[0]](const Tensor& g) -> Grads { return {g * a}; });  // should be 2a
        return out;
    };
    GradcheckResult r = gradcheck(bad_square, {input({3}, 0.5, 1.0)});
    CHECK_FALSE(r.ok);
    CHECK(r.inputs[0].worst_index >= 0);
    CHECK_THAT(r.summary(), Catch::Contains("FAILED"));
}

TEST_CASE("gradcheck rejects float32 inputs", "[autograd][gradcheck][errors]") {
    CHECK_THROWS_AS(gradcheck([](V x) { return x[0]; }, {ones({2}).requires_grad_()}), ValueError);
}
