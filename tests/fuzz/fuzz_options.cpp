// fuzz_options.cpp — app/options.cpp, the one command-line parser, on hostile command lines.
// The input is argv: its bytes split at NUL into at most 24 arguments (argv[0] is fixed),
// parsed against the flags of a typical program (values, a switch, lists). The parser ends a
// bad command line by exit(2) and --help by exit(0); here it throws OptionsExit instead
// (throw_instead_of_exit), so one process can take thousands of command lines.
// Checks, for a command line that parses:
//   each flag has the value a plain walk over argv gives it (the reference below);
//   the canonical spelling (--name=value, bare switches) parses to the same flags and values;
//   each getter returns what it promises (integer in [min, max], a finite real in range,
//   list items in range and not empty) or ends with status 2 — never another exception.
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <map>

#include "app/options.hpp"
#include "tensor/reference.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;

namespace {

lab::Options declare() {
    lab::Options o("fuzz", "a program with every kind of flag");
    o.add("steps", "N", "10", "an integer");
    o.add("lr", "X", "0.01", "a real");
    o.add("d-k", "LIST", "8,32", "an integer list");
    o.add("heads", "LIST", "a,b", "a word list");
    o.add("mode", "M", "fast", "a choice");
    o.add("seed", "S", "0", "a seed");
    o.add("out", "PATH", "", "a path");
    o.add_switch("verbose", "a switch");
    return o;
}

// Every flag the parser knows: the ones declared above and --reference, the switch every
// program takes (app/options.cpp).
const char* const kFlags[] = {"steps", "lr", "d-k", "heads", "mode", "seed", "out", "verbose", "reference"};

bool is_switch(const std::string& name) { return name == "verbose" || name == "reference"; }

// The parser's messages go to /dev/null while it runs (thousands of command lines a second);
// a finding restores stdout and stderr before it is reported.
FILE* const real_stdout = stdout;
FILE* const real_stderr = stderr;

[[noreturn]] void fail(const std::string& what) {
    stdout = real_stdout, stderr = real_stderr;
    fuzz::fail("fuzz_options", what);
}

// The reference: what each flag should hold after a command line that parses, by a plain
// walk (--name=value, --name value, or a bare switch, each given once).
std::map<std::string, std::string> expected_values(const std::vector<std::string>& args) {
    std::map<std::string, std::string> values;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string name = args[i].substr(2, args[i].find('=') == std::string::npos ? std::string::npos : args[i].find('=') - 2);
        if (is_switch(name)) values[name] = "";
        else if (args[i].find('=') != std::string::npos) values[name] = args[i].substr(args[i].find('=') + 1);
        else values[name] = args[++i];
    }
    return values;
}

// Runs f; true if it ended the program with `status`, false if it returned. Anything else
// (another status, another exception) is a finding.
template <class F>
bool ends(F&& f, const char* what) {
    try {
        f();
        return false;
    } catch (const lab::OptionsExit& e) {
        if (e.status != 2) fail(std::string(what) + " exited with status " + std::to_string(e.status));
        return true;
    }
}

void check_getters(const lab::Options& o) {
    ends([&] {
        const std::int64_t v = o.integer("steps", -5, 1000);
        if (v < -5 || v > 1000) fail("integer outside its range");
    }, "integer");
    ends([&] {
        const double v = o.real("lr", 0, 10);
        if (!std::isfinite(v) || v < 0 || v > 10) fail("real outside its range");
    }, "real");
    ends([&] {
        for (std::int64_t v : o.int_list("d-k", 1, 4096))
            if (v < 1 || v > 4096) fail("list item outside its range");
    }, "int_list");
    ends([&] {
        for (const std::string& w : o.word_list("heads"))
            if (w.empty()) fail("an empty word in a word list");
    }, "word_list");
    ends([&] {
        const std::string m = o.choice("mode", {"fast", "slow"});
        if (m != "fast" && m != "slow") fail("choice outside its choices");
    }, "choice");
    ends([&] { o.seed(); }, "seed");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static FILE* const sink = [] {
        lab::throw_instead_of_exit(true);
        return std::fopen("/dev/null", "w");
    }();
    stdout = stderr = sink;
    struct Restore {
        ~Restore() { stdout = real_stdout, stderr = real_stderr; }
    } restore;
    std::vector<std::string> args{"fuzz"};
    std::string cur;
    for (std::size_t i = 0; i < size && args.size() < 24; ++i) {
        if (data[i] == 0) args.push_back(cur), cur.clear();
        else cur += static_cast<char>(data[i]);
    }
    if (args.size() < 24 && (!cur.empty() || size == 0)) args.push_back(cur);
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());

    lab::Options o = declare();
    try {
        o.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const lab::OptionsExit& e) {
        if (e.status != 0 && e.status != 2) fail("parse exited with status " + std::to_string(e.status));
        return 0;
    }
    // The canonical spelling of what was parsed.
    std::vector<std::string> canonical{"fuzz"};
    for (const char* name : kFlags) {
        if (!o.given(name)) continue;
        canonical.push_back(std::string("--") + name + (is_switch(name) ? "" : "=" + o.text(name)));
    }
    std::vector<const char*> argv2;
    for (const std::string& a : canonical) argv2.push_back(a.c_str());
    lab::Options again = declare();
    if (ends([&] { again.parse(static_cast<int>(argv2.size()), argv2.data()); }, "parse of the canonical spelling"))
        fail("the canonical spelling of a parsed command line is refused");
    for (const char* name : kFlags)
        if (o.given(name) != again.given(name) || o.text(name) != again.text(name))
            fail(std::string("--") + name + " differs after the canonical spelling");
    if (o.on("verbose") != again.on("verbose")) fail("--verbose differs");
    // --reference switches the process into reference mode; the next command line starts clean.
    set_reference_mode(false);
    const std::map<std::string, std::string> expected = expected_values(args);
    for (const char* name : kFlags) {
        const auto it = expected.find(name);
        if (o.given(name) != (it != expected.end())) fail(std::string("--") + name + ": given differs from the reference walk");
        if (it != expected.end() && o.text(name) != it->second) fail(std::string("--") + name + ": value differs from the reference walk");
    }
    check_getters(o);
    return 0;
}
