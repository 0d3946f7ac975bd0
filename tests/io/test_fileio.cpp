// test_fileio.cpp — read_file and write_file_atomic against the files an attacker or
// an accident puts in their way (the bad-input catalogue for io/fileio.cpp).
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tensor/error.hpp"
#include "io/fileio.hpp"
#include "tests/support/bad_input.hpp"

using namespace attnlab;
using attnlab::testing::fresh_dir;
using attnlab::testing::thrown;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// Everything in dir except `keep`: a leftover temporary shows up here.
std::vector<std::string> others_in(const std::string& dir, const std::string& keep) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename() != keep) names.push_back(e.path().filename().string());
    return names;
}

}  // namespace

TEST_CASE("read_file: a directory says so, not '9223372036854775807 bytes'", "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("adir");
    CHECK_THAT(thrown<IOError>([&] { read_file(dir); }), Contains("read_file: '" + dir + "' is a directory, not a regular file"));
}

TEST_CASE("read_file: a FIFO is refused at once instead of waiting for a writer", "[io][fileio][bad-input]") {
    const std::string fifo = fresh_dir("fifo") + "/checkpoint.safetensors";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(thrown<IOError>([&] { read_file(fifo); }), Contains("'" + fifo + "' is a FIFO, not a regular file"));
}

TEST_CASE("read_file: a /proc file reports 0 bytes but is read to its end", "[io][fileio][bad-input]") {
    REQUIRE(fs::file_size("/proc/self/status") == 0);  // what made the old reader fail
    const std::string text = read_file("/proc/self/status");
    CHECK(text.starts_with("Name:"));
    CHECK(text.find("\nPid:") != std::string::npos);
}

TEST_CASE("read_file: a /proc file past the limit is refused while reading", "[io][fileio][bad-input]") {
    CHECK_THAT(thrown<IOError>([] { read_file("/proc/self/status", 10); }),
               Contains("'/proc/self/status' holds more than the limit of 10 bytes"));
}

TEST_CASE("read_file: a missing file names the path and the reason", "[io][fileio][bad-input]") {
    const std::string path = fresh_dir("missing") + "/nope.txt";
    CHECK_THAT(thrown<IOError>([&] { read_file(path); }), Contains("'" + path + "': cannot open: No such file or directory"));
}

TEST_CASE("read_file: a regular file over the limit is refused before reading", "[io][fileio][bad-input]") {
    const std::string path = fresh_dir("limit") + "/big.txt";
    write_file_atomic(path, std::string(100, 'x'));
    CHECK_THAT(thrown<IOError>([&] { read_file(path, 99); }), Contains("'" + path + "' is 100 bytes, more than the limit of 99"));
    CHECK(read_file(path, 100).size() == 100);
}

TEST_CASE("read_file: a path through a regular file", "[io][fileio][bad-input]") {
    const std::string file = fresh_dir("notdir") + "/plain";
    write_file_atomic(file, "x");
    CHECK_THAT(thrown<IOError>([&] { read_file(file + "/inside"); }), Contains("cannot open: Not a directory"));
}

TEST_CASE("read_file: an unreadable file names the path", "[io][fileio][bad-input]") {
    const std::string path = fresh_dir("unreadable") + "/secret";
    write_file_atomic(path, "x");
    REQUIRE(::chmod(path.c_str(), 0) == 0);
    if (::geteuid() == 0) {  // root reads it anyway; the message is then moot
        CHECK(read_file(path) == "x");
        return;
    }
    CHECK_THAT(thrown<IOError>([&] { read_file(path); }), Contains("'" + path + "': cannot open: Permission denied"));
}

TEST_CASE("write_file_atomic: a symlink at the target is refused, its target untouched", "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("symlink");
    write_file_atomic(dir + "/victim", "precious");
    fs::create_symlink(dir + "/victim", dir + "/out.npy");
    CHECK_THAT(thrown<IOError>([&] { write_file_atomic(dir + "/out.npy", "attack"); }),
               Contains("'" + dir + "/out.npy' is a symbolic link; refusing to replace it"));
    CHECK(read_file(dir + "/victim") == "precious");
    CHECK(fs::is_symlink(dir + "/out.npy"));
}

TEST_CASE("write_file_atomic: a FIFO at the target is refused", "[io][fileio][bad-input]") {
    const std::string fifo = fresh_dir("fifo_target") + "/logits.npy";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(thrown<IOError>([&] { write_file_atomic(fifo, "x"); }), Contains("is a FIFO; refusing to replace it"));
    CHECK(fs::is_fifo(fifo));
}

TEST_CASE("write_file_atomic: /dev/null stays a device (as root it would be replaced)", "[io][fileio][bad-input]") {
    CHECK_THAT(thrown<IOError>([] { write_file_atomic("/dev/null", "x"); }),
               Contains("'/dev/null' is a character device; refusing to replace it"));
    CHECK(fs::is_character_file("/dev/null"));
}

TEST_CASE("write_file_atomic: a directory at the target is refused", "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("dir_target");
    fs::create_directories(dir + "/out.json");
    CHECK_THAT(thrown<IOError>([&] { write_file_atomic(dir + "/out.json", "{}"); }), Contains("is a directory; refusing"));
}

TEST_CASE("write_file_atomic: an empty path or a path ending in '/' names no file", "[io][fileio][bad-input]") {
    CHECK_THAT(thrown<IOError>([] { write_file_atomic("", "x"); }), Contains("write_file_atomic: '' does not name a file"));
    const std::string dir = fresh_dir("slash");
    CHECK_THAT(thrown<IOError>([&] { write_file_atomic(dir + "/", "x"); }), Contains("does not name a file"));
}

TEST_CASE("write_file_atomic: a regular file where a parent directory should be", "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("parent_file");
    write_file_atomic(dir + "/plain", "x");
    CHECK_THAT(thrown<IOError>([&] { write_file_atomic(dir + "/plain/out.csv", "x"); }),
               Contains("cannot create directory '" + dir + "/plain'"));
}

TEST_CASE("write_file_atomic: a symlink planted at the old guessable temporary name is not followed",
          "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("planted");
    write_file_atomic(dir + "/victim", "precious");
    const std::string old_tmp = dir + "/out.npy.tmp." + std::to_string(::getpid());  // the name the old writer used
    fs::create_symlink(dir + "/victim", old_tmp);
    write_file_atomic(dir + "/out.npy", "new");
    CHECK(read_file(dir + "/out.npy") == "new");
    CHECK(read_file(dir + "/victim") == "precious");
}

TEST_CASE("write_file_atomic: a failed write leaves the old file and no temporary", "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("efbig");
    write_file_atomic(dir + "/out.bin", "old contents");
    // RLIMIT_FSIZE makes write(2) fail with EFBIG part-way, like a full disk.
    struct rlimit saved {};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    struct rlimit small = saved;
    small.rlim_cur = 4096;
    auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    const std::string message = thrown<IOError>([&] { write_file_atomic(dir + "/out.bin", std::string(100000, 'x')); });
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, old_handler);
    CHECK_THAT(message, Contains("'" + dir + "/out.bin': write failed: File too large"));
    CHECK(read_file(dir + "/out.bin") == "old contents");
    CHECK(others_in(dir, "out.bin").empty());
}

TEST_CASE("write_file_atomic: success replaces the file, leaves no temporary, keeps usual permissions",
          "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("success");
    write_file_atomic(dir + "/out.csv", "a");
    write_file_atomic(dir + "/out.csv", "step,loss\n");
    CHECK(read_file(dir + "/out.csv") == "step,loss\n");
    CHECK(others_in(dir, "out.csv").empty());
    const mode_t mask = ::umask(0);
    ::umask(mask);
    struct stat st {};
    REQUIRE(::stat((dir + "/out.csv").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == (0666 & ~mask));  // as fopen would create it, not mkstemp's 0600
}

namespace {

// The pid of a process that has exited and been reaped: no process has it (for now).
pid_t dead_pid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
}

// The first bytes of a safetensors file: the header's length (8 bytes, little-endian), then the header.
std::string safetensors_like(const std::string& header) {
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return bytes + header;
}

}  // namespace

TEST_CASE("write_file_atomic: a killed writer's temporaries go at the next write; a living writer's stay",
          "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("stale");
    const std::string dead = std::to_string(dead_pid()), alive = std::to_string(::getppid());
    const std::vector<std::string> gone{".ck.safetensors.tmp-" + dead + "-0123abcd0123abcd"};
    const std::vector<std::string> kept{
        ".ck.safetensors.tmp-" + alive + "-0123abcd0123abcd",  // its writer may still rename it
        ".other.safetensors.tmp-" + dead + "-0123abcd0123abcd",  // another target's: its own next write
        ".ck.safetensors.tmp-0123abcd0123abcd",                  // no pid in the name: not ours to judge
        ".ck.safetensors.tmp--0123abcd",                          // an empty pid
        ".ck.safetensors.tmp-12x4-0123abcd",                      // not a number
        ".ck.safetensors.tmp-0-0123abcd",                         // pid 0 is the process group
        "ck.safetensors.tmp-" + dead + "-0123abcd0123abcd",     // not hidden: not a temporary name
    };
    for (const auto& names : {gone, kept})
        for (const std::string& n : names) write_file_atomic(dir + "/" + n, "half written");
    write_file_atomic(dir + "/ck.safetensors", "whole");
    for (const std::string& n : gone) CHECK_FALSE(fs::exists(dir + "/" + n));
    for (const std::string& n : kept) CHECK(fs::exists(dir + "/" + n));
    CHECK(read_file(dir + "/ck.safetensors") == "whole");
}

TEST_CASE("write_file_atomic: this process's own temporaries are never taken for stale ones", "[io][fileio]") {
    const std::string dir = fresh_dir("temp_name");
    const std::string prefix = ".out.bin.tmp-" + std::to_string(::getpid()) + "-";
    write_file_atomic(dir + "/" + prefix + "0000000000000000", "planted by a test: ours, so it stays");
    write_file_atomic(dir + "/out.bin", "x");
    std::size_t ours = 0;
    for (const auto& e : fs::directory_iterator(dir)) ours += e.path().filename().string().starts_with(prefix);
    CHECK(ours == 1);  // our own (live) pid's temporary is never taken for a stale one
}

TEST_CASE("file_kind tells what a file holds by its first bytes", "[io][fileio]") {
    const std::string dir = fresh_dir("kinds");
    const std::vector<std::pair<std::string, std::string>> files{
        {"\x93NUMPY\x01\x00", "a .npy array"},
        {"\x89PNG\r\n\x1a\n....", "a PNG image"},
        {"GIF89a....", "a GIF image"},
        {safetensors_like("{\"a\":1}         "), "a safetensors file"},
        {safetensors_like("{\"__metadata__\":{\"format\":\"attnlab-checkpoint\"}}"), "an attnlab checkpoint"},
        {safetensors_like("{\"__metadata__\":{\"format\":\"attnlab-seq2seq\"}}"), "an attnlab seq2seq checkpoint"},
        {std::string("\xff\0\0\0\0\0\0\0", 8) + "{\"claims a longer header than the file\"}", "binary data"},
        {"step,loss,val_loss\n1,2,3\n", "text"},
        {std::string("a\0b", 3), "binary data"},
        {"", "text"},
    };
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string path = dir + "/f" + std::to_string(i);
        write_file_atomic(path, files[i].first);
        INFO(i);
        CHECK(file_kind(path) == files[i].second);
    }
    CHECK(file_kind(dir + "/missing").empty());
    CHECK(file_kind(dir) == "a directory");
}

TEST_CASE("check_output: the one rule for what an output may replace", "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("check_output");
    write_file_atomic(dir + "/ck.safetensors", safetensors_like("{\"__metadata__\":{\"format\":\"attnlab-checkpoint\"}}"));
    write_file_atomic(dir + "/notes.txt", "mine\n");
    write_file_atomic(dir + "/old.npy", "\x93NUMPY");
    fs::create_directories(dir + "/adir");
    fs::create_symlink(dir + "/notes.txt", dir + "/link.txt");
    REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
    struct Case {
        std::string path, kind;
        bool overwrite;
        std::vector<std::string> inputs;
        std::string says;  // "" = allowed
    };
    const std::vector<Case> cases{
        {"", "text", false, {}, "--out: an empty path names no file"},
        {"", "text", true, {}, "--out: an empty path names no file"},
        {dir + "/adir", "text", false, {}, "is a directory; only a regular file is ever replaced"},
        {dir + "/adir", "text", true, {}, "is a directory"},
        {dir + "/adir/", "text", false, {}, "names a directory, not a file"},
        {dir + "/new/", "text", false, {}, "names a directory, not a file"},
        {dir + "/fifo", "text", true, {}, "is a FIFO"},
        {dir + "/link.txt", "text", true, {}, "is a symbolic link"},
        {"/dev/null", "a .npy array", true, {}, "is a character device"},
        {dir + "/ck.safetensors", "a .npy array", false, {}, "exists and holds an attnlab checkpoint, not a .npy array"},
        {dir + "/ck.safetensors", "text", false, {}, "holds an attnlab checkpoint, not text"},
        {dir + "/notes.txt", "a .npy array", false, {}, "holds text, not a .npy array; it is left alone (give another path, or --overwrite"},
        {dir + "/old.npy", "an attnlab checkpoint", false, {}, "holds a .npy array, not an attnlab checkpoint"},
        {dir + "/notes.txt", "text", false, {dir + "/notes.txt"}, "which this run reads"},
        {dir + "/notes.txt", "text", true, {dir + "/notes.txt"}, "which this run reads"},
        {dir + "/adir/../notes.txt", "text", true, {dir + "/notes.txt"}, "which this run reads"},
        {dir + "/notes.txt", "text", true, {dir + "/link.txt"}, "which this run reads"},
        {dir + "/new.txt", "text", false, {dir + "/./new.txt"}, "which this run reads"},
        {dir + "/new.npy", "a .npy array", false, {}, ""},
        {dir + "/old.npy", "a .npy array", false, {}, ""},
        {dir + "/notes.txt", "a .npy array", true, {}, ""},
        {dir + "/ck.safetensors", "a .npy array", true, {dir + "/notes.txt"}, ""},
        {dir + "/notes.txt", "text", false, {"", dir + "/old.npy"}, ""},
    };
    for (const Case& c : cases) {
        INFO(c.path << " as " << c.kind << (c.overwrite ? " with --overwrite" : ""));
        const std::string got = thrown<IOError>([&] { check_output("--out", c.path, c.kind, c.overwrite, c.inputs); });
        if (c.says.empty()) {
            CHECK(got == "<did not throw>");
        } else {
            CHECK_THAT(got, Contains(c.says));
            if (!c.path.empty()) CHECK_THAT(got, Contains("--out '" + c.path + "'"));
        }
    }
    CHECK(read_file(dir + "/notes.txt") == "mine\n");
}

TEST_CASE("OutputLock: one writer at a time, the second told who holds it", "[io][fileio][bad-input]") {
    const std::string dir = fresh_dir("lock");
    const std::string path = dir + "/W.safetensors";
    {
        const OutputLock first(path, "train causal");
        CHECK(fs::exists(path + ".lock"));
        CHECK_THAT(read_file(path + ".lock"), Contains("train causal, pid " + std::to_string(::getpid())));
        // flock is per open file: a second lock in the same process conflicts like another process's.
        CHECK_THAT(thrown<IOError>([&] { OutputLock second(path, "another"); }),
                   Contains("'" + path + "' is being written by another program (train causal, pid " +
                            std::to_string(::getpid())) &&
                       Contains("holding '" + path + ".lock'"));
        // Another process too, and at once.
        const pid_t child = ::fork();
        if (child == 0) {
            try {
                OutputLock other(path, "child");
            } catch (const IOError&) {
                ::_exit(7);
            }
            ::_exit(0);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        CHECK(WEXITSTATUS(status) == 7);
    }
    CHECK_FALSE(fs::exists(path + ".lock"));  // released and removed
    // A lock file left by a killed holder (the kernel dropped its flock) is taken over.
    write_file_atomic(path + ".lock", "train causal, pid " + std::to_string(dead_pid()) + "\n");
    {
        const OutputLock again(path, "second run");
        CHECK_THAT(read_file(path + ".lock"), Contains("second run"));
    }
    CHECK_FALSE(fs::exists(path + ".lock"));
    // A lock where the folder cannot hold one names the path.
    write_file_atomic(dir + "/plain", "x");
    CHECK_THAT(thrown<IOError>([&] { OutputLock bad(dir + "/plain/W.safetensors", "x"); }),
               Contains("'" + dir + "/plain/W.safetensors': cannot open its lock file"));
}
