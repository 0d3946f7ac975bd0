// options.cpp — see options.hpp.
#include "app/options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

#include "tensor/reference.hpp"
#include "tensor/thread_count.hpp"
#include "training/run_config.hpp"

namespace attnlab::lab {

namespace {
bool throw_on_exit = false;

// Every way out of the parser: exit(status), or OptionsExit for a harness (options.hpp).
[[noreturn]] void leave(int status) {
    if (throw_on_exit) throw OptionsExit{status};
    std::exit(status);
}
}  // namespace

void throw_instead_of_exit(bool on) { throw_on_exit = on; }

// Every program takes --reference: it runs the reading path's readable code (tensor/reference.hpp).
Options::Options(std::string program, std::string summary) : program_(std::move(program)), summary_(std::move(summary)) {
    add_switch("reference", "run the readable reference code: composed attention, plain matmul, one thread");
}

void Options::add(const std::string& name, const std::string& value_name, const std::string& default_value,
                  const std::string& help) {
    flags_.push_back({name, value_name, default_value, help});
}

void Options::add_path(const std::string& name, const std::string& value_name, const std::string& default_value,
                       const std::string& help) {
    add(name, value_name, default_value, help);
    flags_.back().is_path = true;
}

void Options::add_folder(const std::string& name, const std::string& default_value, const std::string& help) {
    add_path(name, "DIR", default_value, help);
    flags_.back().is_folder = true;
}

void Options::add_switch(const std::string& name, const std::string& help) {
    flags_.push_back({name, "", "", help, false, true});
}

Options::Flag* Options::find(const std::string& name) {
    for (Flag& f : flags_)
        if (f.name == name) return &f;
    return nullptr;
}

const Options::Flag& Options::flag(const std::string& name) const {
    for (const Flag& f : flags_)
        if (f.name == name) return f;
    std::fprintf(stderr, "%s: internal error: no flag --%s declared\n", program_.c_str(), name.c_str());
    leave(2);
}

// Every program's --help ends with the one setting that is not a flag: the thread count,
// with default_thread_count's rule (tensor/thread_count.hpp).
static const std::string kThreadsHelp =
    "\nenvironment:\n"
    "  ATTNLAB_NUM_THREADS=N   threads of the parallel kernels (default: one per physical core\n"
    "                          this process may use, at most " + std::to_string(kDefaultThreadCap) + ")\n";

std::string Options::help() const {
    std::string s = "usage: " + program_ + " [--flag VALUE ...]\n" + summary_ + "\n\nflags:\n";
    for (const Flag& f : flags_) {
        std::string left = "  --" + f.name + (f.is_switch ? "" : " " + f.value_name);
        left.resize(std::max<std::size_t>(left.size() + 2, 26), ' ');
        s += left + f.help + (f.value.empty() ? "" : " (default: " + f.value + ")") + "\n";
    }
    return s + "  --help                  this text\n" + kThreadsHelp;
}

void Options::fail(const std::string& name, const std::string& why) const {
    const Flag* f = nullptr;
    for (const Flag& g : flags_)
        if (g.name == name) f = &g;
    std::fprintf(stderr, "%s: --%s '%s': %s\n(%s --help lists the flags)\n", program_.c_str(), name.c_str(),
                 f ? f->value.c_str() : "", why.c_str(), program_.c_str());
    leave(2);
}

void Options::usage_error(const std::string& what) const {
    std::fprintf(stderr, "%s: %s\n(%s --help lists the flags)\n", program_.c_str(), what.c_str(), program_.c_str());
    leave(2);
}

void Options::parse(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(help().c_str(), stdout);
            leave(0);
        }
        if (!arg.starts_with("--")) {
            const Flag* before = i > 1 ? find(std::string(argv[i - 1]).substr(std::string(argv[i - 1]).starts_with("--") ? 2 : 0)) : nullptr;
            if (before && before->is_switch)
                usage_error("unexpected argument '" + arg + "': --" + before->name + " is a switch and takes no value");
            usage_error("unexpected argument '" + arg + "' (every setting is a --flag VALUE)");
        }
        std::string name = arg.substr(2), value;
        const std::size_t eq = name.find('=');
        Flag* f = find(eq == std::string::npos ? name : name.substr(0, eq));
        if (!f) usage_error("unknown flag '" + arg + "'");
        if (f->is_switch) {
            if (eq != std::string::npos) usage_error("--" + f->name + " is a switch and takes no value (got '" + arg + "')");
            if (f->given) usage_error("--" + f->name + " is given twice");
            f->given = true;
            continue;
        }
        if (eq != std::string::npos) {
            value = name.substr(eq + 1);
        } else {
            if (i + 1 >= argc) usage_error("--" + f->name + " needs a value (" + f->value_name + ")");
            value = argv[++i];
        }
        if (f->given) usage_error("--" + f->name + " is given twice");
        f->value = value, f->given = true;
        if (f->is_path && value.empty()) fail(f->name, "an empty path names no file or folder");
    }
    for (const Flag& f : flags_) {
        struct stat st {};
        if (f.is_folder && ::stat(f.value.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
            fail(f.name, "exists and is not a folder; it is left alone (give a new or existing folder)");
    }
    if (on("reference")) set_reference_mode(true);
}

bool Options::given(const std::string& name) const { return flag(name).given; }
bool Options::on(const std::string& name) const {
    const Flag& f = flag(name);
    if (!f.is_switch) {
        std::fprintf(stderr, "%s: internal error: --%s is not a switch\n", program_.c_str(), name.c_str());
        leave(2);
    }
    return f.given;
}
std::string Options::text(const std::string& name) const { return flag(name).value; }

namespace {
bool parse_int(const std::string& s, std::int64_t& out) {
    const char* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, out);
    return !s.empty() && ec == std::errc() && p == end;
}
std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = s.find(',', start);
        items.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) return items;
        start = comma + 1;
    }
}
}  // namespace

std::int64_t Options::integer(const std::string& name, std::int64_t min, std::int64_t max) const {
    std::int64_t v = 0;
    if (!parse_int(text(name), v)) fail(name, "not a whole number");
    if (v < min || v > max) fail(name, "must be between " + std::to_string(min) + " and " + std::to_string(max));
    return v;
}

std::uint64_t Options::seed(const std::string& name) const {
    return static_cast<std::uint64_t>(integer(name, 0, INT64_MAX));
}

double Options::real(const std::string& name, double min, double max) const {
    const std::optional<double> v = parse_real(text(name));
    if (!v) fail(name, "not a finite number");
    if (*v < min || *v > max) fail(name, "must be between " + format_real(min) + " and " + format_real(max));
    return *v;
}

std::vector<std::int64_t> Options::int_list(const std::string& name, std::int64_t min, std::int64_t max) const {
    std::vector<std::int64_t> out;
    for (const std::string& item : split(text(name))) {
        std::int64_t v = 0;
        if (!parse_int(item, v)) fail(name, "'" + item + "' is not a whole number (a list is written 1,2,4)");
        if (v < min || v > max)
            fail(name, "'" + item + "' must be between " + std::to_string(min) + " and " + std::to_string(max));
        out.push_back(v);
    }
    return out;
}

std::vector<std::string> Options::word_list(const std::string& name) const {
    std::vector<std::string> out = split(text(name));
    for (const std::string& item : out)
        if (item.empty()) fail(name, "an empty item (a list is written a,b,c)");
    return out;
}

std::string Options::choice(const std::string& name, const std::vector<std::string>& choices) const {
    const std::string v = text(name);
    if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
    std::string list;
    for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
    fail(name, "must be one of " + list);
}

std::string subcommand(int argc, const char* const* argv, const std::string& program, const std::string& summary,
                       const std::vector<Command>& commands) {
    std::string usage = "usage: " + program + " <command> [--flag VALUE ...]   (" + program + " <command> --help: its flags)\n" +
                        summary + "\n\ncommands:\n";
    for (const Command& c : commands) {
        std::string left = "  " + c.name;
        left.resize(std::max<std::size_t>(left.size() + 2, 12), ' ');
        usage += left + c.summary + "\n";
    }
    usage += kThreadsHelp;
    const std::string arg = argc > 1 ? argv[1] : "";
    if (arg == "--help" || arg == "-h") std::fputs(usage.c_str(), stdout), leave(0);
    for (const Command& c : commands)
        if (c.name == arg) return arg;
    std::fprintf(stderr, "%s: %s\n%s", program.c_str(),
                 arg.empty() ? "which command?" : ("unknown command '" + arg + "'").c_str(), usage.c_str());
    leave(2);
}

}  // namespace attnlab::lab
