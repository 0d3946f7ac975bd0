// test_tinygpt_knobs.cpp — tinygpt train's --positions and --normalizer as a learner runs them:
// each scheme and normalizer trains, and every reader (generate with and without the KV cache,
// eval, show, compare, lens, patch, induction) reads the model it wrote; bad values exit 2
// naming the flag and the value; --resume refuses a changed scheme or normalizer.
#include <catch2/catch.hpp>

#include "tests/support/tinygpt_cli.hpp"

using namespace attnlab;
using namespace attnlab::testing::tinygpt_cli;
using Catch::Contains;

namespace {

// A folder of its own: make_fixtures() empties build/test_tmp/cli.
std::string knob_dir() { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/cli_knobs"; }
std::string knob_at(const std::string& name) { return knob_dir() + "/" + name; }

// The standard output of a command that must succeed.
std::string ok(const std::vector<std::string>& args) {
    const testing::ProgramRun r = tinygpt(args);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return r.output;
}

// The generated text: the line that continues the prompt (the other lines say how long it took).
std::string generated(const std::string& output) {
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("the cat")) return line;
    FAIL("no generated text in: " << output);
    return "";
}

}  // namespace

TEST_CASE("tinygpt train --positions and --normalizer: every choice trains and every reader reads it",
          "[tools][tinygpt][cli][knobs]") {
    fs::remove_all(knob_dir());
    fs::create_directories(knob_dir());
    for (const char* positions : {"learned", "sinusoidal", "none"})
        for (const char* normalizer : {"softmax", "sparsemax"}) {
            INFO(positions << " " << normalizer);
            const std::string ck = knob_at(std::string(positions) + "_" + normalizer + ".safetensors");
            ok(tiny_train({"--positions", positions, "--normalizer", normalizer, "--out", ck}));
            const SafetensorsFile f = load_safetensors(ck);
            CHECK(f.metadata.at("positions") == positions);
            CHECK(f.metadata.at("normalizer") == normalizer);
            const bool has_table = std::any_of(f.tensors.begin(), f.tensors.end(), [](const NamedTensor& t) { return t.name == "pos_emb.weight"; });
            CHECK(has_table == (std::string(positions) == "learned"));  // what a PyTorch user loading the file sees
            // Sampled text, so that a wrong position or normalizer in either path shows.
            const std::vector<std::string> gen{"generate", "--checkpoint", ck, "--prompt", "the cat", "--tokens", "5",
                                               "--temperature", "1", "--seed", "3"};
            std::vector<std::string> recompute = gen;
            recompute.push_back("--no-kv-cache");
            CHECK(generated(ok(gen)) == generated(ok(recompute)));
            CHECK_THAT(ok({"eval", "--checkpoint", ck, "--prompt", "the cat sleeps"}), Contains("loss"));
            ok({"lens", "--checkpoint", ck, "--prompt", "the cat sat", "--out", knob_at("lens")});
        }
    const std::string sparse = knob_at("sinusoidal_sparsemax.safetensors"), learned = knob_at("learned_softmax.safetensors");
    ok({"show", "--checkpoint", sparse, "--prompt", "the cat sleeps", "--out", knob_at("show"), "--graph"});
    CHECK(fs::exists(knob_at("show/explorer.html")));
    ok({"induction", "--checkpoint", sparse, "--out", knob_at("induction")});
    ok({"patch", "--checkpoint", sparse, "--clean", "the cat near the dogs", "--corrupted", "the cats near the dogs", "--answer",
        "sleeps", "--wrong", "sleep", "--out", knob_at("patch")});
    // compare's settings table names both knobs with each run's value.
    const std::string compared = ok({"compare", "--checkpoint", learned, "--compare-checkpoint", sparse, "--out", knob_at("compare")});
    CHECK_THAT(compared, Contains(" positions learned sinusoidal") && Contains("normalizer softmax  sparsemax"));
}

TEST_CASE("tinygpt train: bad --positions and --normalizer values, and a resume that changes them", "[tools][tinygpt][cli][knobs]") {
    fs::create_directories(knob_dir());
    const std::string ck = knob_at("resume_me.safetensors");
    run_cases({
        {"an unknown scheme", tiny_train({"--positions", "rotary", "--out", knob_at("x.safetensors")}), 2,
         "--positions needs learned, sinusoidal or none, got 'rotary'"},
        {"an unknown normalizer", tiny_train({"--normalizer", "entmax", "--out", knob_at("x.safetensors")}), 2,
         "--normalizer needs softmax or sparsemax, got 'entmax'"},
        {"top-k is seq2seq's", tiny_train({"--normalizer", "topk:2", "--out", knob_at("x.safetensors")}), 2,
         "--normalizer needs softmax or sparsemax, got 'topk:2'"},
        {"sinusoidal needs an even width", {"train", "--steps", "2", "--d-model", "15", "--heads", "5", "--positions", "sinusoidal",
                                            "--out", knob_at("x.safetensors")}, 2, "sinusoidal positions need an even d_model (sin and cos pairs), got d_model 15"},
        {"the run to resume", tiny_train({"--positions", "none", "--normalizer", "sparsemax", "--out", ck}), 0, "validation loss"},
        {"resume with another scheme", {"train", "--resume", ck, "--steps", "6", "--positions", "learned"}, 2,
         "--positions learned contradicts '" + ck + "', which was trained with positions none"},
        {"resume with another normalizer", {"train", "--resume", ck, "--steps", "6", "--normalizer", "softmax"}, 2,
         "--normalizer softmax contradicts '" + ck + "', which was trained with normalizer sparsemax"},
        {"resume with the same choices", {"train", "--resume", ck, "--steps", "6", "--positions", "none", "--normalizer", "sparsemax"}, 0,
         "resuming"},
    });
    CHECK_FALSE(fs::exists(knob_at("x.safetensors")));
}
