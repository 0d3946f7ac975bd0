// test_checkpoint.cpp — checkpoints round-trip bit for bit, and hostile ones fail fast,
// naming the file and the problem, before the model they describe is allocated.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>

#include "training/train.hpp"
#include "nn/checkpoint.hpp"
#include "io/safetensors.hpp"
#include "nn/transformer_spec.hpp"
#include "io/fileio.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::bit_identical;

namespace {

std::string tmp(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/nn/" + name; }

// A real checkpoint with training state: a 1-layer d_model 16 causal model after 3 steps.
const std::string& trained_checkpoint() {
    static const std::string path = [] {
        lab::TrainConfig c;
        c.steps = 3, c.d_model = 16, c.n_heads = 2, c.n_layers = 1, c.context = 12, c.batch = 4, c.warmup = 1;
        c.eval_every = 3, c.val_batches = 2, c.progress = lab::TrainConfig::Progress::quiet;
        c.out = tmp("source.safetensors");
        lab::train(c);
        return c.out;
    }();
    return path;
}

// The trained checkpoint with some metadata replaced (or removed, for an empty value) and
// optionally a tensor changed: a file as an attacker (or a bug) would write it.
std::string rewritten(const std::string& name, const std::map<std::string, std::string>& meta,
                      const std::function<void(std::vector<NamedTensor>&)>& edit = {}) {
    SafetensorsFile f = load_safetensors(trained_checkpoint());
    for (const auto& [k, v] : meta) {
        if (v.empty()) f.metadata.erase(k);
        else f.metadata[k] = v;
    }
    if (edit) edit(f.tensors);
    save_safetensors(tmp(name), f.tensors, f.metadata);
    return tmp(name);
}

}  // namespace

TEST_CASE("parameter_specs lists exactly what a Transformer registers", "[nn][checkpoint][limits]") {
    for (const TransformerConfig& c : {TransformerConfig{.vocab_size = 11, .d_model = 8, .n_heads = 2, .n_layers = 1, .context = 5},
                                       TransformerConfig{.vocab_size = 3, .d_model = 12, .n_heads = 3, .n_layers = 3, .context = 7,
                                                         .causal = false}}) {
        Transformer model(c);
        const auto real = model.named_parameters();
        const auto spec = parameter_specs(c);
        REQUIRE(real.size() == spec.size());
        for (std::size_t i = 0; i < spec.size(); ++i) {
            INFO(real[i].name);
            CHECK(spec[i].name == real[i].name);
            CHECK(spec[i].shape == real[i].tensor.shape());
        }
        CHECK(parameter_count(c) == model.parameter_count());
    }
}

TEST_CASE("one set of limits: values outside them are named", "[nn][checkpoint][limits]") {
    TransformerConfig c{.vocab_size = 10, .d_model = 64, .n_heads = 4, .n_layers = 2, .context = 32};
    CHECK_NOTHROW(check_limits(c, "t"));
    auto with = [&](auto change) {
        TransformerConfig x = c;
        change(x);
        return x;
    };
    CHECK_THROWS_WITH(check_limits(with([](auto& x) { x.n_layers = 65; }), "t"), Catch::Contains("t: n_layers 65 is outside [1, 64]"));
    CHECK_THROWS_WITH(check_limits(with([](auto& x) { x.d_model = 100000; }), "t"), Catch::Contains("d_model 100000 is outside [1, 4096]"));
    CHECK_THROWS_WITH(check_limits(with([](auto& x) { x.context = 65536; }), "t"), Catch::Contains("context 65536"));
    CHECK_THROWS_WITH(check_limits(with([](auto& x) { x.n_heads = 5; }), "t"), Catch::Contains("not divisible by n_heads 5"));
    CHECK_THROWS_WITH(check_limits(with([](auto& x) { x.d_model = 4096, x.n_layers = 64; }), "t"),
                      Catch::Contains("parameters, more than the limit of 268435456"));
}

TEST_CASE("checkpoints round-trip bit for bit and carry their metadata", "[nn][checkpoint]") {
    LoadedCheckpoint back = load_checkpoint(trained_checkpoint());
    Transformer fresh(back.model->config());
    CHECK(back.info.kind == "causal");
    CHECK(back.info.vocab == lab::grammar_vocab());
    CHECK(back.model->config().d_model == 16);
    CHECK(back.has_training_state);
    CHECK(back.step == 3);
    CHECK(back.optimizer_state.size() == 2 * fresh.named_parameters().size());
    CHECK(back.training_tensors.at("loss_curve").shape() == Shape{3, 3});
    CHECK(read_file(lab::loss_csv_path(trained_checkpoint())).starts_with("step,loss,val_loss\n1,"));
    // Saving what was loaded gives the same tensors, bit for bit.
    save_checkpoint(tmp("again.safetensors"), *back.model, back.info);
    LoadedCheckpoint again = load_checkpoint(tmp("again.safetensors"));
    auto a = back.model->named_parameters(), b = again.model->named_parameters();
    for (std::size_t i = 0; i < a.size(); ++i) {
        INFO(a[i].name);
        CHECK(bit_identical(a[i].tensor, b[i].tensor));
    }
}

TEST_CASE("a header claiming a huge model fails fast, before the model is allocated", "[nn][checkpoint][limits][errors]") {
    // A ~20 KB file claiming d_model 4096, 64 layers, context 65536 (a ~52 GB model): the
    // header is checked against the limits before any allocation, so this fails at once.
    // Weights only (as saved for inference), so the file stays small.
    const auto weights_only = [](std::vector<NamedTensor>& ts) {
        std::erase_if(ts, [](const NamedTensor& t) { return t.name.starts_with("optim.") || t.name.starts_with("train."); });
    };
    const std::string bomb = rewritten("bomb.safetensors", {{"d_model", "4096"}, {"n_layers", "64"}, {"context", "65536"}, {"step", ""}},
                                       weights_only);
    CHECK(read_file(bomb).size() < 32'000);  // measured: 31,472 bytes
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(load_checkpoint(bomb), Catch::Contains("bomb.safetensors") && Catch::Contains("context 65536 is outside"));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1.0);
    // Within every limit (4.2 M parameters) but not what the tensors are: named before building.
    const std::string liar = rewritten("liar.safetensors", {{"d_model", "256"}, {"n_heads", "4"}, {"n_layers", "4"}});
    CHECK_THROWS_WITH(load_checkpoint(liar), Catch::Contains("tensor 'tok_emb.weight' is float32 [109, 16]") &&
                                                 Catch::Contains("needs float32 [109, 256]"));
    // Each within its limit, together over the parameter limit.
    const std::string big = rewritten("big.safetensors", {{"d_model", "4096"}, {"n_heads", "4"}, {"n_layers", "64"}});
    CHECK_THROWS_WITH(load_checkpoint(big), Catch::Contains("parameters, more than the limit"));
}

TEST_CASE("corrupted checkpoints fail cleanly, naming the problem", "[nn][checkpoint][errors]") {
    const std::string good = read_file(trained_checkpoint());
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
        CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("Head.weight") && Catch::Contains("not a parameter"));
    }
    SECTION("not an attnlab checkpoint") {
        std::string bad = good;
        bad.replace(bad.find("attnlab-checkpoint"), 7, "xxxxxxx");
        write_file_atomic(path, bad);
        CHECK_THROWS_WITH(load_checkpoint(path), Catch::Contains("not an attnlab checkpoint"));
    }
    CHECK_THROWS_WITH(load_checkpoint(tmp("does_not_exist.safetensors")), Catch::Contains("does_not_exist"));
}

TEST_CASE("the loader refuses non-finite weights and impossible steps", "[nn][checkpoint][errors]") {
    auto poison = [](float value) {
        return [value](std::vector<NamedTensor>& ts) {
            for (auto& t : ts)
                if (t.name == "blocks.0.mlp.fc1.weight") t.tensor.data_ptr<float>()[5] = value;
        };
    };
    CHECK_THROWS_WITH(load_checkpoint(rewritten("nan.safetensors", {}, poison(NAN))),
                      Catch::Contains("tensor 'blocks.0.mlp.fc1.weight' holds nan at element 5"));
    CHECK_THROWS_WITH(load_checkpoint(rewritten("inf.safetensors", {}, poison(-INFINITY))),
                      Catch::Contains("holds -inf at element 5"));
    CHECK_THROWS_WITH(load_checkpoint(rewritten("neg_step.safetensors", {{"step", "-50"}})),
                      Catch::Contains("step -50 is outside [0, 1000000000]"));
    CHECK_THROWS_WITH(load_checkpoint(rewritten("huge_step.safetensors", {{"step", "99999999999"}})),
                      Catch::Contains("step 99999999999 is outside"));
    CHECK_THROWS_WITH(load_checkpoint(rewritten("extra.safetensors", {}, [](std::vector<NamedTensor>& ts) {
                          ts.push_back({"blocks.1.ln1.weight", zeros({16})});
                      })),
                      Catch::Contains("tensor 'blocks.1.ln1.weight' is not a parameter of a model with 1 layers"));
    CHECK_THROWS_WITH(load_checkpoint(rewritten("v3.safetensors", {{"format_version", "3"}})),
                      Catch::Contains("has format_version 3; this build reads versions 1 to 2"));
    // A version-1 file (before run records) still loads for inference.
    CHECK(load_checkpoint(rewritten("v1.safetensors", {{"format_version", "1"}})).model->config().d_model == 16);
}

TEST_CASE("every field is checked: booleans, the vocabulary, the optimizer's buffers", "[nn][checkpoint][errors]") {
    for (const char* key : {"causal", "scaled", "qkv_only"})
        for (const char* value : {"True", "1", "yes", " true"})
            CHECK_THROWS_WITH(load_checkpoint(rewritten("bool.safetensors", {{key, value}})),
                              Catch::Contains(std::string("metadata '") + key + "' is '" + value + "', not true or false"));
    CHECK(load_checkpoint(rewritten("bidirectional.safetensors", {{"causal", "false"}})).model->config().causal == false);

    SafetensorsFile f = load_safetensors(trained_checkpoint());
    std::string vocab = f.metadata.at("vocab");  // ["<pad>","<bos>","<eos>","[MASK]","a",...]
    vocab.replace(vocab.find("\"<eos>\""), 7, "\"<bos>\"");
    CHECK_THROWS_WITH(load_checkpoint(rewritten("dup.safetensors", {{"vocab", vocab}})),
                      Catch::Contains("dup.safetensors': vocab repeats '<bos>' (ids 1 and 2)"));

    const auto rename = [](const std::string& from, const std::string& to) {
        return [=](std::vector<NamedTensor>& ts) {
            for (auto& t : ts)
                if (t.name.starts_with(from)) t.name = to + t.name.substr(from.size());
        };
    };
    CHECK_THROWS_WITH(load_checkpoint(rewritten("exq.safetensors", {}, rename("optim.exp_avg.", "optim.exq_avg."))),
                      Catch::Contains("optimizer state 'optim.exq_avg.") && Catch::Contains("is no AdamW buffer"));
    CHECK_THROWS_WITH(load_checkpoint(rewritten("one_missing.safetensors", {}, [](std::vector<NamedTensor>& ts) {
                          std::erase_if(ts, [](const NamedTensor& t) { return t.name == "optim.exp_avg_sq.head.weight"; });
                      })),
                      Catch::Contains("optimizer state 'optim.exp_avg_sq.head.weight' is missing"));
    // Absent altogether is a file for inference: it loads, without state.
    const LoadedCheckpoint bare = load_checkpoint(rewritten("no_optim.safetensors", {}, [](std::vector<NamedTensor>& ts) {
        std::erase_if(ts, [](const NamedTensor& t) { return t.name.starts_with("optim."); });
    }));
    CHECK(bare.optimizer_state.empty());
    CHECK(load_checkpoint(trained_checkpoint()).optimizer_state.size() == 2 * bare.model->named_parameters().size());
}

TEST_CASE("the position scheme and the normalizer round-trip, and a bad value is named", "[nn][checkpoint][positions]") {
    for (PositionScheme p : {PositionScheme::learned, PositionScheme::sinusoidal, PositionScheme::none})
        for (Normalizer n : {Normalizer::softmax(), Normalizer::sparsemax()}) {
            INFO(position_scheme_name(p) << " " << n.name());
            const TransformerConfig c{.vocab_size = 7, .d_model = 8, .n_heads = 2, .n_layers = 1, .context = 6,
                                      .positions = p, .normalizer = n};
            Transformer model(c, 2);
            // parameter_specs knows which schemes have a pos_emb table
            const auto spec = parameter_specs(c);
            const auto real = model.named_parameters();
            REQUIRE(spec.size() == real.size());
            for (std::size_t i = 0; i < spec.size(); ++i) CHECK(spec[i].name == real[i].name);
            CHECK(parameter_count(c) == model.parameter_count());
            save_checkpoint(tmp("knobs.safetensors"), model, {"causal", {"a", "b", "c", "d", "e", "f", "g"}, {}});
            const SafetensorsFile f = load_safetensors(tmp("knobs.safetensors"));
            CHECK(f.metadata.at("positions") == position_scheme_name(p));
            CHECK(f.metadata.at("normalizer") == n.name());
            const LoadedCheckpoint back = load_checkpoint(tmp("knobs.safetensors"));
            CHECK(back.model->config().positions == p);
            CHECK(back.model->config().normalizer == n);
            const Tensor ids = from_vector<std::int64_t>({1, 4, 2, 6}, {1, 4});
            CHECK(bit_identical(back.model->forward(ids), model.forward(ids)));
        }
    // Absent (a file from before the choice): learned, softmax.
    const LoadedCheckpoint old = load_checkpoint(rewritten("old.safetensors", {{"positions", ""}, {"normalizer", ""}}));
    CHECK(old.model->config().positions == PositionScheme::learned);
    CHECK(old.model->config().normalizer == Normalizer::softmax());
    CHECK_THROWS_WITH(load_checkpoint(rewritten("bad_positions.safetensors", {{"positions", "rotary"}})),
                      Catch::Contains("bad_positions.safetensors': metadata 'positions' is 'rotary', not learned, sinusoidal or none"));
    CHECK_THROWS_WITH(load_checkpoint(rewritten("bad_normalizer.safetensors", {{"normalizer", "topk:2"}})),
                      Catch::Contains("bad_normalizer.safetensors': metadata 'normalizer' is 'topk:2', not softmax or sparsemax"));
    // A learned model's file relabelled sinusoidal holds a pos_emb the scheme does not have.
    CHECK_THROWS_WITH(load_checkpoint(rewritten("relabelled.safetensors", {{"positions", "sinusoidal"}})),
                      Catch::Contains("tensor 'pos_emb.weight' is not a parameter"));
    // The limits: an odd width cannot hold (sin, cos) pairs.
    TransformerConfig odd{.vocab_size = 5, .d_model = 9, .n_heads = 3, .n_layers = 1, .context = 4, .positions = PositionScheme::sinusoidal};
    CHECK_THROWS_WITH(check_limits(odd, "t"), Catch::Contains("t: sinusoidal positions need an even d_model") && Catch::Contains("9"));
}
