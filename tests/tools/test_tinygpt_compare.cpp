// test_tinygpt_compare.cpp — a learner's own runs: every training writes its loss figure beside
// its CSV (refused over another kind of file, as the CSV is), and `tinygpt compare` puts two
// runs side by side: curves, the settings that differ, heads and their difference, one page.
// Each case runs build/tinygpt as a process in a scratch folder.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/fileio.hpp"
#include "io/safetensors.hpp"
#include "tensor/ops.hpp"
#include "tests/support/run_program.hpp"

using namespace attnlab;
using attnlab::testing::ProgramRun;
using Catch::Contains;

namespace {

namespace fs = std::filesystem;

std::string scratch(const std::string& name) {
    const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/compare/" + name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

ProgramRun tinygpt(std::vector<std::string> args, const std::string& cwd) {
    args.insert(args.begin(), testing::program_path("tinygpt"));
    return testing::run_program(args, 60, 0, cwd);
}

// A tiny run of a few steps (1 layer, 2 heads unless `extra` says), with `extra` flags.
std::vector<std::string> tiny(const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"train", "--steps", "4", "--d-model", "16", "--layers", "1", "--context", "8",
                                  "--batch", "2", "--eval-every", "2", "--warmup", "1", "--out", out};
    if (std::find(extra.begin(), extra.end(), "--heads") == extra.end()) args.insert(args.end(), {"--heads", "2"});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

void require_ok(const ProgramRun& r) {
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("tinygpt train writes its loss figure beside the CSV, under the CSV's output rule", "[tools][tinygpt][cli][compare]") {
    const std::string dir = scratch("figure");
    const ProgramRun r = tinygpt(tiny("a.safetensors"), dir);
    require_ok(r);
    CHECK_THAT(r.output, Contains("a.loss.svg and .png"));
    CHECK(file_kind(dir + "/a.loss.png") == "a PNG image");
    const std::string svg = read_file(dir + "/a.loss.svg");
    CHECK_THAT(svg, Contains("a: loss per step") && Contains("validation") && Contains("train"));

    SECTION("another kind of file at the figure's name is left alone unless --overwrite") {
        write_file_atomic(dir + "/b.loss.png", "my notes\n");
        const ProgramRun refused = tinygpt(tiny("b.safetensors"), dir);
        INFO(refused.output);
        CHECK(refused.exit_code == 1);
        CHECK_THAT(refused.output, Contains("the loss figure") && Contains("b.loss.png") && Contains("--overwrite"));
        CHECK(read_file(dir + "/b.loss.png") == "my notes\n");
        CHECK_FALSE(fs::exists(dir + "/b.safetensors"));
        require_ok(tinygpt(tiny("b.safetensors", {"--overwrite"}), dir));
        CHECK(file_kind(dir + "/b.loss.png") == "a PNG image");
    }
    SECTION("a directory at the figure's name is refused before any step") {
        fs::create_directories(dir + "/c.loss.svg");
        const ProgramRun refused = tinygpt(tiny("c.safetensors"), dir);
        INFO(refused.output);
        CHECK(refused.exit_code == 1);
        CHECK_THAT(refused.output, Contains("c.loss.svg"));
        CHECK_FALSE(fs::exists(dir + "/c.safetensors"));
    }
}

TEST_CASE("tinygpt compare: two runs' curves, the settings that differ, heads and B - A", "[tools][tinygpt][cli][compare]") {
    const std::string dir = scratch("runs");
    require_ok(tinygpt(tiny("a.safetensors"), dir));
    require_ok(tinygpt(tiny("b.safetensors", {"--seed", "1", "--lr", "0.01"}), dir));
    require_ok(tinygpt(tiny("m.safetensors", {"--model", "multi-head"}), dir));
    require_ok(tinygpt(tiny("wide.safetensors", {"--heads", "4"}), dir));

    SECTION("the settings that differ, and every figure with a prompt") {
        const ProgramRun r = tinygpt({"compare", "--checkpoint", "a.safetensors", "--compare-checkpoint", "b.safetensors",
                                      "--prompt", "the cat", "--out", "ab"},
                                     dir);
        require_ok(r);
        CHECK_THAT(r.output, Contains("settings that differ"));
        CHECK_THAT(r.output, Contains("seed") && Contains("lr") && Contains("0.003") && Contains("0.01"));
        CHECK_THAT(r.output, !Contains("d_model"));  // the same in both: not listed
        for (const char* f : {"loss_curves.png", "loss_curves.svg", "compare_layer1.png", "compare_layer1.svg", "explorer.html"})
            CHECK(fs::exists(dir + "/ab/" + f));
        CHECK_FALSE(fs::exists(dir + "/ab/compare_layer2.png"));  // one layer
        const std::string page = read_file(dir + "/ab/explorer_data.json");
        CHECK_THAT(page, Contains("\"A-causal\"") && Contains("\"B-causal\""));
        CHECK_THAT(read_file(dir + "/ab/loss_curves.svg"), Contains("A validation") && Contains("B train"));
    }
    SECTION("a model beside itself: no setting differs, B - A is zero") {
        const ProgramRun r = tinygpt({"compare", "--checkpoint", "a.safetensors", "--compare-checkpoint", "a.safetensors",
                                      "--prompt", "the cat", "--out", "aa"},
                                     dir);
        require_ok(r);
        CHECK_THAT(r.output, Contains("the same settings"));
        CHECK_THAT(r.output, Contains("layer 1: mean |B - A| over heads, queries and keys: 0.0000"));
    }
    SECTION("a causal and a bidirectional model are labelled by their real kind") {
        const ProgramRun r = tinygpt({"compare", "--checkpoint", "a.safetensors", "--compare-checkpoint", "m.safetensors",
                                      "--prompt", "the cat", "--out", "am"},
                                     dir);
        require_ok(r);
        CHECK_THAT(r.output, Contains("task") && Contains("multi-head"));
        CHECK_THAT(read_file(dir + "/am/explorer_data.json"), Contains("\"A-causal\"") && Contains("\"B-bidirectional\""));
    }
    SECTION("bad input: a clear message, nothing written") {
        struct Case {
            std::vector<std::string> args;
            int status;
            std::string says;
        };
        const std::vector<Case> cases{
            {{"--checkpoint", "a.safetensors", "--out", "x"}, 2, "--compare-checkpoint PATH is required"},
            {{"--checkpoint", "a.safetensors", "--compare-checkpoint", "b.safetensors"}, 2, "--out DIR is required"},
            {{"--checkpoint", "a.safetensors", "--compare-checkpoint", "missing.safetensors", "--out", "x"}, 2,
             "--compare-checkpoint 'missing.safetensors'"},
            {{"--checkpoint", "a.safetensors", "--compare-checkpoint", "wide.safetensors", "--prompt", "the cat", "--out", "x"},
             1, "A has 1 layers x 2 heads, B 1 x 4"},
            {{"--checkpoint", "a.safetensors", "--compare-checkpoint", "b.safetensors", "--prompt", "the zebra", "--out", "x"},
             1, "--prompt 'the zebra'"},
            {{"--checkpoint", "a.safetensors", "--compare-checkpoint", "b.safetensors", "--prompt", "", "--out", "x"}, 2,
             "--prompt is empty"},
            {{"--checkpoint", "a.loss.csv", "--compare-checkpoint", "b.safetensors", "--out", "x"}, 1, "a.loss.csv"},
        };
        for (const Case& k : cases) {
            std::vector<std::string> args{"compare"};
            args.insert(args.end(), k.args.begin(), k.args.end());
            const ProgramRun r = tinygpt(args, dir);
            INFO(r.output);
            CHECK(r.exit_code == k.status);
            CHECK_THAT(r.output, Contains(k.says));
            CHECK_FALSE(fs::exists(dir + "/x"));
        }
    }
}

TEST_CASE("every evaluation records each head's attention entropy in the checkpoint; show draws it",
          "[tools][tinygpt][cli][compare][entropy]") {
    const std::string dir = scratch("entropy");
    require_ok(tinygpt(tiny("e.safetensors"), dir));
    const SafetensorsFile f = load_safetensors(dir + "/e.safetensors");
    const Tensor* curve = nullptr;
    for (const auto& t : f.tensors)
        if (t.name == "train.entropy_curve") curve = &t.tensor;
    REQUIRE(curve != nullptr);
    REQUIRE(curve->shape() == Shape{3, 3});  // step 0 and the evaluations at 2 and 4; 1 layer x 2 heads
    const std::vector<double> v = curve->to_vector<double>();
    CHECK(v[0] == 0);
    CHECK(v[3] == 2);
    CHECK(v[6] == 4);
    for (int r = 0; r < 3; ++r)
        for (int h = 1; h < 3; ++h) {
            CHECK(v[r * 3 + h] > 0);
            CHECK(v[r * 3 + h] <= std::log(8.0) + 1e-9);  // at most uniform over the 8 keys of a row
        }
    const ProgramRun shown = tinygpt({"show", "--checkpoint", "e.safetensors", "--prompt", "the cat", "--out", "s"}, dir);
    require_ok(shown);
    CHECK_THAT(shown.output, Contains("entropy_over_training.svg"));
    CHECK_THAT(read_file(dir + "/s/entropy_over_training.svg"), Contains("layer 1, head 2"));

    SECTION("a resumed run keeps the stored rows and adds its own") {
        require_ok(tinygpt({"train", "--resume", "e.safetensors", "--steps", "6"}, dir));
        for (const auto& t : load_safetensors(dir + "/e.safetensors").tensors)
            if (t.name == "train.entropy_curve") {
                REQUIRE(t.tensor.shape() == Shape{4, 3});
                const std::vector<double> w = t.tensor.to_vector<double>();
                CHECK(std::vector<double>(w.begin(), w.begin() + 9) == v);  // steps 0, 2, 4 as stored, bit for bit
                CHECK(w[9] == 6);
            }
    }
    SECTION("a damaged entropy_curve stops --resume, naming it") {
        SafetensorsFile bad = load_safetensors(dir + "/e.safetensors");
        for (auto& t : bad.tensors)
            if (t.name == "train.entropy_curve") t.tensor = zeros({3, 5}, kFloat64);
        save_safetensors(dir + "/bad.safetensors", bad.tensors, bad.metadata);
        const ProgramRun r = tinygpt({"train", "--resume", "bad.safetensors", "--steps", "6"}, dir);
        INFO(r.output);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("entropy_curve is float64 [3, 5], expected float64 [rows, 3]"));
    }
}
