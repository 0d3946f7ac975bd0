// test_every_program.cpp — every program the Makefile builds (one per .cpp in phases/,
// bench/ and tools/) answers --help with its usage and exit status 0, and refuses an
// unknown flag with exit status 2 and a message naming it; so does every subcommand.
// A new program is checked as soon as its source exists: the list is read from the tree.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "tests/support/run_program.hpp"

using attnlab::testing::program_path;
using attnlab::testing::run_program;
using Catch::Contains;
using Catch::EndsWith;

namespace {

namespace fs = std::filesystem;

// The programs, named as the Makefile names them: each source's file name without .cpp.
std::vector<std::string> programs() {
    std::vector<std::string> names;
    for (const char* folder : {"phases", "bench", "tools"})
        for (const auto& e : fs::directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / folder))
            if (e.path().extension() == ".cpp") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Programs of subcommands: each command has its own flags, so its own --help.
const std::map<std::string, std::vector<std::string>> kCommands{
    {"tinygpt", {"train", "generate", "eval", "show", "patch", "lens", "induction", "vocab", "compare", "heads"}},
    {"seq2seq", {"train", "eval", "show"}},
};

void check(std::vector<std::string> args) {
    const std::string shown = [&] {
        std::string s;
        for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
        return s;
    }();
    args.insert(args.begin(), program_path(args.front()));
    args.erase(args.begin() + 1);
    std::vector<std::string> help = args, bad = args;
    help.push_back("--help");
    bad.insert(bad.end(), {"--no-such-flag", "1"});
    const auto h = run_program(help, 30), b = run_program(bad, 30);
    INFO(shown << " --help:\n" << h.output << "\n" << shown << " --no-such-flag 1:\n" << b.output);
    CHECK(h.exit_code == 0);
    CHECK_THAT(h.output, Contains("usage:"));
    CHECK(b.exit_code == 2);
    CHECK_THAT(b.output, Contains("--no-such-flag"));
}

// A script of bench/ answers --help (exit 0, printing `usage`), and refuses each bad command
// line with exit status 2 and its message, before it builds, clones or runs anything.
using BadInput = std::vector<std::pair<std::vector<std::string>, std::string>>;
void check_script(const std::string& script_name, const std::string& usage, const BadInput& bad) {
    const std::string script = std::string(ATTNLAB_SOURCE_DIR) + "/" + script_name;
    const auto help = run_program({"/bin/bash", script, "--help"}, 60);
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.output, Contains(usage));
    for (const auto& [args, message] : bad) {
        std::vector<std::string> command{"/bin/bash", script};
        command.insert(command.end(), args.begin(), args.end());
        const auto r = run_program(command, 60);
        INFO(r.output);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.output, Contains(message));
    }
}

}  // namespace

TEST_CASE("every program and subcommand answers --help and refuses an unknown flag", "[tools][cli][help]") {
    const std::vector<std::string> names = programs();
    REQUIRE(names.size() >= 13);  // 5 phases, 3 benchmarks, 5 tools at least
    for (const std::string& name : names) {
        REQUIRE(fs::exists(program_path(name)));
        check({name});
        if (auto it = kCommands.find(name); it != kCommands.end())
            for (const std::string& command : it->second) check({name, command});
    }
}

// bench/build_time.sh, a script: clean-clone builds of several commits, timed side by side.
// A real run takes minutes (docs/performance.md quotes one); here, what it says to bad input before any clone.
TEST_CASE("bench/build_time.sh answers --help and refuses bad input with exit status 2", "[tools][cli][help][bench]") {
    check_script("bench/build_time.sh", "usage: bench/build_time.sh",
                 {
                     {{}, "usage:"},
                     {{"--fast", "HEAD"}, "unknown flag '--fast'"},
                     {{"--rounds", "0", "HEAD"}, "--rounds '0': must be a whole number >= 1"},
                     {{"--target", "clean", "HEAD"}, "--target 'clean': must be all, build or test"},
                     {{"--touch", "no/such.cpp", "HEAD"}, "--touch 'no/such.cpp': no such file here"},
                     {{"no-such-commit"}, "'no-such-commit' is not a commit here"},
                     {{"HEAD:UNITY_BATCH"}, "'HEAD:UNITY_BATCH': after ':' comes one VAR=VALUE"},
                 });
}

// bench/object_times.sh, a script: one clean-clone build with every object timed.
// A real run takes minutes (docs/performance.md quotes one); here, what it says to bad input before any clone.
TEST_CASE("bench/object_times.sh answers --help and refuses bad input with exit status 2", "[tools][cli][help][bench]") {
    check_script("bench/object_times.sh", "usage: bench/object_times.sh",
                 {
                     {{"--fast"}, "unknown flag '--fast'"},
                     {{"--top", "0"}, "--top '0': must be a whole number >= 1"},
                     {{"--top"}, "usage:"},
                     {{"no-such-commit"}, "'no-such-commit' is not a commit here"},
                 });
}

// bench/phase_times.sh, a script: every phase program run and timed, for builds side by side.
// A real run takes a minute a round (docs/performance.md quotes one); here, what it says to bad input.
TEST_CASE("bench/phase_times.sh answers --help and refuses bad input with exit status 2", "[tools][cli][help][bench]") {
    check_script("bench/phase_times.sh", "usage: bench/phase_times.sh",
                 {
                     {{"--fast"}, "unknown flag '--fast'"},
                     {{"--rounds", "0"}, "--rounds '0': must be a whole number >= 1"},
                     {{"--rounds"}, "usage:"},
                     {{"/no/such/build"}, "'/no/such/build/phase1_single_head' is missing: build it first"},
                 });
}

// bench/ab.sh, a script: `ab.sh OLD NEW` times two builds of bench_workloads side by side.
TEST_CASE("bench/ab.sh answers --help, refuses bad input, and sets a binary beside itself", "[tools][cli][help][bench]") {
    const std::string script = std::string(ATTNLAB_SOURCE_DIR) + "/bench/ab.sh", bin = program_path("bench_workloads");
    const auto ab = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"/bin/sh", script});
        return run_program(args, 120);
    };
    const auto help = ab({"--help"});
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.output, Contains("bench/ab.sh OLD NEW"));
    const auto one = ab({bin});
    CHECK(one.exit_code == 2);
    CHECK_THAT(one.output, Contains("give two bench_workloads binaries"));
    const auto missing = ab({bin, "/nonexistent/bench"});
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.output, Contains("'/nonexistent/bench' is not an executable file"));
    const auto rounds = ab({bin, bin, "--rounds", "0"});
    CHECK(rounds.exit_code == 2);
    CHECK_THAT(rounds.output, Contains("--rounds must be a positive integer, got '0'"));
    const auto flag = ab({bin, bin, "--fast"});
    CHECK(flag.exit_code == 2);
    CHECK_THAT(flag.output, Contains("unknown flag '--fast'"));
    // One round of W1 at 1 and 2 threads: one row per thread count, with a ratio.
    const auto same = ab({bin, bin, "--rounds", "1", "--threads", "1 2", "--only", "toy_mha_fwd_bwd$"});
    INFO(same.output);
    REQUIRE(same.exit_code == 0);
    CHECK_THAT(same.output, Contains("| toy_mha_fwd_bwd | 1 | ") && Contains("| toy_mha_fwd_bwd | 2 | "));
    CHECK(std::count(same.output.begin(), same.output.end(), '\n') == 5);  // the title, 2 header lines, 2 rows
    CHECK_THAT(same.output, Contains("x |"));
}

// bench/profile.sh, a script: one workload under perf, its time summed by kind of work.
TEST_CASE("bench/profile.sh answers --help, refuses bad input, and groups a profile", "[tools][cli][help][bench]") {
    const std::string script = std::string(ATTNLAB_SOURCE_DIR) + "/bench/profile.sh", bin = program_path("bench_workloads");
    const auto profile = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"/bin/sh", script});
        return run_program(args, 120);
    };
    const auto help = profile({"--help"});
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.output, Contains("bench/profile.sh [--only REGEX]"));
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
        {{"--fast"}, "unknown flag '--fast'"},
        {{"--threads", "0", "--bin", bin}, "take positive integers, got '0'"},
        {{"--top"}, "--top needs a value"},
        {{"--bin", "/nonexistent/bench"}, "'/nonexistent/bench' is not an executable file"},
    };
    for (const auto& [args, message] : bad) {
        const auto r = profile(args);
        INFO(r.output);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.output, Contains(message));
    }
    // perf is not a dependency (docs/ci.md); where it is installed, GELU's kernel alone is mostly
    // GELU: the largest group of our code, the first line under the title that is not the OS
    // kernel (which leads under AddressSanitizer: its allocator's page faults). Not a function
    // name: clang inlines gelu_float_run into gelu's lambda, GCC does not.
    if (run_program({"/bin/sh", "-c", "command -v perf"}, 10).exit_code != 0) return;
    const auto largest_group = [](const std::string& output, const std::string& title) {
        std::size_t from = output.find(title);
        if (from == std::string::npos) return std::string("(no title '" + title + "')");
        from += title.size();
        std::string largest;  // the groups come largest first
        for (std::size_t end; (end = output.find('\n', from)) != std::string::npos; from = end + 1) {
            largest = output.substr(from, end - from);
            if (largest.find("%  OS kernel") == std::string::npos) break;
        }
        return largest;
    };
    const auto gelu = profile({"--bin", bin, "--only", "kernel_gelu", "--top", "1"});
    INFO(gelu.output);
    REQUIRE(gelu.exit_code == 0);
    CHECK_THAT(largest_group(gelu.output, "% of samples\n"), EndsWith("%  GELU"));
    CHECK_THAT(gelu.output, Contains("hottest functions:"));
    // --stacks: only the samples inside the timed calls, by call stack.
    const auto stacks = profile({"--bin", bin, "--only", "kernel_gelu", "--top", "1", "--stacks"});
    INFO(stacks.output);
    REQUIRE(stacks.exit_code == 0);
    CHECK_THAT(largest_group(stacks.output, "% of them\n"), EndsWith("%  GELU"));
    // The inputs' random numbers are drawn before the timed calls: sampled, and left out.
    CHECK_THAT(stacks.output, Contains("samples inside the timed calls; ") && !Contains("; 0 outside them"));
}

// bench_workloads' single-kernel rows, the ones a learner times after changing one kernel.
TEST_CASE("bench_workloads times a single kernel at W4's shape, and nothing else, with --only", "[tools][cli][bench]") {
    const auto run = run_program({program_path("bench_workloads"), "--only", "kernel_layer_norm"}, 120);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.output, Contains("kernel_layer_norm_16x32x64: ") && Contains("page_faults_per_iter=") && Contains("pool_wakes_per_iter=") &&
                                 Contains("pool_ms_per_iter=") && Contains("pool_wait_ms_per_iter="));
    CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 2);  // the threads line and the one row

    // --only is an extended regular expression (grep -E): alternation and anchors work, and
    // one that does not compile is a bad flag, named, before anything runs.
    const auto two = run_program({program_path("bench_workloads"), "--only", "^kernel_(gelu|layer_norm)_16x32x(256|64)$"}, 120);
    INFO(two.output);
    CHECK(two.exit_code == 0);
    CHECK_THAT(two.output, Contains("kernel_gelu_16x32x256: ") && Contains("kernel_layer_norm_16x32x64: "));
    CHECK(std::count(two.output.begin(), two.output.end(), '\n') == 3);
    const auto bad = run_program({program_path("bench_workloads"), "--only", "kernel_(gelu"}, 30);
    INFO(bad.output);
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.output, Contains("--only 'kernel_(gelu': not a regular expression"));
    CHECK_THAT(bad.output, !Contains("# attnlab"));
}

// bench_sharded_step: the W4 step split over the batch. Its timings are machine-dependent and
// not checked; what is checked is what it promises beside them: the shards, run one after
// another or at once on two threads, train the same bits (exit status 1 otherwise) with the
// built-in gemm; OpenBLAS promises no bits across thread counts, and the program says so.
// 4 shards on 2 threads: two shards per thread, one after the other.
TEST_CASE("bench_sharded_step: shards on one and two threads train the same bits", "[tools][cli][bench]") {
    const auto run = run_program({program_path("bench_sharded_step"), "--rounds", "1", "--shards", "4", "--threads", "2"}, 120);
    INFO(run.output);
    CHECK(run.exit_code == 0);
#ifdef ATTNLAB_OPENBLAS
    CHECK_THAT(run.output, Contains("(OpenBLAS build: the bits are not promised)"));
#else
    CHECK_THAT(run.output, Contains("sharded on 1 and on 2 threads: the same bits"));
#endif
    CHECK_THAT(run.output, Contains("4 shards"));
    const auto bad = run_program({program_path("bench_sharded_step"), "--shards", "17"}, 30);
    INFO(bad.output);
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.output, Contains("--shards") && Contains("must be between 1 and 16"));
}
