// test_phase12.cpp — what phases 1 and 2 compute, through the functions they call:
// the course's worked examples, the sqrt(d_k) experiment, the per-head profile, the
// heads sweep and the figure composition. What metrics.json holds is checked against
// what the phases recorded (tests/phases/test_phase_cli.cpp, tools/metrics_reference.cpp).
// (The trained-model parts check themselves: each phase compares its step-by-step
// attention with the layer's own forward and stops if they differ by more than 1e-6.)
#include <catch2/catch.hpp>
#include <cmath>

#include "analyses/head_analysis.hpp"
#include "experiments/scaling_experiment.hpp"
#include "phases/phase1_worked_examples.hpp"
#include "plots/compose.hpp"
#include "plots/heatmap.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::phase;
using attnlab::testing::IsCloseTo;

namespace {
Tensor row(const std::vector<double>& v) { return from_vector(v, {static_cast<std::int64_t>(v.size())}, kFloat32); }
double max_abs_diff(const Tensor& a, const Tensor& b) { return max(abs(a - b)).item(); }
}  // namespace

TEST_CASE("phase 1: the course's worked examples as the phase computes them", "[phases][phase1]") {
    SECTION("one query, three keys: the weights are right, the often-printed output is rounded") {
        WorkedExample ex = unscaled_one_query_example();
        nn::AttentionResult r = ex.run();
        CHECK_THAT(r.weights.select(0, 0), IsCloseTo(row(ex.expected_row0), 5e-4));
        CHECK_THAT(r.output.select(0, 0), IsCloseTo(row({2.754, 3.754}), 5e-4));
        // the tutorial's [2.751, 3.750] is 0.003 off: its weights were rounded before multiplying
        CHECK(max_abs_diff(r.output.select(0, 0), row(ex.course_out0)) > 2e-3);
        const double rounded = 0.474 * 1 + 0.174 * 3 + 0.351 * 5;  // the course's own arithmetic
        CHECK(rounded == Approx(2.751).margin(5e-4));
    }
    SECTION("three queries, four keys: row 0 is [a, b, a, b]; the course's approximation is off") {
        WorkedExample ex = scaled_four_keys_example();
        nn::AttentionResult r = ex.run();
        const double e = std::exp(1 / std::sqrt(2.0)), a = e / (2 * e + 2), b = 1 / (2 * e + 2);
        CHECK_THAT(r.weights.select(0, 0), IsCloseTo(row({a, b, a, b}), 1e-6));
        CHECK_THAT(r.weights.select(0, 0), IsCloseTo(row(ex.expected_row0), 5e-4));
        CHECK(max_abs_diff(r.weights.select(0, 0), row(ex.course_row0)) > 0.02);
        CHECK_THAT(sum(r.weights, -1), IsCloseTo(ones({3}), 1e-6));
    }
}

TEST_CASE("phase 1: sqrt(d_k) keeps the scores at unit variance and the softmax unsaturated", "[phases][phase1][scaling]") {
    const lab::ScalingStats raw8 = lab::measure_scaling(8, false, 128, 16, 3), fix8 = lab::measure_scaling(8, true, 128, 16, 3);
    const lab::ScalingStats raw128 = lab::measure_scaling(128, false, 128, 16, 3), fix128 = lab::measure_scaling(128, true, 128, 16, 3);
    // Var(q·k) = d_k for unit-variance components; 128·16·16 = 32k scores: a few percent of sampling noise
    CHECK(raw8.score_variance == Approx(8).epsilon(0.1));
    CHECK(raw128.score_variance == Approx(128).epsilon(0.1));
    CHECK(fix8.score_variance == Approx(1).epsilon(0.1));
    CHECK(fix128.score_variance == Approx(1).epsilon(0.1));
    // saturation grows with d_k unscaled, and does not with scaling
    CHECK(raw128.mean_max_weight > raw8.mean_max_weight);
    CHECK(raw128.mean_entropy < 0.5 * fix128.mean_entropy);
    CHECK(std::abs(fix128.mean_entropy - fix8.mean_entropy) < 0.1);
    CHECK(raw128.saturated_rows > 0.3);
    CHECK(fix128.saturated_rows == 0.0);
    // the typical row gets almost no gradient unscaled at d_k = 128
    CHECK(raw128.median_row_grad < 0.2 * fix128.median_row_grad);
    // same seed, same numbers
    const lab::ScalingStats again = lab::measure_scaling(128, false, 128, 16, 3);
    CHECK(again.score_variance == raw128.score_variance);
    CHECK(again.grad_norm_w_q == raw128.grad_norm_w_q);
}

TEST_CASE("phase 1: the pointer task learns with scaling, deterministically", "[phases][phase1][scaling]") {
    lab::PointerTaskConfig c;
    c.d_k = 64, c.steps = 120, c.batch = 32;
    const lab::PointerTaskResult scaled = lab::train_pointer_task(c, true);
    REQUIRE(scaled.loss.size() == 120);
    CHECK(scaled.loss.front() > 2.0);                         // starts near chance, ln 16 = 2.77
    CHECK(scaled.final_loss < 0.5 * std::log(16.0));          // and learns
    CHECK(lab::train_pointer_task(c, true).loss == scaled.loss);  // bit for bit with the same seed
    CHECK(lab::train_pointer_task(c, false).final_loss > scaled.final_loss);
}

TEST_CASE("phase 2: per-head profile of known patterns", "[phases][phase2]") {
    const std::int64_t T = 6;
    Tensor eye = zeros({T, T}), uniform = full({T, T}, 1.0 / T), prev = zeros({T, T});
    for (std::int64_t i = 0; i < T; ++i) {
        fill_(eye.narrow(0, i, 1).narrow(1, i, 1), 1.0);
        fill_(prev.narrow(0, i, 1).narrow(1, i > 0 ? i - 1 : 0, 1), 1.0);  // query 0 has no previous token: itself
    }
    lab::HeadProfile p = lab::profile_heads(stack({eye, uniform, prev}, 0));
    REQUIRE(p.entropy.size() == 3);
    CHECK(p.max_entropy == Approx(std::log(6.0)));
    CHECK(p.entropy[0] == Approx(0).margin(1e-7));
    CHECK(p.self[0] == Approx(1));
    CHECK(p.global[0] == Approx(0).margin(1e-7));
    CHECK(p.kind[0] == "focused");
    CHECK(p.entropy[1] == Approx(std::log(6.0)).epsilon(1e-5));
    CHECK(p.local[1] == Approx((3.0 * T - 2) / (T * T)).epsilon(1e-5));  // 3 neighbours each, 2 at the edges
    CHECK(p.kind[1] == "diffuse");
    CHECK(p.previous[2] == Approx(5.0 / 6.0).epsilon(1e-5));
    CHECK(p.local[2] == Approx(1));
    CHECK_THROWS_AS(lab::profile_heads(zeros({2, 3, 4})), ShapeError);
}

TEST_CASE("phase 2: the heads sweep trains one model per head count on the same data", "[phases][phase2][training]") {
    lab::TrainConfig c;
    c.task = lab::Task::multi_head, c.d_model = 16, c.n_layers = 1, c.context = 12, c.batch = 4, c.steps = 3, c.warmup = 1;
    c.eval_every = 3, c.val_batches = 2, c.progress = lab::TrainConfig::Progress::quiet;
    const std::vector<lab::SweepPoint> pts = lab::heads_sweep(c, {1, 2, 4});
    REQUIRE(pts.size() == 3);
    for (std::size_t i = 0; i < pts.size(); ++i) {
        CHECK(pts[i].d_k == 16 / pts[i].n_heads);
        CHECK(pts[i].parameters == pts[0].parameters);  // the head count does not change the parameter count
        CHECK(std::isfinite(pts[i].eval.loss));
        CHECK(pts[i].eval.floor == pts[0].eval.floor);  // the same validation tokens for every model
        CHECK(pts[i].eval.loss > pts[i].eval.floor);
    }
}

TEST_CASE("phases 1-2: figure composition", "[phases]") {
    plots::Figure a = plots::heatmap({{0.1, 0.9}, {0.5, 0.5}}), b = plots::heatmap({{1, 2, 3}});
    plots::Figure row = plots::hstack({a, b}, "", 10), col = plots::vstack({a, b}, "", 10);
    CHECK(row.width >= a.width + b.width + 10);
    CHECK(row.height >= std::max(a.height, b.height));
    CHECK(col.height >= a.height + b.height + 10);
    CHECK(row.items.size() == a.items.size() + b.items.size());
    int outside = 0;  // every text anchor of the panels lands inside the composed figure
    plots::for_each_text(row.items, [&](const plots::Text& t) { outside += t.at.x < 0 || t.at.x > row.width || t.at.y < 0 || t.at.y > row.height; });
    CHECK(outside == 0);
    CHECK_THROWS_AS(plots::hstack({}), ValueError);
}
