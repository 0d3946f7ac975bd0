// test_mlp_fast.cpp — the fused bias + GELU (nn/mlp_fast.cpp) against the composed ops it
// replaces, gelu(x·Wᵀ + b) as three ops: the same bits forward and in every gradient, on any
// thread count, and MLP::forward's dispatch (fused outside reference mode, composed in it).
#include <catch2/catch.hpp>

#include <string>

#include "autograd/node.hpp"
#include "nn/layers.hpp"
#include "nn/mlp_fast.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tests/support/leaf_grads.hpp"
#include "tests/support/reference_mode.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "tests/support/thread_count.hpp"

using namespace attnlab;
using attnlab::testing::bit_identical;
using attnlab::testing::ReferenceMode;
using attnlab::testing::run_with_grads;
using attnlab::testing::ThreadCount;

namespace {

// Whether the graph below t holds a node of the op `name`.
bool graph_has(const Tensor& t, const std::string& name) {
    for (const auto& impl : topological_order(t.impl_ptr()))
        if (impl->grad_fn && name == impl->grad_fn->name) return true;
    return false;
}

}  // namespace

TEST_CASE("linear_gelu_fast: the same bits as gelu(x·Wᵀ + b), forward and every gradient", "[nn][mlp][fused]") {
    // (leading dims, in, out): a width that ends mid-vector, a tail of rows, W4's and W7's hidden layers
    struct Case {
        Shape lead;
        std::int64_t in, out;
    };
    const Case cases[] = {{{3, 5}, 16, 40}, {{1, 7}, 24, 17}, {{16, 32}, 64, 256}, {{12, 64}, 128, 512}, {{9}, 8, 3}};
    for (const Case& c : cases) {
        for (const int threads : {1, 2}) {
            ThreadCount t(threads);
            manual_seed(static_cast<std::uint64_t>(c.in * 1000 + c.out));
            Shape xs = c.lead, hs = c.lead;
            xs.push_back(c.in), hs.push_back(c.out);
            const Tensor x = randn(xs), w = randn({c.out, c.in}) * 0.2, b = randn({c.out}) * 0.5, g = randn(hs);
            const auto composed = run_with_grads(x, w, b, g, [](const Tensor& xi, const Tensor& wi, const Tensor& bi) {
                return gelu(matmul(xi, wi.mT()) + bi);  // composed: linear() itself is fused with grad
            });
            const auto fused = run_with_grads(x, w, b, g, [](const Tensor& xi, const Tensor& wi, const Tensor& bi) {
                return nn::linear_gelu_fast(xi, wi, bi);
            });
            INFO("x " << xs.str() << ", out " << c.out << ", threads " << threads);
            CHECK(bit_identical(fused.out, composed.out));
            CHECK(bit_identical(fused.dx, composed.dx));
            CHECK(bit_identical(fused.dw, composed.dw));
            CHECK(bit_identical(fused.db, composed.db));
        }
    }
}

TEST_CASE("linear_gelu_fast: gradients only for the inputs that want them; no grad, no node", "[nn][mlp][fused]") {
    manual_seed(3);
    const Tensor w = randn({8, 4}), b = randn({8}), g = randn({2, 3, 8});
    Tensor x = randn({2, 3, 4}).requires_grad_();
    Tensor h = nn::linear_gelu_fast(x, w, b);
    CHECK(std::string(h.grad_fn_name()) == "linear_gelu");
    h.backward(g);
    CHECK(x.grad().defined());
    CHECK_FALSE(w.grad().defined());
    const Tensor plain = nn::linear_gelu_fast(x.detach(), w, b);
    CHECK(std::string(plain.grad_fn_name()).empty());
    CHECK(bit_identical(plain, h.detach()));
}

TEST_CASE("linear_gelu_fast: a bad shape or dtype is a ShapeError naming the op", "[nn][mlp][fused]") {
    const Tensor x = randn({2, 3, 4}), w = randn({8, 4}), b = randn({8});
    CHECK_THROWS_WITH(nn::linear_gelu_fast(randn({2, 3, 5}), w, b), Catch::Contains("linear_gelu") && Catch::Contains("[2, 3, 5]"));
    CHECK_THROWS_AS(nn::linear_gelu_fast(x, w, randn({7})), ShapeError);
    CHECK_THROWS_AS(nn::linear_gelu_fast(x, w, Tensor()), ShapeError);
    CHECK_THROWS_AS(nn::linear_gelu_fast(x.to(kFloat64), w.to(kFloat64), b.to(kFloat64)), ShapeError);
}

TEST_CASE("MLP::forward takes the fused bias + GELU, and the composed ops in reference mode", "[nn][mlp][fused]") {
    Generator gen(11);
    nn::MLP mlp(16, 64, gen);
    manual_seed(5);
    const Tensor x = randn({2, 5, 16}).requires_grad_();
    const Tensor fast = mlp.forward(x);
    CHECK(graph_has(fast, "linear_gelu"));
    CHECK_FALSE(graph_has(fast, "gelu"));
    const Tensor composed = mlp.fc2.forward(gelu(mlp.fc1.forward(x)));
    CHECK(bit_identical(fast, composed));
    ReferenceMode on(true);
    const Tensor reference = mlp.forward(x);
    CHECK(graph_has(reference, "gelu"));
    CHECK_FALSE(graph_has(reference, "linear_gelu"));
}
