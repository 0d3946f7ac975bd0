// test_elementwise.cpp — forward values of binary and unary ops, broadcasting, errors.
#include <catch2/catch.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "autograd/node.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"
#include "tensor/vec_math.hpp"

using namespace attnlab;
using attnlab::testing::IsCloseTo;

TEST_CASE("binary ops broadcast like NumPy", "[tensor][elementwise]") {
    Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});  // [2, 3]
    Tensor col = tensor({10, 20}).reshape({2, 1});  // [2, 1]
    Tensor row = tensor({1, 0, -1});              // [3]
    CHECK_THAT(a + col, IsCloseTo(tensor({{11, 12, 13}, {24, 25, 26}})));
    CHECK_THAT(a * row, IsCloseTo(tensor({{1, 0, -3}, {4, 0, -6}})));
    CHECK_THAT(col - row, IsCloseTo(tensor({{9, 10, 11}, {19, 20, 21}})));
    CHECK_THAT(a / 2.0, IsCloseTo(tensor({{0.5, 1, 1.5}, {2, 2.5, 3}})));
    CHECK_THAT(1.0 - a, IsCloseTo(tensor({{0, -1, -2}, {-3, -4, -5}})));
    CHECK_THAT(pow(a, 2.0), IsCloseTo(tensor({{1, 4, 9}, {16, 25, 36}})));
    CHECK_THAT(pow(col, row), IsCloseTo(tensor({{10, 1, 0.1}, {20, 1, 0.05}}), 1e-6));
    CHECK_THAT(maximum(a, tensor({3})), IsCloseTo(tensor({{3, 3, 3}, {4, 5, 6}})));
    // a strided (transposed) operand takes the general path
    CHECK_THAT(a.transpose(0, 1) + tensor({{1, 2}}), IsCloseTo(tensor({{2, 6}, {3, 7}, {4, 8}})));
}

TEST_CASE("comparisons, where and masked_fill", "[tensor][elementwise]") {
    Tensor a = tensor({1, 2, 3});
    Tensor b = tensor({3, 2, 1});
    CHECK_THAT(lt(a, b), IsCloseTo(tensor({1, 0, 0})));
    CHECK_THAT(eq(a, b), IsCloseTo(tensor({0, 1, 0})));
    CHECK_THAT(ge(a, b), IsCloseTo(tensor({0, 1, 1})));
    CHECK_THAT(where(gt(a, b), a, b), IsCloseTo(tensor({3, 2, 3})));
    Tensor scores = tensor({{2, 0, 3}});
    Tensor masked = masked_fill(scores, tensor({0, 1, 0}), -INFINITY);
    CHECK(std::isinf(masked.at({0, 1})));
    CHECK(masked.at({0, 2}) == 3.0);
    CHECK_THROWS_WITH(masked_fill(tensor({1, 2}), ones({2, 2}), 0), Catch::Contains("[2, 2]"));
}

TEST_CASE("unary functions match their definitions", "[tensor][elementwise]") {
    Tensor x = tensor({-2.0, -0.5, 0.0, 0.5, 2.0}, kFloat64);
    CHECK_THAT(exp(x), IsCloseTo(tensor({std::exp(-2.0), std::exp(-0.5), 1, std::exp(0.5), std::exp(2.0)}, kFloat64), 1e-12));
    CHECK_THAT(relu(x), IsCloseTo(tensor({0, 0, 0, 0.5, 2}, kFloat64)));
    CHECK_THAT(abs(x), IsCloseTo(tensor({2, 0.5, 0, 0.5, 2}, kFloat64)));
    CHECK_THAT(tanh(x), IsCloseTo(tensor({std::tanh(-2.0), std::tanh(-0.5), 0, std::tanh(0.5), std::tanh(2.0)}, kFloat64), 1e-12));
    CHECK_THAT(sigmoid(tensor({-1000, 0, 1000}, kFloat64)), IsCloseTo(tensor({0, 0.5, 1}, kFloat64)));
    // GELU(x) = x·Φ(x); Φ(1) = 0.8413447460685429 (the standard normal CDF)
    CHECK(gelu(tensor({1.0}, kFloat64)).item() == Approx(0.8413447460685429).epsilon(1e-14));
    CHECK(gelu(tensor({-1.0}, kFloat64)).item() == Approx(-1 + 0.8413447460685429).epsilon(1e-13));
    CHECK_THAT(sqrt(tensor({4, 9})), IsCloseTo(tensor({2, 3})));
    CHECK_THAT(log(tensor({1, std::exp(1.0)})), IsCloseTo(tensor({0, 1}), 1e-6));
}

TEST_CASE("float32 GELU (vectorised erfc and exp) matches the exact definition", "[tensor][elementwise][gelu]") {
    // Φ(x) = ½·erfc(−x/√2) and φ(x) in double are the reference (float64 gelu uses
    // ½(1 + erf(x/√2)), whose 1 + erf cancels to 0 below x ≈ −8). Every x in [−12, 12),
    // plus odd lengths for the vector tail. Values: relative error, also in the far
    // negative tail (GELU(−12) ≈ −2e-32); derivatives: error relative to the size of
    // their two terms Φ(x) and x·φ(x), which cancel where GELU has its minimum (x ≈ −0.75).
    // In the tails Φ is exp(−x²/2)·(...): x²/2 rounded to float is off by up to x²/2 · 6e-8,
    // so the value's tolerance grows with x²/2 (measured: 8.8e-6 at x = −12, 1e-7 near 0).
    for (std::int64_t n : {1, 7, 16, 17, 1536}) {
        std::vector<double> values;
        for (std::int64_t i = 0; i < n; ++i) values.push_back(-12.0 + 24.0 * static_cast<double>(i) / static_cast<double>(n));
        Tensor x = from_vector(values, {n}, kFloat64).to(kFloat32).requires_grad_();
        Tensor y = gelu(x);
        y.sum().backward();
        const std::vector<double> xs = x.detach().to(kFloat64).to_vector<double>();
        const std::vector<double> ys = y.detach().to(kFloat64).to_vector<double>(), ds = x.grad().to(kFloat64).to_vector<double>();
        double worst = 0, worst_d = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            const double v = xs[i], cdf = 0.5 * std::erfc(-v / std::sqrt(2.0));
            const double pdf = std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
            const double tolerance = 4e-7 * (1 + 0.5 * v * v);
            worst = std::max(worst, (v == 0 ? std::abs(ys[i]) : std::abs(ys[i] - v * cdf) / std::abs(v * cdf)) / tolerance);
            worst_d = std::max(worst_d, std::abs(ds[i] - (cdf + v * pdf)) / (cdf + std::abs(v) * pdf));
        }
        INFO("n = " << n << ": worst value error " << worst << " tolerances, derivative " << worst_d << " relative");
        CHECK(worst < 1);
        CHECK(worst_d < 4e-6);  // measured 1.5e-6
    }
    CHECK(std::isnan(gelu(tensor({NAN})).item()));
    CHECK(gelu(tensor({INFINITY})).item() == INFINITY);
}

TEST_CASE("float32 GELU, each step of erfc run over a block of vectors, has the one-vector formula's bits", "[tensor][elementwise][gelu]") {
    // gelu_float_run (unary.cpp) runs erfc's steps over 16 vectors at a time; the
    // reference is the formula one vector at a time, through vec_math.hpp's composed
    // erfc_nonnegative, as the kernel computed it before. Two whole blocks, a block cut
    // short with a partial last vector, and the special values, bit for bit.
    using namespace attnlab::detail::vec;
    constexpr float kInvSqrt2 = static_cast<float>(std::numbers::sqrt2 / 2);
    constexpr float kInvSqrt2Pi = static_cast<float>(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
    const std::int64_t n = 2 * 16 * kLanes + 3 * kLanes + 5;
    Generator gen(7);
    std::vector<float> xs = (randn({n}, kFloat32, gen) * 4.0).to_vector<float>();
    const std::vector<float> specials = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-30f, -1e-30f, -20.0f, 20.0f, -0.75f};
    for (std::size_t i = 0; i < specials.size(); ++i) xs[i * 37] = specials[i];
    std::vector<float> padded = xs, want_y(xs.size() + kLanes), want_d(xs.size() + kLanes);
    padded.resize(want_y.size(), 0.0f);
    for (std::int64_t i = 0; i < n; i += kLanes) {
        const VF v = load(&padded[i]);
        const VF half_erfc = 0.5f * erfc_nonnegative((v < 0.0f ? -v : v) * kInvSqrt2);
        const VF cdf = v < 0.0f ? half_erfc : 1.0f - half_erfc;
        store(&want_y[i], v * cdf);
        store(&want_d[i], cdf + v * exp_nonpositive(-0.5f * v * v) * kInvSqrt2Pi);
    }
    Tensor x = from_vector(xs, {n}).requires_grad_();
    Tensor y = gelu(x);
    y.sum().backward();
    const std::vector<float> ys = y.detach().to_vector<float>(), ds = x.grad().to_vector<float>();
    {
        NoGradGuard no_grad;  // the forward-only path (no derivative written)
        const std::vector<float> ys_no_grad = gelu(x.detach()).to_vector<float>();
        for (std::int64_t i = 0; i < n; ++i) {
            INFO("i = " << i << ", x = " << xs[i]);
            CHECK(std::bit_cast<std::uint32_t>(ys[i]) == std::bit_cast<std::uint32_t>(want_y[i]));
            CHECK(std::bit_cast<std::uint32_t>(ys_no_grad[i]) == std::bit_cast<std::uint32_t>(want_y[i]));
            if (std::isnan(want_d[i])) CHECK(std::isnan(ds[i]));
            else CHECK(std::bit_cast<std::uint32_t>(ds[i]) == std::bit_cast<std::uint32_t>(want_d[i]));
        }
    }
}

TEST_CASE("elementwise bad input: shapes and dtypes named", "[tensor][elementwise][errors]") {
    CHECK_THROWS_AS(zeros({2, 3}) + zeros({3, 2}), ShapeError);
    CHECK_THROWS_WITH(zeros({2, 3}) * zeros({4}), Catch::Contains("mul") && Catch::Contains("[2, 3]") && Catch::Contains("[4]"));
    CHECK_THROWS_WITH(zeros({2}) + zeros({2}, kFloat64), Catch::Contains("float32") && Catch::Contains("float64"));
    CHECK_THROWS_WITH(exp(arange(3)), Catch::Contains("exp") && Catch::Contains("int64"));
}

TEST_CASE("reductions along a dim or all, with keepdim", "[tensor][reduce]") {
    Tensor a = tensor({{1, 5, 3}, {4, 2, 6}});
    CHECK(a.sum().item() == 21.0);
    CHECK_THAT(a.sum(0), IsCloseTo(tensor({5, 7, 9})));
    CHECK_THAT(a.sum(-1, true), IsCloseTo(tensor({9, 12}).reshape({2, 1})));
    CHECK_THAT(sum(a, {0, 1}), IsCloseTo(scalar(21)));
    CHECK_THAT(a.mean(1), IsCloseTo(tensor({3, 4})));
    CHECK(a.mean().item() == 3.5);
    CHECK_THAT(var(a, 1), IsCloseTo(tensor({4, 4})));             // unbiased, like torch.var
    CHECK_THAT(var(a, 1, false, 0), IsCloseTo(tensor({8.0 / 3, 8.0 / 3}), 1e-6));
    auto [v, i] = max(a, 1);
    CHECK_THAT(v, IsCloseTo(tensor({5, 6})));
    CHECK(i.to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 2});
    CHECK(argmax(a, 0, true).shape() == Shape{1, 3});
    CHECK(argmax(tensor({1, 3, 3}), 0).item() == 1.0);  // first of ties
    CHECK(min(a, 0).values.to_vector<float>() == std::vector<float>{1, 2, 3});
    CHECK(max(a).item() == 6.0);
    CHECK_THAT(sum_to(ones({2, 3, 4}), {3, 1}), IsCloseTo(full({3, 1}, 8)));
    CHECK_THROWS_WITH(a.sum(2), Catch::Contains("sum") && Catch::Contains("dim 2"));
    CHECK_THROWS_AS(var(ones({1, 3}), 0), ValueError);
    CHECK_THROWS_AS(max(zeros({0, 3}), 0), ValueError);
}

TEST_CASE("a sum over a leading dim adds each column in double, row by row", "[tensor][reduce]") {
    // The vectorised column loop must give the bits of the plain loop it replaces, for
    // whole blocks of columns and the leftover ones, in float and double.
    manual_seed(11);
    for (const DType dtype : {kFloat32, kFloat64}) {
        const Tensor x = (randn({3, 37, 70}) * 100.0).to(dtype);  // 70 = two blocks of 32 + 6 columns
        const Tensor s = sum(x, 1);                               // [3, 70]
        const std::vector<double> xv = x.to_vector<double>(), sv = s.to_vector<double>();
        bool same = true;
        for (int o = 0; o < 3; ++o)
            for (int i = 0; i < 70; ++i) {
                double acc = 0;
                for (int j = 0; j < 37; ++j) acc += xv[static_cast<std::size_t>((o * 37 + j) * 70 + i)];
                const double expect = dtype == kFloat32 ? static_cast<double>(static_cast<float>(acc)) : acc;
                same = same && sv[static_cast<std::size_t>(o * 70 + i)] == expect;
            }
        CHECK(same);
    }
}

TEST_CASE("cat, stack, split and chunk", "[tensor][join]") {
    Tensor a = tensor({{1, 2}}), b = tensor({{3, 4}, {5, 6}});
    CHECK_THAT(cat({a, b}, 0), IsCloseTo(tensor({{1, 2}, {3, 4}, {5, 6}})));
    CHECK_THAT(cat({b, b}, 1), IsCloseTo(tensor({{3, 4, 3, 4}, {5, 6, 5, 6}})));
    CHECK(stack({a, a, a}, 0).shape() == Shape{3, 1, 2});
    CHECK(stack({a, a}, -1).shape() == Shape{1, 2, 2});
    auto parts = split(arange(0.0, 5.0), 2, 0);
    REQUIRE(parts.size() == 3);
    CHECK(parts[2].to_vector<float>() == std::vector<float>{4});
    CHECK(chunk(zeros({4, 6}), 4, 1).size() == 3);  // ceil(6 / 4) = 2 per chunk, as PyTorch
    CHECK_THROWS_WITH(cat({a, zeros({1, 3})}, 0), Catch::Contains("cat") && Catch::Contains("[1, 3]"));
    CHECK_THROWS_AS(stack({a, b}, 0), ShapeError);
    CHECK_THROWS_AS(cat({}, 0), ValueError);
}

TEST_CASE("index_select, embedding, one_hot, tril and triu", "[tensor][index]") {
    Tensor w = tensor({{0, 1}, {10, 11}, {20, 21}});
    Tensor ids = from_vector<std::int64_t>({2, 0, 2}, {3});
    CHECK_THAT(index_select(w, 0, ids), IsCloseTo(tensor({{20, 21}, {0, 1}, {20, 21}})));
    CHECK_THAT(index_select(w, 1, from_vector<std::int64_t>({1}, {1})), IsCloseTo(tensor({1, 11, 21}).reshape({3, 1})));
    Tensor e = embedding(w, from_vector<std::int64_t>({1, 2, 0, 1}, {2, 2}));
    CHECK(e.shape() == Shape{2, 2, 2});
    CHECK(e.at({1, 0, 1}) == 1.0);
    CHECK_THAT(one_hot(from_vector<std::int64_t>({2, 0}, {2}), 3), IsCloseTo(tensor({{0, 0, 1}, {1, 0, 0}})));
    CHECK_THAT(tril(ones({3, 3})), IsCloseTo(tensor({{1, 0, 0}, {1, 1, 0}, {1, 1, 1}})));
    CHECK_THAT(triu(ones({2, 3}), 1), IsCloseTo(tensor({{0, 1, 1}, {0, 0, 1}})));
    // tril of a -inf matrix stays free of NaN (where, not multiplication)
    CHECK(tril(full({2, 2}, -INFINITY)).at({0, 1}) == 0.0);
    CHECK_THROWS_WITH(index_select(w, 0, from_vector<std::int64_t>({3}, {1})), Catch::Contains("index 3") && Catch::Contains("[0, 3)"));
    CHECK_THROWS_AS(index_select(w, 0, tensor({1})), ValueError);  // float indices
    CHECK_THROWS_AS(embedding(ones({3}), ids), ShapeError);
    CHECK_THROWS_AS(one_hot(ids, 2), ValueError);
    CHECK_THROWS_AS(tril(ones({3})), ShapeError);
}

TEST_CASE("add_ adds in place with the bits of add", "[tensor][elementwise][add_]") {
    Generator g(5);
    const Tensor x = randn({3, 5, 7}, kFloat32, g), b = randn({7}, kFloat32, g);
    SECTION("a bias row, or a trailing block, on a contiguous tensor (the row loop)") {
        for (const Tensor& src : {b, b.reshape({1, 1, 7}), randn({5, 7}, kFloat32, g)}) {
            Tensor y = clone(x);
            add_(y, src);
            CHECK(attnlab::testing::bit_identical(y, add(x, src)));
        }
        const Tensor xd = x.to(kFloat64), bd = b.to(kFloat64);
        Tensor yd = clone(xd);
        add_(yd, bd);
        CHECK(attnlab::testing::bit_identical(yd, add(xd, bd)));
    }
    SECTION("any other layout: a strided destination, a column, overlapping views of one storage") {
        Tensor y = clone(x);
        add_(y.transpose(0, 2), b.reshape({7, 1, 1}));  // y[i, j, k] += b[k], through the transposed view
        CHECK(attnlab::testing::bit_identical(y, add(x, b)));
        Tensor col = randn({3, 5, 1}, kFloat32, g);
        Tensor z = clone(x);
        add_(z, col);
        CHECK(attnlab::testing::bit_identical(z, add(x, col)));
        Tensor w = arange(0.0, 6.0, 1.0, kFloat32);  // w[1:] += w[:-1], reading the values before the add
        add_(w.narrow(0, 1, 5), w.narrow(0, 0, 5));
        CHECK_THAT(w, IsCloseTo(tensor({0, 1, 3, 5, 7, 9}).to(kFloat32)));
    }
    SECTION("bad input: a shape that does not broadcast to the destination's, dtypes, a gradient to lose") {
        Tensor y = clone(x);
        CHECK_THROWS_WITH(add_(y, randn({2, 3, 5, 7})), Catch::Contains("add_") && Catch::Contains("[2, 3, 5, 7]"));
        CHECK_THROWS_WITH(add_(y.narrow(0, 0, 1), x), Catch::Contains("add_") && Catch::Contains("[1, 5, 7]"));
        CHECK_THROWS_WITH(add_(y, b.to(kFloat64)), Catch::Contains("add_") && Catch::Contains("float64"));
        CHECK_THROWS_WITH(add_(y, clone(b).requires_grad_()), Catch::Contains("add_") && Catch::Contains("requires grad"));
        NoGradGuard no_grad;  // as copy_: with recording off, a parameter update is allowed
        Tensor p = clone(x).requires_grad_();
        add_(p, b);
        CHECK(attnlab::testing::bit_identical(p.detach(), add(x, b)));
    }
}
