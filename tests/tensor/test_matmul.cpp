// test_matmul.cpp — matmul's PyTorch batching rules and its errors.
#include <catch2/catch.hpp>

#include "autograd/node.hpp"
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

TEST_CASE("a transposed weight's gradient comes back contiguous, bit for bit (xᵀg)ᵀ", "[tensor][matmul][autograd]") {
    // y = x @ Wᵀ, as in every Linear: matmul's backward computes the column-major Wᵀ's
    // gradient as (gᵀx)ᵀ, so W receives a contiguous gradient and no copy is made. Each
    // element is the same products summed in the same order as xᵀg, so with the built-in
    // kernels the bits agree.
    // Sizes: W1's projection, the direct loop's (at most 64 multiply-adds), a 2-D x, odd edges.
    Generator gen(11);
    for (const Shape& x_shape : {Shape{1, 6, 64}, Shape{2, 3}, Shape{5, 7}, Shape{2, 13, 70}}) {
        const std::int64_t k = x_shape.back(), m = k == 3 ? 4 : 33;
        Shape g_shape = x_shape;
        g_shape[g_shape.size() - 1] = m;
        Tensor x = randn(x_shape, kFloat32, gen), g = randn(g_shape, kFloat32, gen);
        Tensor w = randn({m, k}, kFloat32, gen).requires_grad_();
        matmul(x, w.mT()).backward(g);
        INFO("x " << x_shape.str() << " @ W [" << m << ", " << k << "]ᵀ");
        CHECK(w.grad().is_contiguous());
        const Tensor xs = flatten(x, 0, -2), gs = flatten(g, 0, -2);  // [rows, k], [rows, m]
#ifdef ATTNLAB_OPENBLAS
        // OpenBLAS orders its sums its own way for each pair of transposes (CI's openblas suite
        // saw (gᵀx)ᵀ and xᵀg differ in the last bits), so there only the values are promised.
        CHECK_THAT(w.grad(), attnlab::testing::IsCloseTo(matmul(xs.mT(), gs).mT(), 1e-5, 1e-5));
#else
        CHECK(attnlab::testing::bit_identical(w.grad(), matmul(xs.mT(), gs).mT()));
#endif
    }
}

TEST_CASE("x @ W for a batch of one of any strides gives a contiguous x's bits", "[tensor][matmul]") {
    // A batch of one is one gemm read with x's own strides (the gradient of a sum() is x's
    // shape with stride 0); with recording off W's packing is cached. Both paths, same bits.
    Generator gen(12);
    Tensor w = randn({64, 48}, kFloat32, gen);
    const Tensor expanded = randn({1, 1, 64}, kFloat32, gen).expand({1, 6, 64});
    const Tensor transposed = randn({1, 64, 6}, kFloat32, gen).mT();
    for (const Tensor& x : {expanded, transposed}) {
        REQUIRE(!x.is_contiguous());
        const Tensor expected = matmul(contiguous(x), w);
        CHECK(attnlab::testing::bit_identical(matmul(x, w), expected));
        NoGradGuard no_grad;
        for (int i = 0; i < 3; ++i) CHECK(attnlab::testing::bit_identical(matmul(x, w), expected));  // packed from the 2nd
    }
}

TEST_CASE("matmul bad input names both shapes", "[tensor][matmul][errors]") {
    CHECK_THROWS_WITH(matmul(zeros({2, 3}), zeros({4, 5})), Catch::Equals("matmul: inner dimensions differ: [2, 3] @ [4, 5]"));
    CHECK_THROWS_AS(matmul(zeros({2, 2, 3}), zeros({3, 3, 2})), ShapeError);  // batch 2 vs 3
    CHECK_THROWS_AS(matmul(scalar(1), zeros({2})), ShapeError);
    CHECK_THROWS_AS(matmul(zeros({2, 2}), zeros({2, 2}, kFloat64)), ValueError);
}
