// test_attention_stats.cpp — the pattern statistics on patterns whose answers are known.
#include <catch2/catch.hpp>
#include <cmath>

#include "analyses/attention_stats.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::lab;
using attnlab::testing::IsCloseTo;

TEST_CASE("statistics of identity, uniform and previous-token patterns", "[nn][stats]") {
    Tensor eye = tensor({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
    Tensor uniform = full({3, 3}, 1.0 / 3);
    Tensor prev = tensor({{1, 0, 0}, {1, 0, 0}, {0, 1, 0}});
    CHECK_THAT(row_entropy(eye), IsCloseTo(zeros({3})));
    CHECK_THAT(row_entropy(uniform), IsCloseTo(full({3}, std::log(3.0)), 1e-6));
    CHECK_THAT(row_entropy(zeros({2, 3})), IsCloseTo(zeros({2})));  // fully masked rows: no NaN
    CHECK_THAT(diagonal_mass(eye), IsCloseTo(ones({3})));
    CHECK_THAT(previous_mass(prev), IsCloseTo(tensor({0, 1, 1})));
    CHECK_THAT(row_distance(prev), IsCloseTo(tensor({0, 1, 1})));
    CHECK_THAT(row_distance(uniform), IsCloseTo(tensor({1, 2.0 / 3, 1}), 1e-6));
    CHECK_THAT(local_mass(uniform), IsCloseTo(tensor({2.0 / 3, 1, 2.0 / 3}), 1e-6));
    CHECK_THAT(per_head_mean(stack({row_entropy(stack({eye, uniform}, 0))}, 0)), IsCloseTo(tensor({0, std::log(3.0)}), 1e-6));
    // eye and 2·eye point the same way; eye and prev share one of three entries: cos = 1/3
    CHECK_THAT(head_similarity(stack({eye, eye * 2.0, prev}, 0)).select(0, 0), IsCloseTo(tensor({1, 1, 1.0 / 3}), 1e-6));
    CHECK_THROWS_AS(row_entropy(ones({3})), ShapeError);
}

TEST_CASE("rollout: identity layers leave tokens in place, a copy layer moves them", "[nn][stats][rollout]") {
    Tensor eye = tensor({{{1, 0}, {0, 1}}});  // [H=1, 2, 2]
    CHECK_THAT(attention_rollout({eye, eye}), IsCloseTo(tensor({{1, 0}, {0, 1}})));
    Tensor look_back = tensor({{{1, 0}, {1, 0}}});  // token 1 reads token 0
    // one layer: ½A + ½I = [[1, 0], [½, ½]]; two layers: its square = [[1, 0], [¾, ¼]]
    CHECK_THAT(attention_rollout({look_back, look_back}), IsCloseTo(tensor({{1, 0}, {0.75, 0.25}})));
}
