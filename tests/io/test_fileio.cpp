// test_fileio.cpp — read_file and write_file_atomic against the files an attacker or
// an accident puts in their way (the bad-input catalogue for io/fileio.cpp).
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
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
