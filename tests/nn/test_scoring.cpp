// test_scoring.cpp — the four scoring functions: weights on the simplex, masks,
// gradients, the fused additive kernel, and that the weights depend on the keys.
#include <catch2/catch.hpp>
#include <cmath>

#include "nn/scoring.hpp"
#include "tensor/ops.hpp"
#include "tests/support/gradcheck_helpers.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::check_gradients;
using attnlab::testing::IsCloseTo;

namespace {
Generator gen(11);
Tensor input(const Shape& s) { return attnlab::testing::grad_input(gen, s); }
const ScoreKind kKinds[] = {ScoreKind::dot, ScoreKind::scaled_dot, ScoreKind::additive, ScoreKind::multiplicative};
}  // namespace

TEST_CASE("each scoring function gives weights that sum to 1 over the allowed keys", "[nn][scoring]") {
    for (ScoreKind kind : kKinds) {
        INFO(score_kind_name(kind));
        auto scorer = make_scoring(kind, 6, 6, 5, gen);
        Tensor q = randn({2, 3, 6}, kFloat32, gen), k = randn({2, 4, 6}, kFloat32, gen);
        Tensor w = scorer->weights(q, scorer->prepare(k), Mask::padding({4, 2}, 4));
        REQUIRE(w.shape() == Shape{2, 3, 4});
        CHECK_THAT(w.sum(-1), IsCloseTo(ones({2, 3}), 1e-6));
        CHECK_THAT(w.select(0, 1).narrow(1, 2, 2), IsCloseTo(zeros({3, 2})));  // padded keys: exactly 0
    }
}

TEST_CASE("the scores are the formulas", "[nn][scoring]") {
    Tensor s = tensor({{{1, 2}}}), h = tensor({{{3, 4}, {-1, 0.5}}});  // s [1, 1, 2], h [1, 2, 2]
    CHECK_THAT(DotScoring().scores(s, h), IsCloseTo(tensor({{{11, 0}}}), 1e-6));
    CHECK_THAT(ScaledDotScoring().scores(s, h), IsCloseTo(tensor({{{11 / std::sqrt(2.0), 0}}}), 1e-6));
    MultiplicativeScoring mult(2, 2);
    copy_(mult.w.weight.detach(), tensor({{1, 0}, {2, 1}}));  // W: sᵀ W h with W h = [h0, 2 h0 + h1]
    CHECK_THAT(mult.scores(s, h), IsCloseTo(tensor({{{1 * 3 + 2 * 10, -1 + 2 * -1.5}}}), 1e-6));
    AdditiveScoring add(2, 2, 1);
    copy_(add.w_s.weight.detach(), tensor({{1, 0}}));
    copy_(add.w_h.weight.detach(), tensor({{0, 1}}));
    copy_(add.w_h.bias.detach(), tensor({0.5}));
    copy_(add.v.weight.detach(), full({1, 1}, 2.0));
    // v tanh(s_0 + h_1 + 0.5) = 2 tanh(1 + 4.5), 2 tanh(1 + 1)
    CHECK_THAT(add.scores(s, h), IsCloseTo(tensor({{{2 * std::tanh(5.5), 2 * std::tanh(2.0)}}}), 1e-6));
    CHECK_THROWS_AS(make_scoring(ScoreKind::dot, 4, 6, 8), ValueError);
    CHECK_THROWS_AS(DotScoring().scores(randn({1, 2, 3}), randn({1, 2, 4})), ShapeError);
}

TEST_CASE("gradcheck: each scoring function's weights", "[nn][scoring][gradcheck]") {
    for (ScoreKind kind : kKinds) {
        INFO(score_kind_name(kind));
        auto scorer = make_scoring(kind, 4, 4, 3, gen);
        scorer->to(kFloat64);
        std::vector<Tensor> xs{input({2, 3, 4}), input({2, 5, 4})};
        for (auto& p : scorer->parameters()) xs.push_back(p);
        const Mask pad = Mask::padding({5, 3}, 5);
        check_gradients([&](const std::vector<Tensor>& x) { return scorer->weights(x[0], scorer->prepare(x[1]), pad); }, xs);
    }
}

TEST_CASE("the fused additive kernel equals the composed formula", "[nn][scoring][additive]") {
    AdditiveScoring add(4, 6, 5, gen);
    add.to(kFloat64);
    std::vector<Tensor> xs{input({2, 3, 4}), input({2, 7, 6})};
    for (auto& p : add.parameters()) xs.push_back(p);
    auto run = [&](bool fused) {
        return [&, fused](const std::vector<Tensor>& x) {
            Tensor k = add.prepare(x[1]);
            return fused ? add.score(x[0], k) : add.score_composed(x[0], k);
        };
    };
    CHECK_THAT(run(true)(xs), IsCloseTo(run(false)(xs), 1e-12));
    check_gradients(run(false), xs);
    check_gradients(run(true), xs);
}

// The classic broken seq2seq tutorial computed its attention from the decoder state
// alone, so the weights never looked at the encoder. Here they must.
TEST_CASE("the weights change when the encoder outputs change", "[nn][scoring]") {
    for (ScoreKind kind : kKinds) {
        INFO(score_kind_name(kind));
        auto scorer = make_scoring(kind, 8, 8, 8, gen);
        Tensor s = randn({1, 1, 8}, kFloat32, gen), h = randn({1, 6, 8}, kFloat32, gen);
        Tensor w = scorer->weights(s, scorer->prepare(h));
        Tensor h2 = h.clone();
        copy_(h2.narrow(1, 2, 1), randn({1, 1, 8}, kFloat32, gen));  // change one encoder output
        Tensor w2 = scorer->weights(s, scorer->prepare(h2));
        CHECK(max(abs(w2 - w)).item() > 1e-3);
        // ... and the gradient of the weights reaches the encoder outputs
        Tensor hh = h.clone().requires_grad_();
        (scorer->weights(s, scorer->prepare(hh)) * randn({1, 1, 6}, kFloat32, gen)).sum().backward();
        CHECK(abs(hh.grad()).sum().item() > 1e-6);
    }
}
