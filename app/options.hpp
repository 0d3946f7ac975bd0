// options.hpp — the command line of every lab program (the five phases): one parser, so a
// flag is spelled the same everywhere, `--help` lists them all, and a bad value stops the
// program with exit status 2 and a message naming the flag and the value.
//
//   lab::Options o("phase1", "single-head scaled dot-product attention");
//   o.add("d-k", "LIST", "8,32,128", "head widths of the sqrt(d_k) experiment");
//   o.parse(argc, argv);                                  // --help: prints, exits 0
//   std::vector<std::int64_t> dks = o.int_list("d-k", 1, 4096);  // "--d-k 8,x": exit 2
//
// Every flag takes a value (`--flag VALUE` or `--flag=VALUE`) except switches, which are
// bare (`--unscaled`; add_switch, read with on()); there are no positional arguments. A flag
// given twice is an error, as is one the program does not declare or a switch given a value.
// Getters check the value when the program asks for it, so every check names its flag.
// A flag that names a file or a folder is declared with add_path: parse() refuses it empty at
// once (`--out ''` would otherwise become "/phase1/..." once a file name is appended), so no
// program forms a path from it. What an output may replace is io/fileio.hpp's check_output.
// To add a flag: declare it with add() before parse(), read it with the getter of its type.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::lab {

class Options {
public:
    Options(std::string program, std::string summary);

    // Declares --name VALUE, with the text --help shows and the value used when it is absent.
    void add(const std::string& name, const std::string& value_name, const std::string& default_value,
             const std::string& help);
    // Declares --name PATH, a file or folder: an empty value is refused by parse() (exit 2).
    void add_path(const std::string& name, const std::string& value_name, const std::string& default_value,
                  const std::string& help);
    // Declares --name DIR, a folder the program writes into: parse() also refuses (exit 2) a
    // value, given or default, that exists and is not a directory, before any work is done.
    void add_folder(const std::string& name, const std::string& default_value, const std::string& help);
    // Declares the bare switch --name: on() is true when it is given.
    void add_switch(const std::string& name, const std::string& help);
    // Reads argv; prints --help and exits 0, or exits 2 on an unknown flag or a missing value.
    void parse(int argc, const char* const* argv);

    bool given(const std::string& name) const;  // on the command line, not the default
    bool on(const std::string& name) const;     // a switch: given
    std::string text(const std::string& name) const;
    std::int64_t integer(const std::string& name, std::int64_t min, std::int64_t max) const;
    std::uint64_t seed(const std::string& name = "seed") const;
    double real(const std::string& name, double min, double max) const;  // finite, in [min, max]
    std::vector<std::int64_t> int_list(const std::string& name, std::int64_t min, std::int64_t max) const;
    std::vector<std::string> word_list(const std::string& name) const;  // comma-separated, no empty items
    // The value, which must be one of `choices`.
    std::string choice(const std::string& name, const std::vector<std::string>& choices) const;

    // Prints "<program>: --name 'value': why" and the usage line to stderr, exits 2.
    [[noreturn]] void fail(const std::string& name, const std::string& why) const;
    // Prints "<program>: what" and the usage line to stderr, exits 2: a mistake in the command
    // line that is not one flag's value (two flags that exclude each other, a missing one).
    [[noreturn]] void usage_error(const std::string& what) const;
    const std::string& program() const { return program_; }
    std::string help() const;

private:
    struct Flag {
        std::string name, value_name, value, help;
        bool given = false;
        bool is_switch = false;
        bool is_path = false;
        bool is_folder = false;
    };
    const Flag& flag(const std::string& name) const;
    Flag* find(const std::string& name);
    std::string program_, summary_;
    std::vector<Flag> flags_;
};

// How the parser ends the program (after --help's text or a message on stderr): exit(status).
// A harness that feeds many command lines to one process (tests/fuzz/fuzz_options.cpp) calls
// throw_instead_of_exit(true) and catches OptionsExit, whose status is the one exit() gets.
struct OptionsExit {
    int status;
};
void throw_instead_of_exit(bool on);

// A program of subcommands (`seq2seq train --steps 50`): returns the command argv[1] names.
// `program --help` (or -h) prints the commands and exits 0; no command or an unknown one
// prints them to stderr and exits 2. The command then reads its own flags with an Options
// named "<program> <command>" and parse(argc - 1, argv + 1), so every command has --help.
struct Command {
    std::string name, summary;
};
std::string subcommand(int argc, const char* const* argv, const std::string& program, const std::string& summary,
                       const std::vector<Command>& commands);

}  // namespace attnlab::lab
