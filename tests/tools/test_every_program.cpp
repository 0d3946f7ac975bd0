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
    {"tinygpt", {"train", "generate", "eval", "show"}},
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
