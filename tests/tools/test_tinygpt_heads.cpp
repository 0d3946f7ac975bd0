// test_tinygpt_heads.cpp — `tinygpt heads` as a learner runs it: each case spawns build/tinygpt
// on the fixtures of tests/support/tinygpt_cli.hpp (a model of the toy grammar, a character
// model of a corpus, a masked-token model) and a masked-token model of a corpus's words, and
// checks what it says, what it records in heads.json, and that every bad value exits 2 naming its flag.
#include <catch2/catch.hpp>

#include "tests/support/tinygpt_cli.hpp"

using namespace attnlab;
using namespace attnlab::testing::tinygpt_cli;
using Catch::Contains;

namespace {

std::vector<std::string> heads(const std::string& model, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"heads", "--checkpoint", model};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

// A run's heads.json, after checking that the run succeeded.
Json run_ok(const std::vector<std::string>& args, const std::string& out, const std::string& says) {
    const testing::ProgramRun r = tinygpt(args);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Contains(says));
    for (const char* f : {"head_pruning.png", "pruning_to_minimum.svg", "attention_distance.png", "mask_losses.png"})
        CHECK(fs::exists(out + "/" + f));
    return load_json(out + "/heads.json");
}

// The full model's held-out loss is the validation loss train() recorded at its last evaluation.
void check_base_is_the_runs(const Json& j, const std::string& checkpoint) {
    const double recorded = std::stod(nn::load_checkpoint(checkpoint).metadata.at("val_loss"));
    CHECK(j.at("base_val_loss").as_double() == Approx(recorded).margin(1e-6));
}

}  // namespace

TEST_CASE("tinygpt heads: bad values of each flag are named, exit 2", "[tools][tinygpt][cli][heads]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), chars = at("char.safetensors");
    write_file_atomic(at("afile"), "x");
    run_cases({
        {"--help", {"heads", "--help"}, 0, "--tolerance X"},
        {"an unknown flag", {"heads", "--no-such", "1"}, 2, "--no-such"},
        {"no --checkpoint", {"heads", "--out", at("heads_x")}, 2, "--checkpoint is required"},
        {"a missing checkpoint", heads(at("nope.safetensors")), 2, "nope.safetensors"},
        {"--tolerance below 0", heads(ck, {"--tolerance", "-1"}), 2, "--tolerance '-1'"},
        {"--tolerance not a number", heads(ck, {"--tolerance", "x"}), 2, "--tolerance 'x'"},
        {"--mask none restricts nothing", heads(ck, {"--mask", "none"}), 2, "--mask 'none' restricts nothing"},
        {"--mask local:0", heads(ck, {"--mask", "local:0"}), 2, "--mask 'local:0'"},
        {"--mask not a mask", heads(ck, {"--mask", "local:2,diagonal"}), 2, "--mask 'diagonal' is not a mask"},
        {"--out is a file", heads(ck, {"--out", at("afile")}), 2, "exists and is not a directory"},
        {"--out empty", heads(ck, {"--out", ""}), 2, "--out"},
        {"--corpus for a grammar model", heads(ck, {"--corpus", at("corpus.txt")}), 2, "is a model of the toy grammar"},
        {"--corpus another text", heads(chars, {"--corpus", at("corpus_same_size.txt")}), 2, "is not the text"},
        {"--corpus a FIFO", heads(chars, {"--corpus", at("fifo")}), 2, "--corpus"},
        {"--corpus a directory", heads(chars, {"--corpus", at("adir")}), 2, "is a directory"},
        {"a checkpoint without its run", heads(at("inference.safetensors")), 1, "holds no training run"},
    });
}

TEST_CASE("tinygpt heads on a grammar model, a character model and masked-token models", "[tools][tinygpt][cli][heads]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), chars = at("char.safetensors"), mh = at("mh.safetensors");

    SECTION("a causal model of the grammar: its own validation loss, heads off, causality exact") {
        const Json j = run_ok(heads(ck, {"--out", at("heads_grammar")}), at("heads_grammar"), "exactly 0: the future never reaches the past");
        CHECK(j.at("held_out").as_string() == "the toy grammar's validation set: 8 batches of 2 x 8 tokens");
        check_base_is_the_runs(j, ck);
        const Json& increase = j.at("head_pruning").at("increase");  // [layer][head]
        REQUIRE(increase.size() == 1);
        CHECK(increase.as_array()[0].size() == 2);
        CHECK(j.at("pruning_to_minimum").at("steps").size() == 3);  // all on, then each of 2 heads off
        CHECK(j.at("causality").at("largest_prefix_change").as_double() == 0.0);
        CHECK(j.at("causality").at("smallest_change_after").as_double() > 0.0);
        CHECK(j.at("masks").size() == 3);  // its own, then the default local:1 and strided:2 of context 8
        CHECK(j.at("masks").as_array()[1].at("mask").as_string() == "local +-1");
        CHECK(j.at("attention_distance").at("per_head").as_array()[0].size() == 2);
    }
    SECTION("--tolerance moves the minimum; without --out nothing is written") {
        const testing::ProgramRun r = tinygpt(heads(ck, {"--tolerance", "100", "--mask", "strided:3"}));
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.output, Contains("1 layers x 2 heads, causal, step 4; measured on the toy grammar's validation set"));
        CHECK_THAT(r.output, Contains("0 of 2 heads keep the held-out loss within 100.00 nats"));
        CHECK_THAT(r.output, Contains("strided 3"));
        CHECK_THAT(r.output, !Contains("wrote"));
    }
    SECTION("a character model of a corpus: its held-out tenth, read where the corpus now is") {
        const Json j = run_ok(heads(chars, {"--corpus", at("corpus_moved.txt"), "--out", at("heads_chars")}), at("heads_chars"),
                              "windows of the held-out last tenth of '" + at("corpus_moved.txt") + "'");
        check_base_is_the_runs(j, chars);
        CHECK(j.at("causality").at("applies").as_bool());
        CHECK(j.at("causality").at("largest_prefix_change").as_double() == 0.0);
    }
    SECTION("a masked-token model: part 5 does not apply") {
        const Json j = run_ok(heads(mh, {"--mask", "causal,local:2", "--out", at("heads_mh")}), at("heads_mh"),
                              "does not apply: 'mh' is a bidirectional (masked-token) model");
        check_base_is_the_runs(j, mh);
        CHECK_FALSE(j.at("causality").at("applies").as_bool());
        CHECK(j.at("masks").as_array()[1].at("mask").as_string() == "causal");
    }
    SECTION("a masked-token model of a corpus's words") {
        const std::string words = at("words_mh.safetensors");
        const testing::ProgramRun t = tinygpt(tiny_train({"--corpus", at("corpus.txt"), "--tokens", "words", "--model", "multi-head",
                                                          "--out", words}));
        INFO(t.output);
        REQUIRE(t.exit_code == 0);
        const Json j = run_ok(heads(words, {"--out", at("heads_words")}), at("heads_words"), "does not apply");
        check_base_is_the_runs(j, words);
    }
}
