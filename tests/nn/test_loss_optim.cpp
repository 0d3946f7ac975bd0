// test_loss_optim.cpp — cross-entropy (fused vs composed), optimizers vs PyTorch, clipping, schedule.
#include <catch2/catch.hpp>
#include <cmath>

#include "autograd/gradcheck.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::IsCloseTo;

static std::string fixture(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/" + name + ".npy"; }

TEST_CASE("cross_entropy: values, ignore_index, fused = composed", "[nn][loss]") {
    // uniform logits over 4 classes: loss ln 4 whatever the target
    CHECK(cross_entropy(zeros({3, 4}), from_vector<std::int64_t>({0, 3, 1}, {3})).item() == Approx(std::log(4.0)));
    Tensor logits = tensor({{2, 0, 3}, {1, 1, 1}});
    Tensor targets = from_vector<std::int64_t>({2, kIgnoreIndex}, {2});
    CHECK(cross_entropy(logits, targets).item() == Approx(-std::log(0.7054)).epsilon(1e-3));  // only row 0 counts
    CHECK(cross_entropy(logits, from_vector<std::int64_t>({kIgnoreIndex, kIgnoreIndex}, {2})).item() == 0.0);

    Generator gen(4);
    Tensor x = uniform({2, 3, 5}, -2, 2, kFloat64, gen);
    Tensor t = from_vector<std::int64_t>({1, 4, kIgnoreIndex, 0, 0, 2}, {2, 3});
    Tensor a = x.clone().requires_grad_(), b = x.clone().requires_grad_();
    Tensor la = cross_entropy(a, t), lb = cross_entropy_reference(b, t);
    CHECK(la.item() == Approx(lb.item()).epsilon(1e-12));
    la.backward();
    lb.backward();
    CHECK_THAT(a.grad(), IsCloseTo(b.grad(), 1e-12));
    GradcheckResult r = gradcheck([&](const std::vector<Tensor>& v) { return cross_entropy(v[0], t); }, {x.clone().requires_grad_()});
    INFO(r.summary());
    CHECK(r.ok);
    CHECK_THROWS_WITH(cross_entropy(zeros({2, 3}), from_vector<std::int64_t>({0, 3}, {2})), Catch::Contains("target 3"));
    CHECK_THROWS_AS(cross_entropy(zeros({2, 3}), zeros({2})), ShapeError);
    CHECK(mse_loss(tensor({1, 2}), tensor({3, 2})).item() == 2.0);
}

TEST_CASE("optimizers match torch.optim step for step", "[nn][optim][pytorch]") {
    auto run = [](const std::string& name, auto make) {
        INFO("optimizer " << name);
        Tensor p = load_npy(fixture(name + ".start")).requires_grad_();
        Tensor grads = load_npy(fixture(name + ".grads"));
        auto opt = make(std::vector<NamedParameter>{{"p", p}});
        for (std::int64_t s = 0; s < grads.size(0); ++s) {
            p.set_grad(grads.select(0, s).contiguous());
            opt.step();
        }
        CHECK_THAT(p, IsCloseTo(load_npy(fixture(name + ".end")), 1e-6, 1e-6));
    };
    run("sgd_momentum", [](auto ps) { return SGD(ps, 0.1, 0.9, 0.01); });
    run("adam", [](auto ps) { return Adam(ps, 0.01, 0.9, 0.999, 1e-8, 0.1); });
    run("adamw", [](auto ps) { return AdamW(ps, 0.01, 0.9, 0.999, 1e-8, 0.1); });
}

// Adam and AdamW update a parameter a vector at a time, then the last few elements one by
// one (nn/optim.cpp). Both paths must do the same arithmetic: an element of the scalar tail
// given the same weight and gradient history as an element of the first vector ends with
// the same bits, after steps that exercise both moments.
TEST_CASE("Adam's vector loop and scalar tail give the same bits for the same history", "[nn][optim]") {
    const std::int64_t n = 16 + 7;  // one or more whole vectors of 16, 8 or 4 lanes, then a tail of 7
    for (const bool decoupled : {false, true}) {
        INFO((decoupled ? "AdamW" : "Adam"));
        Generator gen(12);
        Tensor head = uniform({16}, -1, 1, kFloat32, gen);
        Tensor p = cat({head, head.narrow(0, 0, 7)}, 0).contiguous().requires_grad_();
        REQUIRE(p.numel() == n);
        std::vector<NamedParameter> ps{{"p", p}};
        Adam opt(ps, 0.05, 0.9, 0.999, 1e-8, 0.1, decoupled);
        for (int step = 0; step < 5; ++step) {
            Tensor g = uniform({16}, -3, 3, kFloat32, gen);
            p.set_grad(cat({g, g.narrow(0, 0, 7)}, 0).contiguous());
            opt.step();
        }
        const std::vector<float> w = p.to_vector<float>();
        for (std::int64_t j = 0; j < 7; ++j) {
            INFO("element " << j << " and its copy " << 16 + j);
            CHECK(w[static_cast<std::size_t>(j)] == w[static_cast<std::size_t>(16 + j)]);
        }
        CHECK(w[0] != head.to_vector<float>()[0]);  // it did move
    }
}

TEST_CASE("optimizer state round-trips so training can resume", "[nn][optim]") {
    Tensor p = ones({3}).requires_grad_();
    AdamW a({{"w", p}}, 0.1);
    p.set_grad(tensor({1, -1, 0.5}));
    a.step();
    std::vector<NamedParameter> st = a.state();
    REQUIRE(st.size() == 2);
    CHECK(st[0].name == "exp_avg.w");
    Tensor q = p.detach().clone().requires_grad_();
    AdamW b({{"w", q}}, 0.1);
    b.load_state(st);
    b.set_steps(a.steps());
    p.set_grad(tensor({0.2, 0.3, -1}));
    q.set_grad(tensor({0.2, 0.3, -1}));
    a.step();
    b.step();
    CHECK(attnlab::testing::bit_identical(p, q));
    CHECK_THROWS_AS(b.load_state({{"exp_avg.nope", zeros({3})}}), ValueError);
}

TEST_CASE("gradient clipping and the warm-up cosine schedule", "[nn][optim]") {
    Tensor a = zeros({2}).requires_grad_(), b = zeros({1}).requires_grad_();
    a.set_grad(tensor({3, 0}));
    b.set_grad(tensor({4}));
    CHECK(clip_grad_norm({a, b}, 1.0) == Approx(5.0));
    CHECK(a.grad().at({0}) == Approx(0.6).epsilon(1e-5));
    CHECK(b.grad().at({0}) == Approx(0.8).epsilon(1e-5));
    CHECK(clip_grad_norm({a, b}, 10.0) == Approx(1.0).epsilon(1e-5));  // below the limit: untouched
    CHECK(warmup_cosine_lr(0, 1.0, 10, 110) == Approx(0.1));
    CHECK(warmup_cosine_lr(9, 1.0, 10, 110) == Approx(1.0));
    CHECK(warmup_cosine_lr(60, 1.0, 10, 110) == Approx(0.5));
    CHECK(warmup_cosine_lr(110, 1.0, 10, 110, 0.01) == Approx(0.01));

    // A gradient that is a strided view is scaled element by element where it lies in the
    // tensor (the first clip_grad_norm walked its storage as if contiguous); float64 too.
    Tensor c = zeros({3}).requires_grad_();
    c.set_grad(tensor({{3, 100}, {0, 100}, {4, 100}}).select(1, 0));  // [3, 0, 4], stride 2
    REQUIRE_FALSE(c.grad().is_contiguous());
    CHECK(clip_grad_norm({c}, 1.0) == Approx(5.0));
    CHECK(c.grad().at({0}) == Approx(0.6).epsilon(1e-5));
    CHECK(c.grad().at({1}) == 0.0);
    CHECK(c.grad().at({2}) == Approx(0.8).epsilon(1e-5));
    Tensor d = zeros({2}, kFloat64).requires_grad_();
    d.set_grad(from_vector<double>({6, 8}, {2}));
    CHECK(clip_grad_norm({d}, 2.0) == 10.0);
    CHECK(d.grad().at({0}) == Approx(1.2 * 10 / (10 + 1e-6)).epsilon(1e-14));  // torch's epsilon in the coefficient
    CHECK(d.grad().at({1}) == Approx(1.6 * 10 / (10 + 1e-6)).epsilon(1e-14));
}
