// test_options.cpp — switches read back.
// The parser's errors exit the program, so they are tested through the programs that use
// it, spawned as processes (tests/phases/test_phase_cli.cpp, tests/tools/test_tinygpt_cli.cpp).
#include <catch2/catch.hpp>

#include "app/options.hpp"
#include "tests/support/reference_mode.hpp"

using namespace attnlab;

namespace {
lab::Options switches() {
    lab::Options o("prog", "a program with a switch");
    o.add("steps", "N", "10", "steps");
    o.add_switch("unscaled", "scores without 1/sqrt(d_k)");
    o.add_switch("no-kv-cache", "recompute the prefix");
    return o;
}
void parse(lab::Options& o, std::vector<const char*> args) {
    args.insert(args.begin(), "prog");
    o.parse(static_cast<int>(args.size()), args.data());
}
}  // namespace

TEST_CASE("a switch is on only when given, and leaves the flags around it alone", "[lab][options]") {
    lab::Options o = switches();
    parse(o, {"--unscaled", "--steps", "5"});
    CHECK(o.on("unscaled"));
    CHECK_FALSE(o.on("no-kv-cache"));
    CHECK(o.given("unscaled"));
    CHECK(o.integer("steps", 1, 100) == 5);

    lab::Options p = switches();
    parse(p, {"--steps=7", "--no-kv-cache"});
    CHECK_FALSE(p.on("unscaled"));
    CHECK(p.on("no-kv-cache"));
    CHECK(p.integer("steps", 1, 100) == 7);

    lab::Options q = switches();
    parse(q, {});
    CHECK_FALSE(q.on("unscaled"));
    CHECK(q.text("steps") == "10");
}

TEST_CASE("--help shows a switch bare and a flag with its value", "[lab][options]") {
    const std::string help = switches().help();
    CHECK_THAT(help, Catch::Contains("  --unscaled              scores without 1/sqrt(d_k)\n"));
    CHECK_THAT(help, Catch::Contains("  --steps N               steps (default: 10)\n"));
    CHECK(help.find("--unscaled N") == std::string::npos);
}

TEST_CASE("every program takes --reference, which turns reference mode on", "[lab][options][reference]") {
    attnlab::testing::ReferenceMode restore(false);
    lab::Options o = switches();
    CHECK_THAT(o.help(), Catch::Contains("--reference") && Catch::Contains("readable reference code"));
    parse(o, {"--steps", "5"});
    CHECK_FALSE(reference_mode());
    lab::Options p = switches();
    parse(p, {"--reference", "--steps", "5"});
    CHECK(p.on("reference"));
    CHECK(reference_mode());
}

TEST_CASE("Options: a harness gets OptionsExit with exit's status instead of the exit", "[app][options]") {
    lab::throw_instead_of_exit(true);
    const auto status = [](std::vector<const char*> argv) {
        lab::Options o("prog", "a program");
        o.add("steps", "N", "10", "steps");
        argv.insert(argv.begin(), "prog");
        try {
            o.parse(static_cast<int>(argv.size()), argv.data());
            o.integer("steps", 1, 100);
        } catch (const lab::OptionsExit& e) {
            return e.status;
        }
        return -1;  // returned normally
    };
    CHECK(status({"--bogus"}) == 2);
    CHECK(status({"--help"}) == 0);
    CHECK(status({"--steps", "1000"}) == 2);  // a getter's check
    CHECK(status({"--steps", "5"}) == -1);
    lab::throw_instead_of_exit(false);
}

TEST_CASE("--help says how to set the thread count, and its default", "[lab][options][threads]") {
    CHECK_THAT(switches().help(), Catch::Contains("ATTNLAB_NUM_THREADS=N") && Catch::Contains("one per physical core") &&
                                      Catch::Contains("at most 8"));
}
