// test_reference_mode.cpp — reference mode runs the reading path's readable code, and the
// fast kernels compute what it computes: a TinyGPT trained in each mode agrees.
#include <catch2/catch.hpp>
#include <cmath>

#include "autograd/node.hpp"
#include "nn/transformer.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/rng.hpp"
#include "tests/support/reference_mode.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "training/train.hpp"

using namespace attnlab;
using attnlab::testing::IsCloseTo;
using attnlab::testing::ReferenceMode;

TEST_CASE("ATTNLAB_REFERENCE is 1 or 0; anything else names the variable and the value", "[reference]") {
    CHECK(parse_reference_mode("1"));
    CHECK_FALSE(parse_reference_mode("0"));
    CHECK_THROWS_WITH(parse_reference_mode("yes"), Catch::Contains("ATTNLAB_REFERENCE") && Catch::Contains("'yes'"));
    CHECK_THROWS_AS(parse_reference_mode("2"), ValueError);
}

TEST_CASE("reference mode runs one thread and composed attention", "[reference][attention]") {
    Generator gen(3);
    nn::MultiHeadAttention mha(16, 2, 0, 0, gen);
    const Tensor x = randn({2, 5, 16}, kFloat32, gen);
    const Tensor fast = mha.forward_output(x, nn::Mask::causal(5, 5));
    CHECK(mha.last_path().path == nn::AttentionPath::fused);
    ReferenceMode on(true);
    CHECK(num_threads() == 1);
    const Tensor ref = mha.forward_output(x, nn::Mask::causal(5, 5));
    CHECK(mha.last_path().path == nn::AttentionPath::composed);
    CHECK_THAT(ref, IsCloseTo(fast, 1e-6, 1e-5));
}

TEST_CASE("the plain matmul of reference mode agrees with the fast kernel, views and broadcasts included",
          "[reference][tensor][matmul]") {
    Generator gen(5);
    // a [3, 1, 7, 5] (a transposed view) @ b [4, 5, 6]: batch dims broadcast to [3, 4]
    Tensor a0 = randn({3, 1, 5, 7}, kFloat32, gen).requires_grad_();
    Tensor b = randn({4, 5, 6}, kFloat32, gen).requires_grad_();
    const Tensor r = randn({3, 4, 7, 6}, kFloat32, gen);
    auto run = [&](bool reference) {
        ReferenceMode mode(reference);
        a0.zero_grad(), b.zero_grad();
        Tensor y = matmul(a0.mT(), b);
        sum(y * r).backward();
        return std::vector<Tensor>{y.detach(), a0.grad(), b.grad()};
    };
    const auto fast = run(false), ref = run(true);
    for (std::size_t i = 0; i < fast.size(); ++i) {
        INFO("output " << i << " (0: a @ b, 1: da, 2: db)");
        CHECK_THAT(ref[i], IsCloseTo(fast[i], 1e-5, 1e-5));
    }
    // 1-D operands and the dot product go through the same op
    ReferenceMode on(true);
    const Tensor u = from_vector(std::vector<float>{1, 2, 3}, {3}), w = from_vector(std::vector<float>{4, -5, 6}, {3});
    CHECK(matmul(u, w).item() == 12.0);
}

TEST_CASE("a TinyGPT trained 50 steps in reference mode and in fast mode agrees", "[reference][lab][train][slow]") {
    lab::TrainConfig c;  // TinyGPT's shape: d_model 64, 4 heads, 2 layers, T 32, B 16
    c.task = lab::Task::causal, c.steps = 50, c.warmup = 10, c.eval_every = 50, c.val_batches = 1;
    c.progress = lab::TrainConfig::Progress::quiet;
    c.shards = 2;  // the fast run splits its batch; reference mode never does
    auto run = [&](bool reference) {
        ReferenceMode mode(reference);
        return lab::train(c);
    };
    const lab::TrainResult fast = run(false), ref = run(true);
    REQUIRE(fast.curve.size() == 50);
    REQUIRE(ref.curve.size() == 50);
    double worst = 0;
    for (std::size_t i = 0; i < fast.curve.size(); ++i) {
        const double rel = std::abs(ref.curve[i].loss - fast.curve[i].loss) / std::abs(fast.curve[i].loss);
        worst = std::max(worst, rel);
        INFO("step " << fast.curve[i].step << ": fast " << fast.curve[i].loss << ", reference " << ref.curve[i].loss);
        CHECK(rel <= 1e-4);
    }
    CHECK(fast.curve.back().loss < fast.curve.front().loss - 0.5);  // it trained: the comparison is not of two untrained models
    // The final logits, each model in its own mode, on one batch of the task's sequences.
    Generator gen(11);
    const Tensor ids = randint(0, static_cast<std::int64_t>(fast.vocab.size()), {2, 32}, gen);
    NoGradGuard no_grad;
    fast.model->eval(), ref.model->eval();
    const Tensor fast_logits = fast.model->forward(ids);
    Tensor ref_logits;
    {
        ReferenceMode on(true);
        ref_logits = ref.model->forward(ids);
    }
    CHECK_THAT(ref_logits, IsCloseTo(fast_logits, 1e-4, 1e-4));
    INFO("largest relative loss difference over 50 steps: " << worst);
    CHECK(worst <= 1e-4);
}
