// test_linear_fast.cpp — linear()'s fused path with a gradient (tensor/matmul_fast.cpp's
// linear_fast_recorded) against the two ops it replaces, matmul(x, Wᵀ) + b: the same bits
// forward and in every gradient, on any thread count, and linear()'s dispatch (one "linear"
// node outside reference mode, the composed two inside it).
#include <catch2/catch.hpp>

#include <string>

#include "autograd/node.hpp"
#include "tensor/matmul_fast.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/rng.hpp"
#include "tests/support/leaf_grads.hpp"
#include "tests/support/reference_mode.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "tests/support/thread_count.hpp"

using namespace attnlab;
using attnlab::testing::bit_identical;
using attnlab::testing::ReferenceMode;
using attnlab::testing::run_with_grads;
using attnlab::testing::ThreadCount;

TEST_CASE("linear with a gradient: one fused node, the same bits as matmul(x, Wᵀ) + b", "[tensor][linear][fused]") {
    // (leading dims, in, out): widths that end mid-vector and mid-tile, a tail of rows, and
    // W7's attention projection and fc2 ([12, 64] rows of 128 -> 128, 512 -> 128)
    struct Case {
        Shape lead;
        std::int64_t in, out;
    };
    const Case cases[] = {{{3, 5}, 16, 40}, {{1, 7}, 24, 17}, {{12, 64}, 128, 128}, {{12, 64}, 512, 128}, {{9}, 8, 3}};
    for (const Case& c : cases) {
        for (const int threads : {1, 2}) {
            ThreadCount t(threads);
            manual_seed(static_cast<std::uint64_t>(c.in * 1000 + c.out));
            Shape xs = c.lead, ys = c.lead;
            xs.push_back(c.in), ys.push_back(c.out);
            const Tensor x = randn(xs), w = randn({c.out, c.in}) * 0.2, b = randn({c.out}) * 0.5, g = randn(ys);
            const auto composed = run_with_grads(x, w, b, g, [](const Tensor& xi, const Tensor& wi, const Tensor& bi) {
                return matmul(xi, wi.mT()) + bi;
            });
            const auto fused = run_with_grads(x, w, b, g, [](const Tensor& xi, const Tensor& wi, const Tensor& bi) {
                Tensor y = linear(xi, wi, bi);
                CHECK(std::string(y.grad_fn_name()) == "linear");
                return y;
            });
            INFO("x " << xs.str() << ", out " << c.out << ", threads " << threads);
            CHECK(bit_identical(fused.out, composed.out));
            CHECK(bit_identical(fused.dx, composed.dx));
            CHECK(bit_identical(fused.dw, composed.dw));
            CHECK(bit_identical(fused.db, composed.db));
        }
    }
}

TEST_CASE("linear with a gradient: only the inputs that want one get it; reference mode composes", "[tensor][linear][fused]") {
    manual_seed(3);
    const Tensor w = randn({8, 4}), b = randn({8}), g = randn({2, 3, 8});
    Tensor x = randn({2, 3, 4}).requires_grad_();
    Tensor y = linear(x, w, b);
    CHECK(std::string(y.grad_fn_name()) == "linear");
    y.backward(g);
    CHECK(x.grad().defined());
    CHECK_FALSE(w.grad().defined());
    CHECK_FALSE(b.grad().defined());
    const Tensor plain = linear(x.detach(), w, b);
    CHECK(std::string(plain.grad_fn_name()).empty());
    CHECK(bit_identical(plain, y.detach()));

    // x a strided view (a KV cache's step): the formula's two ops, whose bias add runs apart
    const Tensor view = linear(randn({3, 2, 4}).transpose(0, 1).requires_grad_(), w, b);
    CHECK(std::string(view.grad_fn_name()) == "add");

    ReferenceMode on(true);
    const Tensor reference = linear(x, w, b);
    CHECK(std::string(reference.grad_fn_name()) == "add");
}
