// test_attention_timeline.cpp — recording attention during training must not change
// the training: the same run with and without recording writes the same checkpoint bytes.
#include <catch2/catch.hpp>
#include <filesystem>

#include "analyses/attention_timeline.hpp"
#include "training/train.hpp"
#include "io/fileio.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;
using namespace attnlab::lab;

namespace {
std::string tmp(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/analyses/" + name; }
}  // namespace

TEST_CASE("recording a probe's attention every evaluation leaves the trained checkpoint byte for byte the same",
          "[lab][train][attention_timeline]") {
    std::filesystem::create_directories(tmp(""));
    TrainConfig c;
    c.task = Task::causal, c.steps = 20, c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.context = 12, c.batch = 4;
    c.eval_every = 5, c.val_batches = 2, c.warmup = 3, c.progress = TrainConfig::Progress::quiet;
    TrainConfig plain = c, observed = c;
    plain.out = tmp("timeline_plain.safetensors"), observed.out = tmp("timeline_observed.safetensors");
    AttentionTimeline timeline;
    timeline.probe = {1, 4, 7, 2, 9, 3};
    observed.on_eval = recording(timeline);
    train(plain);
    train(observed);
    CHECK(timeline.steps == std::vector<std::int64_t>{0, 5, 10, 15, 20});
    REQUIRE(timeline.layers.size() == 5);
    REQUIRE(timeline.layers[0].size() == 2);
    CHECK(timeline.layers[0][0].shape() == Shape{2, 6, 6});
    // the snapshots differ: the attention did move while the model learned
    CHECK(max(abs(timeline.layers.back()[0] - timeline.layers.front()[0])).item() > 1e-3);
    const std::string a = read_file(plain.out), b = read_file(observed.out);
    REQUIRE(!a.empty());
    CHECK(a == b);
}

TEST_CASE("settle_step: the first step from which a series stays near its final value", "[lab][attention_timeline]") {
    const std::vector<std::int64_t> steps{0, 25, 50, 75, 100};
    CHECK(settle_step(steps, {3.0, 2.0, 1.02, 1.0, 1.01}, 0.05) == 50);
    CHECK(settle_step(steps, {1.0, 1.0, 2.0, 1.0, 1.0}, 0.05) == 75);  // a late excursion resets it
    CHECK(settle_step(steps, {1.0, 1.0, 1.0, 1.0, 1.0}, 0.05) == 0);
    CHECK_THROWS_WITH(settle_step(steps, {1.0}, 0.05), Catch::Contains("settle_step"));
}
