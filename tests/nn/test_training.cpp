// test_training.cpp — the training loop, checkpoints and generation, end to end on tiny models.
#include <catch2/catch.hpp>
#include <cmath>

#include "nn/checkpoint.hpp"
#include "nn/generate.hpp"
#include "nn/train.hpp"
#include "tensor/fileio.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::bit_identical;
using attnlab::testing::IsCloseTo;

namespace {

std::string tmp(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/" + name; }

TrainConfig tiny(const std::string& model, std::int64_t steps) {
    TrainConfig c;
    c.model = model, c.steps = steps, c.d_model = 16, c.n_heads = 2, c.n_layers = 1, c.context = 12, c.batch = 4;
    c.eval_every = 5, c.val_batches = 2, c.warmup = 3, c.progress = TrainConfig::Progress::quiet;
    return c;
}

bool same_curve(const std::vector<TrainPoint>& a, const std::vector<TrainPoint>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].step != b[i].step || a[i].loss != b[i].loss) return false;  // exact: same bits
    return true;
}

}  // namespace

TEST_CASE("training lowers the loss toward the floor, and the same seed repeats it exactly", "[nn][train]") {
    TrainResult a = train(tiny("causal", 100)), b = train(tiny("causal", 100));
    CHECK(same_curve(a.curve, b.curve));
    INFO("validation loss " << a.final_eval.loss << ", floor " << a.final_eval.floor);
    CHECK(a.curve.front().loss == Approx(std::log(109.0)).margin(0.1));  // an untrained model is uniform
    CHECK(a.final_eval.loss < std::log(109.0) - 0.6);                    // measured: 3.73 after 100 steps
    CHECK(a.final_eval.loss > a.final_eval.floor);            // nobody beats the Bayes floor
    TrainConfig other = tiny("causal", 100);
    other.seed = 1;
    CHECK_FALSE(same_curve(a.curve, train(other).curve));
}

TEST_CASE("a resumed run continues the loss curve exactly", "[nn][train][checkpoint]") {
    for (const std::string model : {"causal", "multi-head"}) {
        INFO("model " << model);
        TrainConfig whole = tiny(model, 20);
        TrainResult uninterrupted = train(whole);

        TrainConfig interrupted = whole;  // killed after step 10; its checkpoint of step 10 remains
        interrupted.stop_after = 10;
        interrupted.out = tmp("resume_" + model + ".safetensors");
        train(interrupted);
        TrainConfig second = whole;
        second.resume = interrupted.out;
        TrainResult rest = train(second);
        std::vector<TrainPoint> tail(uninterrupted.curve.begin() + 10, uninterrupted.curve.end());
        CHECK(same_curve(rest.curve, tail));
    }
}

TEST_CASE("checkpoints round-trip bit for bit and carry their metadata", "[nn][checkpoint]") {
    TrainConfig c = tiny("causal", 3);
    c.out = tmp("roundtrip.safetensors");
    TrainResult r = train(c);
    LoadedCheckpoint back = load_checkpoint(c.out);
    auto a = r.model->named_parameters(), b = back.model->named_parameters();
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        INFO(a[i].name);
        CHECK(a[i].name == b[i].name);
        CHECK(bit_identical(a[i].tensor, b[i].tensor));
    }
    CHECK(back.info.kind == "causal");
    CHECK(back.info.vocab == grammar_vocab());
    CHECK(back.info.vocab[4] != "");
    CHECK(back.model->config().d_model == 16);
    CHECK(back.has_training_state);
    CHECK(back.step == 3);
    CHECK(back.optimizer_state.size() == 2 * a.size());
    CHECK(read_file(loss_csv_path(c.out)).starts_with("step,loss,val_loss\n1,"));
}

TEST_CASE("corrupted checkpoints fail cleanly, naming the problem", "[nn][checkpoint][errors]") {
    TrainConfig c = tiny("causal", 1);
    c.out = tmp("corrupt_src.safetensors");
    train(c);
    const std::string good = read_file(c.out);
    const std::string path = tmp("corrupt.safetensors");
    SECTION("truncated") {
        for (std::size_t len : {std::size_t(0), std::size_t(7), std::size_t(100), good.size() / 2, good.size() - 1}) {
            write_file_atomic(path, good.substr(0, len));
            CHECK_THROWS_AS(load_checkpoint(path), IOError);
        }
    }
    SECTION("flipped header bytes never crash") {
        for (std::size_t i = 8; i < 600; i += 7) {
            std::string bad = good;
            bad[i] = static_cast<char>(bad[i] ^ 0x5a);
            write_file_atomic(path, bad);
            try {
                load_checkpoint(path);  // a flip inside a number may still be a valid file
            } catch (const IOError&) {
            }
        }
    }
    SECTION("a tensor the model needs is missing") {
        std::string bad = good;
        const std::size_t at = bad.find("head.weight");
        REQUIRE(at != std::string::npos);
        bad[at] = 'H';
        write_file_atomic(path, bad);
        CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("head.weight"));
    }
    SECTION("not an attnlab checkpoint") {
        std::string bad = good;
        bad.replace(bad.find("attnlab-checkpoint"), 7, "xxxxxxx");
        write_file_atomic(path, bad);
        CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("not an attnlab checkpoint"));
    }
    CHECK_THROWS_WITH(load_checkpoint(tmp("does_not_exist.safetensors")), Catch::Contains("does_not_exist"));
}

TEST_CASE("cached and uncached decoding agree token for token", "[nn][generate][kvcache]") {
    TrainResult r = train(tiny("causal", 30));
    GenerateOptions o;
    o.max_new_tokens = 8;
    const std::vector<std::int64_t> prompt{1, 4, 10};
    Generation cached = generate(*r.model, prompt, o);
    o.use_kv_cache = false;
    Generation full = generate(*r.model, prompt, o);
    REQUIRE(cached.tokens == full.tokens);
    for (std::size_t i = 0; i < cached.logits.size(); ++i) {
        INFO("step " << i);
        CHECK_THAT(cached.logits[i], IsCloseTo(full.logits[i], 1e-5));
    }
    // Sampling is seeded: the same seed repeats, and stops at the context.
    o.temperature = 1.0, o.top_k = 5, o.max_new_tokens = 100;
    CHECK(generate(*r.model, prompt, o).tokens == generate(*r.model, prompt, o).tokens);
    CHECK(generate(*r.model, prompt, o).tokens.size() == 12 - 3);
    CHECK_THROWS_AS(generate(*r.model, std::vector<std::int64_t>(13, 4), o), ValueError);
}
