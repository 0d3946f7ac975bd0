// test_architecture_comparison.cpp — phase 5 step 12's task and measurements: the answer is
// x_{T−k}; the CNN cannot reach beyond its receptive field (its gradient there is exactly 0);
// the gradient extraction equals finite differences; trained attention recalls k = 32.
#include <catch2/catch.hpp>

#include <cmath>

#include "experiments/architecture_comparison.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

TEST_CASE("recall batches: the last token names k and the target is x_{T-k}", "[lab][architectures]") {
    const lab::RecallTask task;
    Generator gen(1);
    const lab::RecallBatch b = lab::make_recall_batch(task, 50, gen);
    const std::int64_t T = task.length;
    REQUIRE(b.ids.shape() == Shape{50, T});
    for (std::int64_t i = 0; i < 50; ++i) {
        const std::int64_t k = b.k[static_cast<std::size_t>(i)];
        REQUIRE(k >= 1);
        REQUIRE(k <= T - 1);
        CHECK(b.ids.at({i, T - 1}) == task.vocab + k - 1);
        CHECK(b.targets.at({i}) == b.ids.at({i, T - 1 - k}));
        for (std::int64_t t = 0; t + 1 < T; ++t) CHECK(b.ids.at({i, t}) < task.vocab);  // symbols only before the query
    }
    CHECK(lab::make_recall_batch(task, 4, gen, 32).k == std::vector<std::int64_t>(4, 32));
    CHECK_THROWS_WITH(lab::make_recall_batch(task, 4, gen, 33), Catch::Contains("make_recall_batch"));
}

TEST_CASE("the CNN's gradient is exactly 0 beyond its receptive field, nonzero inside", "[lab][architectures]") {
    const lab::RecallTask task;
    Generator gen(2), data(3);
    const auto cnn = lab::make_recall_model(lab::Architecture::cnn, task, gen);
    const std::vector<double> g = lab::gradient_by_distance(*cnn, lab::make_recall_batch(task, 16, data));
    REQUIRE(g.size() == static_cast<std::size_t>(task.length));
    for (std::int64_t d = 0; d < task.length; ++d) {
        INFO("distance " << d);
        if (d < lab::kCnnReceptiveField) CHECK(g[static_cast<std::size_t>(d)] > 0.0);
        else CHECK(g[static_cast<std::size_t>(d)] == 0.0);
    }
    CHECK(cnn->reach(task.length) == lab::kCnnReceptiveField);
}

TEST_CASE("gradient_by_distance equals the finite-difference gradient norm", "[lab][architectures]") {
    const lab::RecallTask task{8, 9};
    for (lab::Architecture a : lab::kArchitectures) {
        INFO(lab::architecture_name(a));
        Generator gen(4), data(5);
        auto m = lab::make_recall_model(a, task, gen);
        m->to(kFloat64);
        const lab::RecallBatch b = lab::make_recall_batch(task, 1, data);  // one sequence: the mean is its norm
        const std::vector<double> g = lab::gradient_by_distance(*m, b);
        const Tensor x = m->embed(b.ids).detach();
        const std::int64_t t = 2, d_model = x.size(2);  // position 3 of 9: distance 6
        double norm2 = 0;
        for (std::int64_t j = 0; j < d_model; ++j) {
            const double h = 1e-6;
            auto f = [&](double delta) {
                Tensor xp = clone(x);
                xp.data_ptr<double>()[t * d_model + j] += delta;
                return lab::target_logit_sum(*m, xp, b.targets).item();
            };
            const double fd = (f(h) - f(-h)) / (2 * h);
            norm2 += fd * fd;
        }
        CHECK(g[static_cast<std::size_t>(task.length - 1 - t)] == Approx(std::sqrt(norm2)).epsilon(1e-6));
    }
}

TEST_CASE("trained 1-layer attention recalls k = 32 far above chance; its accuracy is measured per k", "[lab][architectures]") {
    const lab::RecallTask task;  // chance 1/8
    const lab::RecallRun r = lab::train_recall(lab::Architecture::attention, task, {.steps = 300, .lr = 3e-3, .seed = 25});
    REQUIRE(r.accuracy_by_k.size() == 32);
    CHECK(r.accuracy_by_k.back() > 0.9);
    CHECK(r.gradient_init.size() == 33);
}
