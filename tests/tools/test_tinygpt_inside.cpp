// test_tinygpt_inside.cpp — the commands that look inside a causal model (patch, lens,
// induction) as a learner runs them: each case spawns build/tinygpt on the fixtures of
// tests/support/tinygpt_cli.hpp and checks its exit status and what it says, bad values included.
#include <catch2/catch.hpp>

#include "tests/support/tinygpt_cli.hpp"

using namespace attnlab;
using namespace attnlab::testing::tinygpt_cli;
using attnlab::testing::run_program;
using Catch::Contains;

TEST_CASE("tinygpt patch: any causal model, two texts of one length, one token each", "[tools][tinygpt][cli][patch]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), chars = at("char.safetensors");
    const auto patch = [&](const std::string& model, const std::string& clean, const std::string& corrupted, const std::string& answer,
                           const std::string& wrong, const std::string& out) {
        return std::vector<std::string>{"patch", "--checkpoint", model, "--clean", clean, "--corrupted", corrupted,
                                        "--answer", answer, "--wrong", wrong, "--out", out};
    };
    run_cases({
        {"a bad flag", {"patch", "--no-such", "1"}, 2, "--no-such"},
        {"no --clean", {"patch", "--checkpoint", ck, "--corrupted", "the cats", "--answer", "sleep", "--wrong", "sleeps", "--out", at("patch_x")}, 2, "--clean"},
        {"texts of different lengths", patch(ck, "the cat", "the big cats", "sleeps", "sleep", at("patch_x")), 2,
         "--clean 'the cat' is 3 tokens and --corrupted 'the big cats' 4"},
        {"an answer of two tokens", patch(ck, "the cat", "the cats", "the cat", "sleep", at("patch_x")), 2, "--answer 'the cat' is 2 tokens"},
        {"the same answer and wrong token", patch(ck, "the cat", "the cats", "sleeps", "sleeps", at("patch_x")), 2, "the same token 'sleeps'"},
        {"an unknown word names its flag", patch(ck, "the zebra", "the cats", "sleeps", "sleep", at("patch_x")), 1,
         "--clean 'the zebra': WordTokenizer: unknown word 'zebra'"},
        {"an unknown answer", patch(ck, "the cat", "the cats", "purrs", "sleep", at("patch_x")), 1, "--answer 'purrs': WordTokenizer: unknown word 'purrs'"},
        {"a bidirectional model", patch(at("mh.safetensors"), "the cat", "the cats", "sleeps", "sleep", at("patch_x")), 2, "bidirectional"},
        {"identical texts: nothing to restore", patch(ck, "the cat", "the cat", "sleeps", "sleep", at("patch_x")), 1, "same logit difference"},
        {"--out is a file", patch(ck, "the cat", "the cats", "sleeps", "sleep", at("corpus.txt")), 2, "exists and is not a directory"},
    });
    // A model of the toy grammar, and one of a corpus (characters): the last layer's residual
    // stream at the last position restores everything; every head of the 1-layer model has a cell.
    for (const auto& [model, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {ck, patch(ck, "the cat near the dogs", "the cats near the dogs", "sleeps", "sleep", at("patch_grammar"))},
             {chars, patch(chars, "the ca", "the ma", "t", "s", at("patch_chars"))}}) {
        const testing::ProgramRun r = tinygpt(args);
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.output, Contains("the head that restores the most: L1 H"));
        const std::string out = args.back();
        const Json j = load_json(out + "/patch.json");
        const Json& residual = j.at("residual");
        REQUIRE(residual.size() == 1);
        CHECK(residual.as_array()[0].as_array().back().as_double() == 1.0);
        CHECK(j.at("heads").as_array()[0].size() == 2);
        CHECK(j.at("clean_logit_difference").as_double() != j.at("corrupted_logit_difference").as_double());
        for (const char* f : {"patch_residual.png", "patch_heads.svg"}) CHECK(fs::exists(out + "/" + f));
    }
}

TEST_CASE("tinygpt lens and induction read any causal model; bad values are named", "[tools][tinygpt][cli][lens]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), chars = at("char.safetensors");
    write_file_atomic(at("afile"), "x");
    run_cases({
        {"lens --help", {"lens", "--help"}, 0, "--prompt TEXT"},
        {"lens on the grammar model: KL to the exact next word", {"lens", "--checkpoint", ck, "--prompt", "the cat sat", "--out", at("lens")}, 0, "KL(exact || reading)"},
        {"lens: a prefix the grammar cannot emit", {"lens", "--checkpoint", ck, "--prompt", "cat the", "--out", at("lens_x")}, 0, "no exact distribution to compare with"},
        {"lens on a character model", {"lens", "--checkpoint", chars, "--prompt", "the cat", "--out", at("lens_chars")}, 0, "logit_lens.svg"},
        {"lens on a bidirectional model", {"lens", "--checkpoint", at("mh.safetensors"), "--prompt", "the cat", "--out", at("lens_x")}, 1, "bidirectional"},
        {"lens without --out", {"lens", "--checkpoint", ck, "--prompt", "the cat"}, 2, "--out DIR is required"},
        {"lens without --prompt", {"lens", "--checkpoint", ck, "--out", at("lens_x")}, 2, "--prompt is required"},
        {"lens without --checkpoint", {"lens", "--prompt", "the", "--out", at("lens_x")}, 2, "--checkpoint is required"},
        {"lens --out is a file", {"lens", "--checkpoint", ck, "--prompt", "the", "--out", at("afile")}, 2, "exists and is not a directory"},
        {"lens: longer than the context", {"lens", "--checkpoint", ck, "--prompt", "the cat sat on the mat near the dog", "--out", at("lens_x")}, 1, "the lens reads at most 8"},
        {"lens: an unknown word", {"lens", "--checkpoint", ck, "--prompt", "the zebra", "--out", at("lens_x")}, 1, "zebra"},
        {"induction --help", {"induction", "--help"}, 0, "--length N"},
        {"induction on the grammar model", {"induction", "--checkpoint", ck, "--out", at("induction")}, 0, "L1 H2"},
        {"induction on a character model", {"induction", "--checkpoint", chars, "--length", "3", "--rows", "4", "--out", at("induction_chars")}, 0, "4 rows of 3 random tokens"},
        {"induction on a bidirectional model", {"induction", "--checkpoint", at("mh.safetensors"), "--out", at("induction_x")}, 1, "bidirectional"},
        {"induction --length 1", {"induction", "--checkpoint", ck, "--length", "1", "--out", at("induction_x")}, 2, "'1'"},
        {"induction --length past half the context", {"induction", "--checkpoint", ck, "--length", "4", "--out", at("induction_x")}, 2, "'4'"},
        {"induction --rows 0", {"induction", "--checkpoint", ck, "--rows", "0", "--out", at("induction_x")}, 2, "'0'"},
        {"induction --seed x", {"induction", "--checkpoint", ck, "--seed", "x", "--out", at("induction_x")}, 2, "'x'"},
        {"induction without --out", {"induction", "--checkpoint", ck}, 2, "--out DIR is required"},
    });
    for (const char* f : {"lens/logit_lens.png", "lens_chars/logit_lens.png", "induction/induction_scores.png", "induction_chars/induction_scores.png"}) {
        INFO(f);
        CHECK(fs::file_size(at(f)) > 1000);
    }
    // The grammar model's table has a row per reading: the embedding and its one block.
    const auto r = tinygpt({"lens", "--checkpoint", ck, "--prompt", "the cat sat", "--out", at("lens")});
    CHECK_THAT(r.output, Contains("embedding") && Contains("block 1") && !Contains("block 2"));
    CHECK_FALSE(tinygpt({"lens", "--checkpoint", chars, "--prompt", "the cat", "--out", at("lens_chars")}).output.find("KL") !=
                std::string::npos);
}
