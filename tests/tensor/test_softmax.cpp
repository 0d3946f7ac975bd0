// test_softmax.cpp — softmax values, the -inf masking rule, stability, the vectorised exp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/support/tensor_matchers.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"
#include "tensor/softmax_row.hpp"
#include "tensor/vec_math.hpp"

using namespace attnlab;
using attnlab::testing::IsCloseTo;

TEST_CASE("softmax of the course's examples, by hand", "[tensor][softmax]") {
    // why masks use -inf instead of zero: softmax([2, 0, 3]) = [0.2595, 0.0351, 0.7054]
    CHECK_THAT(softmax(tensor({2, 0, 3}), 0), IsCloseTo(tensor({0.2595, 0.0351, 0.7054}), 5e-5));
    // masking the middle entry to -inf removes it exactly: [0.2689, 0, 0.7311]
    Tensor masked = softmax(tensor({2, -INFINITY, 3}), 0);
    CHECK_THAT(masked, IsCloseTo(tensor({0.2689, 0, 0.7311}), 5e-5));
    CHECK(masked.at({1}) == 0.0);  // exactly zero, not merely small
}

TEST_CASE("softmax rows sum to one along the chosen dim", "[tensor][softmax]") {
    Tensor x = arange(0.0, 24.0).reshape({2, 3, 4}) * 0.3;
    CHECK_THAT(softmax(x, -1).sum(-1), IsCloseTo(ones({2, 3}), 1e-6));
    CHECK_THAT(softmax(x, 1).sum(1), IsCloseTo(ones({2, 4}), 1e-6));
    CHECK_THAT(exp(log_softmax(x, 1)), IsCloseTo(softmax(x, 1), 1e-6));
}

TEST_CASE("softmax is stable for huge scores", "[tensor][softmax]") {
    // exp(1000) overflows float; subtracting the row max first keeps it finite
    CHECK_THAT(softmax(tensor({1000, 1000}), 0), IsCloseTo(tensor({0.5, 0.5})));
    CHECK_THAT(log_softmax(tensor({1000, 0}), 0), IsCloseTo(tensor({0, -1000}), 1e-3));
}

TEST_CASE("a fully masked row gives zeros, never NaN", "[tensor][softmax][mask]") {
    Tensor scores = tensor({{1, 2, 3}, {-INFINITY, -INFINITY, -INFINITY}});
    CHECK_THAT(softmax(scores, 1), IsCloseTo(tensor({{0.0900, 0.2447, 0.6652}, {0, 0, 0}}), 1e-4));
    CHECK_THAT(log_softmax(scores, 1).select(0, 1), IsCloseTo(tensor({0, 0, 0})));

    SECTION("and a zero gradient, for softmax and log_softmax") {
        for (bool log_form : {false, true}) {
            Tensor s = scores.clone().requires_grad_();
            Tensor y = log_form ? log_softmax(s, 1) : softmax(s, 1);
            // Only the masked row's output feeds the loss.
            (y.select(0, 1) * tensor({1, 2, 3})).sum().backward();
            CHECK_THAT(s.grad(), IsCloseTo(zeros({2, 3})));
        }
    }
}

TEST_CASE("the vectorised exp of softmax rows: accurate, exact at 0 and -inf, NaN kept", "[tensor][softmax][exp]") {
    // Every float in [-87.3, 0] on a fine grid (about 1.4 million values), against the exact exponential.
    std::vector<float> t;
    for (float x = 0.0f; x > -87.3f; x -= 6.103515625e-5f) t.push_back(x);
    std::vector<float> e(t.size());
    const double s = detail::exp_shifted_sum(t.data(), 0.0f, e.data(), static_cast<std::int64_t>(t.size()));
    double worst = 0, sum = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double exact = std::exp(static_cast<double>(t[i]));
        worst = std::max(worst, std::abs(e[i] - exact) / exact);
        sum += e[i];
    }
    INFO("max relative error " << worst);
    CHECK(worst < 2e-7);
    CHECK(s == Approx(sum).epsilon(1e-10));  // summed in double, in another order
    CHECK(e[0] == 1.0f);  // exp(0): the row maximum gets exactly 1

    // A tail shorter than a vector, and the values around the ends of the range.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> edge = {-INFINITY, -1000.0f, -87.4f, nan, 0.0f, -1.0f, -87.33f};
    std::vector<float> out(edge.size(), 42.0f);
    detail::exp_shifted_sum(edge.data(), 0.0f, out.data(), static_cast<std::int64_t>(edge.size()));
    CHECK(out[0] == 0.0f);
    CHECK(out[1] == 0.0f);
    CHECK(out[2] == 0.0f);
    CHECK(std::isnan(out[3]));
    CHECK(out[4] == 1.0f);
    CHECK(out[5] == Approx(std::exp(-1.0)).epsilon(2e-7));
    CHECK(std::abs(out[6] / std::exp(static_cast<double>(-87.33f)) - 1) < 2e-7);  // the smallest normal results

    // A value does not depend on where it sits in the row (the tail goes through the same code).
    std::vector<float> row(37);
    for (std::size_t i = 0; i < row.size(); ++i) row[i] = -0.37f * static_cast<float>(i);
    std::vector<float> whole(row.size());
    detail::exp_shifted_sum(row.data(), 0.0f, whole.data(), 37);
    for (std::size_t i = 0; i < row.size(); ++i) {
        float one;
        detail::exp_shifted_sum(&row[i], 0.0f, &one, 1);
        CHECK(one == whole[i]);
    }
}

TEST_CASE("exp's scaling by 2^k: the one-instruction version has the bits of building 2^k", "[tensor][softmax][exp]") {
    // times_power_of_two (vscalefps on AVX-512) against times_power_of_two_bits (2^k in the
    // exponent bits, then a product), for every k exp uses and 4099 mantissas spread over
    // [1/2, 2), the range exp's polynomial takes: the products below 2^-126 (k near -126)
    // are where a different rounding would show.
    using namespace attnlab::detail::vec;
    std::int64_t checked = 0, differ = 0;
    for (int k = -126; k <= 0; ++k)
        for (int m = 0; m < 4099; m += kLanes) {
            float ps[kLanes], got[kLanes], want[kLanes];
            for (int l = 0; l < kLanes; ++l) ps[l] = 0.5f + 1.5f * static_cast<float>(m + l) / 4099.0f;
            const VF p = load(ps), kv = splat(static_cast<float>(k));
            store(got, times_power_of_two(p, kv));
            store(want, times_power_of_two_bits(p, kv));
            for (int l = 0; l < kLanes; ++l, ++checked)
                differ += std::bit_cast<std::uint32_t>(got[l]) != std::bit_cast<std::uint32_t>(want[l]);
        }
    INFO(differ << " of " << checked << " products differ");
    CHECK(differ == 0);
    CHECK(checked == 127 * ((4099 + kLanes - 1) / kLanes) * kLanes);
}

TEST_CASE("a block row's exp sum: float lanes, then the lanes added in double as a tree", "[tensor][softmax][exp]") {
    // exp_shifted_sum_block's sum, as softmax_row.cpp defines it: lane l adds y[l], y[l + L],
    // ... in float (L the vector width), then lane i += lane i + w for w = L/2, ..., 1 in
    // double. Rebuilt here from the y it writes, bit for bit, at lengths of a partial
    // vector (the masked tail), one, two and many vectors; the values are what flash
    // attention's rows of keys give it (x - m <= 0, one at exactly 0).
    // The last case tells the tree from a running sum: lanes 1 and 1 + L/2 hold e ≈ 0.75·2^−53,
    // lane 0 holds 1 and the rest 0. The tree adds the two small ones first (2e, more than
    // half an ulp of 1) and gets 1 + 2^−52; 1 + e + e from the left rounds back to 1 each time.
    constexpr int L = detail::vec::kLanes;
    Generator g(11);
    std::vector<float> crafted(L, -INFINITY);
    crafted[0] = 0.0f, crafted[1] = crafted[1 + L / 2] = -37.02f;
    std::vector<std::vector<float>> rows;
    for (std::int64_t n : {std::int64_t{5}, std::int64_t{L}, std::int64_t{2 * L}, std::int64_t{2 * L + 3}, std::int64_t{512}}) {
        rows.push_back((rand({n}, kFloat32, g) * -6.0).to_vector<float>());
        rows.back()[static_cast<std::size_t>(n / 2)] = 0.0f;
    }
    rows.push_back(crafted);
    for (const std::vector<float>& x : rows) {
        const std::int64_t n = static_cast<std::int64_t>(x.size());
        std::vector<float> y(x.size(), -1.0f);
        const double got = detail::exp_shifted_sum_block(x.data(), 0.0f, y.data(), n);
        float lane[L] = {};
        for (std::int64_t j = 0; j < n; ++j) lane[j % L] += y[static_cast<std::size_t>(j)];
        double tree[L];
        for (int i = 0; i < L; ++i) tree[i] = lane[i];
        for (int w = L / 2; w > 0; w /= 2)
            for (int i = 0; i < w; ++i) tree[i] += tree[i + w];
        INFO("n = " << n);
        CHECK(std::memcmp(&got, &tree[0], sizeof got) == 0);
        CHECK(std::count(y.begin(), y.end(), 1.0f) == 1);  // exp(0)
    }
    CHECK(detail::exp_shifted_sum_block(crafted.data(), 0.0f, std::vector<float>(L).data(), L) == 1 + 0x1p-52);
}

TEST_CASE("a flash tile's rows at once: row_max's maximum and exp_shifted_sum_block's bits, row by row", "[tensor][softmax][exp]") {
    // row_max_rows and exp_shifted_sum_rows reschedule the per-row functions over a whole
    // tile: every P_ij, sum and maximum must be the bits the per-row ones give. Widths of
    // a partial vector, one vector and more (a row's end inside or at a vector's end), and
    // keys per row from 0 (all blocked) to the width, with −inf scores among them (a mask).
    constexpr std::int64_t L = detail::vec::kLanes;
    Generator g(12);
    for (std::int64_t width : {std::int64_t{5}, L, 2 * L, 2 * L + 3, std::int64_t{100}}) {
        const std::int64_t rows = 37;
        std::vector<float> x = (randn({rows, width}, kFloat32, g) * 4.0).to_vector<float>();
        std::vector<std::int64_t> n(static_cast<std::size_t>(rows));
        for (std::int64_t i = 0; i < rows; ++i) {
            n[static_cast<std::size_t>(i)] = (i * 7) % (width + 1);
            if (i % 5 == 0) x[static_cast<std::size_t>(i * width)] = -INFINITY;
        }
        std::vector<float> m(static_cast<std::size_t>(rows), -INFINITY);
        m[3] = 100.0f;  // a running maximum above every score of its row
        std::vector<float> want_m = m;
        detail::row_max_rows(x.data(), width, n.data(), m.data(), rows);
        std::vector<float> want_p = x, got_p = x;
        std::vector<double> want_sum(static_cast<std::size_t>(rows)), got_sum(static_cast<std::size_t>(rows), -1.0);
        std::vector<std::int64_t> keys = n;
        for (std::int64_t i = 0; i < rows; ++i) {
            const auto r = static_cast<std::size_t>(i);
            want_m[r] = std::max(want_m[r], detail::row_max(x.data() + i * width, n[r]));
            INFO("width " << width << ", row " << i << ", " << n[r] << " keys");
            CHECK(m[r] == want_m[r]);
            if (m[r] == -INFINITY) keys[r] = 0;  // as flash_attention does: nothing to exponentiate
            float* row = want_p.data() + i * width;
            want_sum[r] = keys[r] ? detail::exp_shifted_sum_block(row, m[r], row, keys[r]) : 0.0;
            std::fill(row + keys[r], row + width, 0.0f);
        }
        detail::exp_shifted_sum_rows(got_p.data(), width, keys.data(), m.data(), got_sum.data(), rows);
        INFO("width " << width);
        CHECK(std::memcmp(got_p.data(), want_p.data(), got_p.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(got_sum.data(), want_sum.data(), got_sum.size() * sizeof(double)) == 0);
    }
}

TEST_CASE("float softmax along the last dim agrees with the double computation", "[tensor][softmax]") {
    manual_seed(3);
    for (std::int64_t n : {1, 5, 16, 17, 100, 1000}) {
        INFO("row length " << n);
        Tensor x = randn({7, n}) * 4.0;
        Tensor ref = softmax(x.to(kFloat64), -1).to(kFloat32);
        CHECK_THAT(softmax(x, -1), IsCloseTo(ref, 1e-7, 1e-6));
        CHECK_THAT(log_softmax(x, -1), IsCloseTo(log_softmax(x.to(kFloat64), -1).to(kFloat32), 2e-6, 1e-6));
    }
}

TEST_CASE("softmax's fused backward gives the composed formula's bits", "[tensor][softmax][fused]") {
    // The fused loop must do the composed ops' arithmetic in their order; any other order
    // of the row sum, or a contracted multiply-add, shows up in the last bits.
    manual_seed(11);
    for (std::int64_t n : {1, 7, 8, 9, 31, 128, 1000}) {
        INFO("row length " << n);
        Tensor x = randn({3, 5, n}) * 3.0;
        const double inf = std::numeric_limits<double>::infinity();
        if (n > 1) fill_(x.select(1, 2).narrow(1, 0, 1), -inf);  // one masked entry
        fill_(x.select(1, 4), -inf);                             // fully masked rows
        const Tensor p = softmax(x, -1);
        const Tensor g = randn({3, 5, n});
        const Tensor fused = softmax_backward(p, g, 2), composed = softmax_backward_composed(p, g, 2);
        REQUIRE(fused.shape() == composed.shape());
        CHECK(std::memcmp(fused.data_ptr<float>(), composed.data_ptr<float>(), fused.numel() * sizeof(float)) == 0);
        CHECK(max(abs(fused.select(1, 4))).item() == 0.0);  // masked rows: zero gradient
        // A transposed (non-contiguous) upstream gradient is read as its values, not its memory.
        const Tensor gt = randn({3, n, 5}).transpose(1, 2);
        const Tensor fused_t = softmax_backward(p, gt, 2), composed_t = softmax_backward_composed(p, gt, 2);
        CHECK(std::memcmp(fused_t.data_ptr<float>(), composed_t.data_ptr<float>(), fused_t.numel() * sizeof(float)) == 0);
    }
    // The gradient is right, not only consistent: against float64's.
    Tensor x = randn({4, 33}, kFloat64).requires_grad_();
    const Tensor w = randn({4, 33}, kFloat64);
    (softmax(x, -1) * w).sum().backward();
    Tensor xf = x.detach().to(kFloat32).requires_grad_();
    (softmax(xf, -1) * w.to(kFloat32)).sum().backward();
    CHECK_THAT(xf.grad(), IsCloseTo(x.grad().to(kFloat32), 1e-5, 1e-6));
}
