// test_engine.cpp — what backward() does: accumulation, reuse, diamonds, long
// chains, retain_grad, NoGradGuard, detach, and the second-backward rule.
#include <catch2/catch.hpp>

#include "autograd/node.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;
using attnlab::testing::IsCloseTo;

TEST_CASE("a tensor used twice receives the sum of both gradients", "[autograd][engine]") {
    // b = a + a; c = b + b  =>  c = 4a, dc/da = 4 (micrograd's classic reuse bug)
    Tensor a = tensor({3.0}).requires_grad_();
    Tensor b = a + a;
    Tensor c = b + b;
    c.sum().backward();
    CHECK(a.grad().item() == 4.0);
}

TEST_CASE("a diamond graph sums its two branches", "[autograd][engine]") {
    // y = exp(x) * sin-free branch: y = (2x) * (x²)  =>  dy/dx = 6x²
    Tensor x = tensor({1.0, 2.0}, kFloat64).requires_grad_();
    Tensor left = x * 2.0, right = x * x;
    (left * right).sum().backward();
    CHECK_THAT(x.grad(), IsCloseTo(tensor({6.0, 24.0}, kFloat64), 1e-12));
}

TEST_CASE("a 10,000-op chain backpropagates without recursion", "[autograd][engine]") {
    Tensor x = tensor({1.0}, kFloat64).requires_grad_();
    Tensor h = x;
    for (int i = 0; i < 10000; ++i) h = h * 1.0001;  // an unrolled recurrence
    h.sum().backward();
    CHECK(x.grad().item() == Approx(std::pow(1.0001, 10000)).epsilon(1e-9));
}

TEST_CASE("gradients accumulate across backward calls until zero_grad", "[autograd][engine]") {
    Tensor w = tensor({2.0}).requires_grad_();
    (w * 3.0).sum().backward();
    (w * 3.0).sum().backward();
    CHECK(w.grad().item() == 6.0);
    w.zero_grad();
    CHECK_FALSE(w.grad().defined());
    (w * w).sum().backward();
    CHECK(w.grad().item() == 4.0);
}

TEST_CASE("a second backward through a freed graph is an error, unless retained", "[autograd][engine]") {
    Tensor w = tensor({2.0}).requires_grad_();
    Tensor y = (w * w).sum();
    y.backward(/*retain_graph=*/true);
    y.backward();
    CHECK(w.grad().item() == 8.0);  // 4 + 4
    CHECK_THROWS_WITH(y.backward(), Catch::Contains("already freed"));
}

TEST_CASE("retain_grad keeps an intermediate's gradient", "[autograd][engine]") {
    Tensor x = tensor({1.0, 2.0}).requires_grad_();
    Tensor s = x * 3.0;
    s.retain_grad();
    Tensor t = x * 2.0;  // not retained
    (s * t).sum().backward();
    CHECK_THAT(s.grad(), IsCloseTo(tensor({2.0, 4.0})));  // d(s·t)/ds = t
    CHECK_FALSE(t.grad().defined());
}

TEST_CASE("backward with an explicit upstream gradient", "[autograd][engine]") {
    Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
    Tensor y = x * x;
    y.backward(tensor({1.0, 0.5, 0.0}));
    CHECK_THAT(x.grad(), IsCloseTo(tensor({2.0, 2.0, 0.0})));
    CHECK_THROWS_AS((x * x).backward(), AutogradError);         // non-scalar without a gradient
    CHECK_THROWS_AS((x * x).backward(ones({2})), ShapeError);   // gradient of the wrong shape
}

TEST_CASE("NoGradGuard and detach cut the graph", "[autograd][engine]") {
    Tensor w = tensor({1.0}).requires_grad_();
    {
        NoGradGuard no_grad;
        Tensor y = w * 2.0;
        CHECK_FALSE(y.requires_grad());
    }
    CHECK((w * 2.0).requires_grad());
    Tensor d = (w * 2.0).detach();
    CHECK_FALSE(d.requires_grad());
    CHECK(d.is_leaf());
    CHECK_THROWS_AS(zeros({1}).backward(), AutogradError);
    CHECK_THROWS_AS((w * 2.0).requires_grad_(false), AutogradError);  // only leaves
    CHECK_THROWS_AS(fill_(w, 0.0), AutogradError);                     // in-place on a leaf that needs grad
}

TEST_CASE("the graph is released after backward", "[autograd][engine]") {
    Tensor x = tensor({1.0}).requires_grad_();
    Tensor big = zeros({1000});
    std::weak_ptr<TensorImpl> saved;
    Tensor y;
    {
        Tensor scaled = x * 2.0;
        saved = scaled.impl_ptr();
        y = (scaled * big.narrow(0, 0, 1)).sum();
    }
    CHECK_FALSE(saved.expired());  // held by y's graph
    y.backward();
    CHECK(saved.expired());  // freed by the sweep
}

TEST_CASE("a 100,000-op graph is destroyed without recursion", "[autograd][engine]") {
    Tensor x = tensor({1.0}).requires_grad_();
    {
        Tensor h = x;
        for (int i = 0; i < 100000; ++i) h = h * 1.0;
    }  // dropped without backward: the chain must unwind iteratively
    CHECK(x.requires_grad());
}

TEST_CASE("leaves sharing one upstream gradient get storages of their own", "[autograd][engine]") {
    // d(a+b)/da and d(a+b)/db are the same tensor g: a leaf may keep a gradient as its own
    // only when nothing else holds it, so writing into a.grad must leave b.grad alone.
    Tensor a = tensor({1.0, 2.0}).requires_grad_(), b = tensor({3.0, 4.0}).requires_grad_();
    (a + b).sum().backward();
    REQUIRE(a.grad().impl()->storage != b.grad().impl()->storage);
    {
        NoGradGuard no_grad;
        fill_(a.grad(), 7.0);
    }
    CHECK_THAT(b.grad(), IsCloseTo(tensor({1.0, 1.0}), 0));
    // A gradient no one else holds (x·w's, a fresh product) is kept, with the right values.
    Tensor w = tensor({2.0, 5.0}).requires_grad_();
    (w * tensor({3.0, -1.0})).sum().backward();
    CHECK_THAT(w.grad(), IsCloseTo(tensor({3.0, -1.0}), 0));
}

TEST_CASE("topological_order lists every node once, however often it is called", "[autograd][engine]") {
    // Each call marks the nodes it lists with its own number (Node::sort_mark): a mark left
    // by an earlier call, on this graph or on one sharing nodes with it, hides nothing.
    Tensor x = tensor({1.0, 2.0}).requires_grad_();
    Tensor shared = x * 3.0;                            // mul: in both graphs below
    Tensor diamond = (shared + shared.exp()) * shared;  // exp, add, mul
    Tensor other = shared.log();
    const auto first = topological_order(diamond.impl_ptr());
    CHECK(first.size() == 4);
    CHECK(topological_order(other.impl_ptr()).size() == 2);
    const auto again = topological_order(diamond.impl_ptr());
    REQUIRE(again.size() == first.size());
    for (std::size_t i = 0; i < first.size(); ++i) CHECK(again[i] == first[i]);
    CHECK(first.front() == diamond.impl_ptr());
    CHECK(first.back() == shared.impl_ptr());
}
