// test_sparse_attention.cpp — sparsemax and top-k softmax: exact zeros, the simplex,
// hand-computed values, masks, and gradcheck away from their kinks.
#include <catch2/catch.hpp>
#include <limits>

#include "nn/sparse_attention.hpp"
#include "tensor/ops.hpp"
#include "tests/support/gradcheck_helpers.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::check_gradients;
using attnlab::testing::IsCloseTo;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

TEST_CASE("sparsemax: hand-computed rows, exact zeros, masks", "[nn][sparse][sparsemax]") {
    // z = [1, 0.8, −1]: support {1, 0.8}, τ = (1.8 − 1) / 2 = 0.4 -> [0.6, 0.4, 0]
    CHECK_THAT(sparsemax(tensor({1.0, 0.8, -1.0})), IsCloseTo(tensor({0.6, 0.4, 0.0}), 1e-7));
    // A clear winner takes everything; equal scores share equally.
    CHECK_THAT(sparsemax(tensor({3.0, 0.0, 0.5})), IsCloseTo(tensor({1.0, 0.0, 0.0}), 0));
    CHECK_THAT(sparsemax(tensor({0.2, 0.2, 0.2, 0.2})), IsCloseTo(full({4}, 0.25), 1e-7));
    Tensor z = randn({5, 7});
    Tensor p = sparsemax(z);
    CHECK_THAT(p.sum(-1), IsCloseTo(ones({5}), 1e-6));
    CHECK(p.to_vector<double>() == maximum(p, zeros_like(p)).to_vector<double>());  // never negative
    // Masked keys (−∞) get 0; a fully masked row is all zeros with zero gradient.
    Tensor masked = tensor({{0.5, -kInf, 0.1}, {-kInf, -kInf, -kInf}}).requires_grad_();
    Tensor pm = sparsemax(masked);
    CHECK_THAT(pm, IsCloseTo(tensor({{0.7, 0.0, 0.3}, {0, 0, 0}}), 1e-7));
    (pm * tensor({{1, 2, 3}, {4, 5, 6}})).sum().backward();
    CHECK_THAT(masked.grad().select(0, 1), IsCloseTo(zeros({3})));
}

TEST_CASE("gradcheck: sparsemax, away from its kinks", "[nn][sparse][sparsemax][gradcheck]") {
    // Scores well separated (gaps ≫ the finite-difference step) and chosen so that no
    // key sits at the support boundary z = τ: the support is the same on both sides.
    Tensor z = tensor({{1.0, 0.7, -0.5, 0.2, -2.0}, {0.1, 0.4, 0.35, -1.0, 0.9}}, kFloat64).requires_grad_();
    Tensor p = sparsemax(z);
    CHECK(p.at({0, 2}) == 0.0);  // exact zeros in both rows: the sparse part is exercised
    CHECK(p.at({1, 0}) == 0.0);
    check_gradients([](const std::vector<Tensor>& x) { return sparsemax(x[0]); }, {z});
}

TEST_CASE("top-k softmax: softmax over the k best, exact zeros elsewhere", "[nn][sparse][topk]") {
    Tensor z = tensor({{1.0, 3.0, 2.0, 0.0}});
    Tensor p = topk_softmax(z, 2);
    const double e = std::exp(1.0);  // keys 1 and 2 stay: e³ / (e³ + e²), e² / (e³ + e²)
    CHECK_THAT(p, IsCloseTo(tensor({{0.0, e / (e + 1), 1 / (e + 1), 0.0}}), 1e-6));
    CHECK_THAT(topk_softmax(z, 4), IsCloseTo(softmax(z, -1), 1e-7));  // k ≥ Tk: plain softmax
    CHECK_THAT(topk_softmax(z, 1), IsCloseTo(tensor({{0, 1, 0, 0}}), 0));
    // Masked keys never come back, even when k exceeds the number of allowed keys.
    CHECK_THAT(topk_softmax(tensor({{0.5, -kInf, 0.1}}), 3), IsCloseTo(softmax(tensor({{0.5, -kInf, 0.1}}), -1), 1e-7));
    CHECK_THROWS_AS(topk_softmax(z, 0), ValueError);
    Tensor zz = tensor({{0.3, -0.4, 1.2, 0.8, -1.5}, {2.0, 0.1, -0.3, 0.6, 1.1}}, kFloat64).requires_grad_();
    check_gradients([](const std::vector<Tensor>& x) { return topk_softmax(x[0], 3); }, {zz});
}

TEST_CASE("Normalizer picks the function by kind", "[nn][sparse]") {
    Tensor z = randn({3, 6});
    CHECK_THAT(Normalizer::softmax()(z), IsCloseTo(softmax(z, -1), 0));
    CHECK_THAT(Normalizer::sparsemax()(z), IsCloseTo(sparsemax(z), 0));
    CHECK_THAT(Normalizer::topk(2)(z), IsCloseTo(topk_softmax(z, 2), 0));
    CHECK(Normalizer::topk(2).name() == "top-2");
}
