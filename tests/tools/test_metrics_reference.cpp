// test_metrics_reference.cpp — build/metrics_reference as `make check-metrics` runs it: each
// case writes a small out/ tree (five metrics.json files made here, not by the phases), records
// or checks it as a process, and reads the exit status (0 match, 1 mismatch or unreadable file,
// 2 bad use) and what it printed. The trees live in build/test_tmp/metrics_reference/.
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/json.hpp"
#include "tests/support/run_program.hpp"

using namespace attnlab;
using attnlab::testing::run_program;
using Catch::Contains;

namespace {

namespace fs = std::filesystem;

std::string dir() { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/metrics_reference"; }
std::string out_dir() { return dir() + "/out"; }
std::string reference() { return dir() + "/reference.json"; }

testing::ProgramRun metrics_reference(std::vector<std::string> args) {
    args.insert(args.begin(), testing::program_path("metrics_reference"));
    return run_program(args, 30);
}

// Phase n's metrics: a scalar, a nested section, a list of scalars (one recorded value), a
// list of objects (one value per element), and a timing of each kind the rule leaves out.
Json phase_metrics(int n) {
    Json m = Json::object();
    m["seed"] = n;
    m["loss"] = 0.1 * n;
    m["mask"] = "causal";
    m["output"] = Json::Array{Json(0.5), Json(-1.25), Json(3)};
    m["heads"] = Json::Array{Json::object(), Json::object()};
    m["heads"].as_array()[0]["entropy"] = 0.75;
    m["heads"].as_array()[1]["entropy"] = 1.5;
    m["params"] = 1234;  // "ms" inside a word is not milliseconds
    m["train_seconds"] = 12.5;
    m["ms_per_step"] = 3.0;
    m["step_ms"] = 4.0;
    m["flash"]["speedup"] = 2.0;
    m["kv_cache"]["measured speed-up (this machine)"] = 8.0;
    m["flash"]["time_exponent"] = 1.9;  // a slope fitted to measured times
    m["flash"]["lifetimes"] = 7;        // "time" inside a word is not a timing
    if (n == 5) m["attention_cost"]["exponent"] = 1.98;
    return m;
}

// A fresh out/ tree with phase1..6, and no reference yet.
void make_tree() {
    fs::remove_all(dir());
    for (int n = 1; n <= 6; ++n) save_json(out_dir() + "/phase" + std::to_string(n) + "/metrics.json", phase_metrics(n));
}

void edit_phase(int n, const std::function<void(Json&)>& edit) {
    const std::string path = out_dir() + "/phase" + std::to_string(n) + "/metrics.json";
    Json m = load_json(path);
    edit(m);
    save_json(path, m);
}

void record() {
    const testing::ProgramRun run = metrics_reference({"write", out_dir(), reference()});
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
}

}  // namespace

TEST_CASE("metrics_reference write records every non-timing leaf under its path", "[tools][metrics_reference]") {
    make_tree();
    record();
    const Json r = load_json(reference());
    // Per phase: seed, loss, mask, output, heads/0/entropy, heads/1/entropy, params.
    CHECK(r.size() == 6 * 8);
    CHECK(r.at("phase2/loss") == Json(0.2));
    CHECK(r.at("phase3/heads/1/entropy") == Json(1.5));
    CHECK(r.at("phase1/output") == Json(Json::Array{Json(0.5), Json(-1.25), Json(3)}));
    CHECK(r.at("phase4/params") == Json(1234));
    CHECK(r.at("phase4/flash/lifetimes") == Json(7));
    for (const auto& [key, value] : r.as_object()) {
        INFO(key);
        CHECK(key.find("seconds") == std::string::npos);
        CHECK(key.find("_ms") == std::string::npos);
        CHECK(key.find("ms_") == std::string::npos);
        CHECK(key.find("speedup") == std::string::npos);
        CHECK(key.find("speed-up") == std::string::npos);
        CHECK(key.find("time_exponent") == std::string::npos);
        CHECK(key.find("attention_cost") == std::string::npos);
    }
}

TEST_CASE("metrics_reference check passes an identical run and ignores timings", "[tools][metrics_reference]") {
    make_tree();
    record();
    SECTION("identical") {
        const testing::ProgramRun run = metrics_reference({"check", out_dir(), reference()});
        INFO(run.output);
        CHECK(run.exit_code == 0);
        CHECK_THAT(run.output, Contains("metrics-reference: 48 passed, 0 failed"));
    }
    SECTION("every timing changed") {
        for (int n = 1; n <= 6; ++n)
            edit_phase(n, [n](Json& m) {
                m["train_seconds"] = 99.0;
                m["ms_per_step"] = 99.0;
                m["step_ms"] = 99.0;
                m["flash"]["speedup"] = 99.0;
                m["kv_cache"]["measured speed-up (this machine)"] = 99.0;
                m["flash"]["time_exponent"] = 9.9;
                if (n == 5) m["attention_cost"]["exponent"] = 2.5;
            });
        const testing::ProgramRun run = metrics_reference({"check", out_dir(), reference()});
        INFO(run.output);
        CHECK(run.exit_code == 0);
        CHECK_THAT(run.output, Contains("metrics-reference: 48 passed, 0 failed"));
    }
    SECTION("a new value is named but does not fail") {
        edit_phase(3, [](Json& m) { m["new_metric"] = 7; });
        const testing::ProgramRun run = metrics_reference({"check", out_dir(), reference()});
        INFO(run.output);
        CHECK(run.exit_code == 0);
        CHECK_THAT(run.output, Contains("48 passed, 0 failed (1 new values not in the reference, e.g. phase3/new_metric)"));
    }
}

TEST_CASE("metrics_reference check fails on a changed or missing value, naming it", "[tools][metrics_reference]") {
    make_tree();
    record();
    SECTION("one number changed in the last bit's neighbourhood") {
        edit_phase(2, [](Json& m) { m["heads"].as_array()[1]["entropy"] = 1.5000000000000002; });
        const testing::ProgramRun run = metrics_reference({"check", out_dir(), reference()});
        INFO(run.output);
        CHECK(run.exit_code == 1);
        CHECK_THAT(run.output, Contains("phase2/heads/1/entropy: reference 1.5, this run 1.5000000000000002"));
        CHECK_THAT(run.output, Contains("metrics-reference: 47 passed, 1 failed"));
    }
    SECTION("one element of a list changed") {
        edit_phase(1, [](Json& m) { m["output"].as_array()[2] = 3.5; });
        const testing::ProgramRun run = metrics_reference({"check", out_dir(), reference()});
        INFO(run.output);
        CHECK(run.exit_code == 1);
        CHECK_THAT(run.output, Contains("phase1/output: reference [0.5,-1.25,3], this run [0.5,-1.25,3.5]"));
    }
    SECTION("a string changed") {
        edit_phase(4, [](Json& m) { m["mask"] = "none"; });
        const testing::ProgramRun run = metrics_reference({"check", out_dir(), reference()});
        INFO(run.output);
        CHECK(run.exit_code == 1);
        CHECK_THAT(run.output, Contains("phase4/mask: reference \"causal\", this run \"none\""));
    }
    SECTION("a key missing") {
        edit_phase(5, [](Json& m) {
            Json::Object& o = m.as_object();
            std::erase_if(o, [](const auto& kv) { return kv.first == "seed"; });
        });
        const testing::ProgramRun run = metrics_reference({"check", out_dir(), reference()});
        INFO(run.output);
        CHECK(run.exit_code == 1);
        CHECK_THAT(run.output, Contains("phase5/seed: reference 5, this run <missing>"));
        CHECK_THAT(run.output, Contains("metrics-reference: 47 passed, 1 failed"));
    }
}

TEST_CASE("metrics_reference reports unreadable files and bad use", "[tools][metrics_reference]") {
    make_tree();
    SECTION("a phase's metrics.json missing: exit 1 naming the file, the reference untouched") {
        fs::remove(out_dir() + "/phase3/metrics.json");
        const testing::ProgramRun run = metrics_reference({"write", out_dir(), reference()});
        CHECK(run.exit_code == 1);
        CHECK_THAT(run.output, Contains("phase3/metrics.json"));
        CHECK_FALSE(fs::exists(reference()));
    }
    SECTION("a reference that is not an object") {
        save_json(reference(), Json::Array{Json(1)});
        const testing::ProgramRun run = metrics_reference({"check", out_dir(), reference()});
        CHECK(run.exit_code == 1);
        CHECK_THAT(run.output, Contains("must hold one JSON object (got array)"));
    }
    SECTION("bad use: exit 2 with the usage") {
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {}, {"compare"}, {"check", "a", "b", "c"}, {"check", "--out", "x"}}) {
            const testing::ProgramRun run = metrics_reference(args);
            INFO(run.output);
            CHECK(run.exit_code == 2);
            CHECK_THAT(run.output, Contains("usage: metrics_reference write"));
        }
        CHECK_THAT(metrics_reference({"compare"}).output, Contains("unknown command 'compare'"));
        CHECK_THAT(metrics_reference({"check", "--out"}).output, Contains("unknown flag '--out'"));
    }
    SECTION("--help: exit 0") {
        const testing::ProgramRun run = metrics_reference({"check", "--help"});
        CHECK(run.exit_code == 0);
        CHECK_THAT(run.output, Contains("Exit status: 0"));
    }
}
