// test_matmul.cpp — matmul's PyTorch batching rules and its errors.
#include <catch2/catch.hpp>

#include "tests/support/tensor_matchers.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

using namespace attnlab;
using attnlab::testing::IsCloseTo;

// A plain loop over the definition, for comparison.
static Tensor reference_matmul_2d(const Tensor& a, const Tensor& b) {
    Tensor out = zeros({a.size(0), b.size(1)}, kFloat64);
    for (std::int64_t i = 0; i < a.size(0); ++i)
        for (std::int64_t j = 0; j < b.size(1); ++j) {
            double s = 0;
            for (std::int64_t k = 0; k < a.size(1); ++k) s += a.at({i, k}) * b.at({k, j});
            fill_(out.select(0, i).narrow(0, j, 1), s);
        }
    return out;
}

TEST_CASE("matmul of small matrices, by hand", "[tensor][matmul]") {
    Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});
    Tensor b = tensor({{7, 8}, {9, 10}, {11, 12}});
    CHECK_THAT(matmul(a, b), IsCloseTo(tensor({{58, 64}, {139, 154}})));
    CHECK_THAT(matmul(tensor({1, 2, 3}), tensor({4, 5, 6})), IsCloseTo(scalar(32)));
    CHECK_THAT(matmul(tensor({1, 1}), a), IsCloseTo(tensor({5, 7, 9})));
    CHECK_THAT(matmul(a, tensor({1, 0, -1})), IsCloseTo(tensor({-2, -2})));
    // transposed views multiply without a copy
    CHECK_THAT(matmul(b.mT(), a.mT()), IsCloseTo(tensor({{58, 139}, {64, 154}})));
}

TEST_CASE("batched matmul broadcasts the batch dims", "[tensor][matmul]") {
    Generator gen(3);
    Tensor a = randn({2, 1, 4, 5}, kFloat64, gen);
    Tensor b = randn({3, 5, 6}, kFloat64, gen);
    Tensor c = matmul(a, b);
    REQUIRE(c.shape() == Shape{2, 3, 4, 6});
    for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t j = 0; j < 3; ++j)
            CHECK_THAT(c.select(0, i).select(0, j), IsCloseTo(reference_matmul_2d(a.select(0, i).select(0, 0), b.select(0, j)), 1e-12));
    // [..., n, k] @ [k, m] folds the batch into one product
    Tensor w = randn({5, 3}, kFloat64, gen);
    Tensor xw = matmul(a, w);
    CHECK_THAT(xw.select(0, 1).select(0, 0), IsCloseTo(reference_matmul_2d(a.select(0, 1).select(0, 0), w), 1e-12));
}

TEST_CASE("matmul sizes from 1 to past the kernel's blocks agree with the loop", "[tensor][matmul]") {
    Generator gen(5);
    for (auto [n, k, m] : {std::array<std::int64_t, 3>{1, 1, 1}, {7, 13, 5}, {6, 16, 6}, {33, 70, 65}, {130, 3, 129}}) {
        Tensor a = randn({n, k}, kFloat64, gen), b = randn({k, m}, kFloat64, gen);
        INFO("n=" << n << " k=" << k << " m=" << m);
        CHECK_THAT(matmul(a, b), IsCloseTo(reference_matmul_2d(a, b), 1e-10));
    }
}

TEST_CASE("matmul bad input names both shapes", "[tensor][matmul][errors]") {
    CHECK_THROWS_WITH(matmul(zeros({2, 3}), zeros({4, 5})), Catch::Equals("matmul: inner dimensions differ: [2, 3] @ [4, 5]"));
    CHECK_THROWS_AS(matmul(zeros({2, 2, 3}), zeros({3, 3, 2})), ShapeError);  // batch 2 vs 3
    CHECK_THROWS_AS(matmul(scalar(1), zeros({2})), ShapeError);
    CHECK_THROWS_AS(matmul(zeros({2, 2}), zeros({2, 2}, kFloat64)), ValueError);
}
