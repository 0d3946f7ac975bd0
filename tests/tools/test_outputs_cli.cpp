// test_outputs_cli.cpp — nothing is written where the user did not mean it, as a user meets
// it: each case runs the programs as processes in a scratch directory under
// build/test_tmp/outputs/ and checks the exit status, what they say, and the bytes of every
// file they must leave alone.
//
// The rule (io/fileio.hpp): an empty path is refused by the option parser; an output is
// never a directory, never an input, and never an existing file of another kind or of
// another run unless --overwrite is given; `tinygpt train` and `seq2seq train` lock their
// output while they write it; divergence leaves the best validation step on disk; a killed
// writer's temporaries are removed by the next write; a corpus run never writes the phases'
// standard checkpoints.
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>
#include <thread>

#include "io/fileio.hpp"
#include "io/safetensors.hpp"
#include "tests/support/run_program.hpp"

using namespace attnlab;
using attnlab::testing::program_path;
using attnlab::testing::ProgramRun;
using attnlab::testing::run_program;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// A fresh, empty scratch directory for one test.
std::string scratch(const std::string& name) {
    const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/outputs/" + name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// Runs build/<program> with `args` in `cwd`.
ProgramRun run(const std::string& program, std::vector<std::string> args, const std::string& cwd, double timeout_s = 60) {
    args.insert(args.begin(), program_path(program));
    return run_program(args, timeout_s, 0, cwd);
}

// `command` with `defaults` (flag, value pairs) for the flags `more` does not give, then `more`.
std::vector<std::string> with_defaults(const std::string& command, const std::vector<std::string>& defaults,
                                       const std::vector<std::string>& more) {
    std::vector<std::string> args{command};
    for (std::size_t i = 0; i + 1 < defaults.size(); i += 2)
        if (std::find(more.begin(), more.end(), defaults[i]) == more.end()) args.insert(args.end(), {defaults[i], defaults[i + 1]});
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// A tiny toy model, so a run takes a fraction of a second.
std::vector<std::string> tiny(const std::vector<std::string>& more) {
    return with_defaults("train", {"--d-model", "16", "--heads", "2", "--layers", "1", "--context", "8", "--batch", "2",
                                   "--eval-every", "2", "--warmup", "1", "--steps", "4"}, more);
}

std::vector<std::string> tiny_seq2seq(const std::vector<std::string>& more) {
    return with_defaults("train", {"--hidden", "8", "--batch", "4", "--length", "5", "--per-length", "2", "--steps", "4"}, more);
}

void require_ok(const ProgramRun& r) {
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
}

// The names in dir that start with '.' and hold ".tmp-": temporaries of the atomic writer.
std::vector<std::string> temporaries(const std::string& dir) {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(e.path().filename().string());
    return found;
}

// The loss CSV's rows as (step, val_loss), only the evaluated ones.
std::vector<std::pair<long, double>> evaluations(const std::string& csv) {
    std::vector<std::pair<long, double>> out;
    const std::string text = read_file(csv);
    std::size_t start = text.find('\n') + 1;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        const std::string line = text.substr(start, end - start);
        const std::size_t c1 = line.find(','), c2 = line.find(',', c1 + 1);
        if (c2 + 1 < line.size()) out.emplace_back(std::stol(line.substr(0, c1)), std::stod(line.substr(c2 + 1)));
        start = end + 1;
    }
    return out;
}

std::map<std::string, std::string> metadata(const std::string& checkpoint) { return load_safetensors(checkpoint).metadata; }

}  // namespace

TEST_CASE("--out '' is refused by the option parser of every program that has --out, before it writes",
          "[tools][cli][outputs][bad-input]") {
    const std::string dir = scratch("empty_out");
    const std::vector<std::vector<std::string>> programs{
        {"phase1_single_head"}, {"phase2_multi_head"},  {"phase3_visualization"}, {"phase4_causal"},
        {"phase5_seq2seq"},     {"gallery"},            {"plots_demo"},           {"tinygpt", "train"},
        {"seq2seq", "train"},   {"seq2seq", "show"},    {"bench_matmul"}};
    std::size_t ran = 0;
    for (const auto& p : programs) {
        if (!fs::exists(program_path(p[0]))) continue;  // phase names are checked just below
        for (const std::string form : {"--out=", "--out"}) {
            std::vector<std::string> args(p.begin() + 1, p.end());
            args.push_back(form);
            if (form == "--out") args.push_back("");
            const ProgramRun r = run(p[0], args, dir, 30);
            INFO(p[0] << " " << form << " ''\n" << r.output);
            CHECK(r.exit_code == 2);
            CHECK_THAT(r.output, Contains("--out '': an empty path names no file or folder"));
            ++ran;
        }
    }
    CHECK(ran >= 2 * 7);  // the phases are named above as the Makefile builds them
    CHECK(fs::is_empty(dir));
    for (const char* root : {"/phase1", "/data", "/index.html", "/summary_all_phases.svg"}) CHECK_FALSE(fs::exists(root));
}

TEST_CASE("--out naming the wrong kind of thing is refused before any work, and left alone",
          "[tools][cli][outputs][bad-input]") {
    const std::string dir = scratch("wrong_kind");
    write_file_atomic(dir + "/afile", "mine\n");
    fs::create_directories(dir + "/adir");
    struct Case {
        std::vector<std::string> program;  // program, then its command if any
        std::string out, says;
    };
    const std::string not_folder = "--out '" + dir + "/afile': exists and is not a folder; it is left alone";
    const std::vector<Case> cases{
        {{"phase1_single_head"}, dir + "/afile", not_folder},
        {{"phase2_multi_head"}, dir + "/afile", not_folder},
        {{"phase3_visualization"}, dir + "/afile", not_folder},
        {{"phase4_causal"}, dir + "/afile", not_folder},
        {{"phase5_seq2seq"}, dir + "/afile", not_folder},
        {{"gallery"}, dir + "/afile", not_folder},
        {{"plots_demo"}, dir + "/afile", not_folder},
        {{"bench_matmul"}, dir + "/afile", not_folder},
        {{"seq2seq", "show", "--checkpoint", dir + "/afile", "--digits", "1 2 3"}, dir + "/afile", not_folder},
        {{"tinygpt", "train"}, dir + "/adir", "--out '" + dir + "/adir' is a directory"},
        {{"tinygpt", "train"}, dir + "/adir/", "is a directory"},
        {{"seq2seq", "train"}, dir + "/adir", "--out '" + dir + "/adir' is a directory; only a regular file is ever replaced"},
        {{"seq2seq", "train"}, dir + "/new/", "names a directory, not a file"},
        {{"seq2seq", "train"}, "/dev/null", "is a character device"},
    };
    for (const Case& c : cases) {
        std::vector<std::string> args(c.program.begin() + 1, c.program.end());
        args.insert(args.end(), {"--out", c.out});
        const auto t0 = std::chrono::steady_clock::now();
        const ProgramRun r = run(c.program[0], args, dir, 30);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        INFO(c.program[0] << " --out " << c.out << "\n" << r.output);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.output, Contains(c.says));
        CHECK(seconds < 5);  // refused at once, not after the program's work
    }
    CHECK(read_file(dir + "/afile") == "mine\n");
    CHECK(fs::is_empty(dir + "/adir"));
    CHECK_FALSE(fs::exists(dir + "/new"));
}

TEST_CASE("tinygpt train replaces no other run's checkpoint and no other file without --overwrite",
          "[tools][tinygpt][cli][outputs][bad-input]") {
    const std::string dir = scratch("tinygpt_runs");
    require_ok(run("tinygpt", tiny({"--out", "a.safetensors"}), dir));
    require_ok(run("tinygpt", tiny({"--out", "b.safetensors", "--seed", "1"}), dir));
    require_ok(run("tinygpt", tiny({"--out", "c.safetensors", "--steps", "6"}), dir));
    fs::copy_file(dir + "/a.safetensors", dir + "/kept_a.safetensors");
    const std::string a = read_file(dir + "/a.safetensors"), b = read_file(dir + "/b.safetensors"),
                      c = read_file(dir + "/c.safetensors");
    write_file_atomic(dir + "/notes.txt", "my notes\n");
    write_file_atomic(dir + "/table.npy", "\x93NUMPY not really");

    struct Case {
        const char* what;
        std::vector<std::string> args;
        std::string file;  // must keep its bytes
        std::string says;
    };
    const std::vector<Case> cases{
        {"resume a, --out b (another seed)", {"train", "--resume", "a.safetensors", "--steps", "6", "--out", "b.safetensors"},
         "b.safetensors", "holds another run's checkpoint (seed 1 there, 0 in this run)"},
        {"fresh run over another seed's checkpoint", tiny({"--out", "b.safetensors"}), "b.safetensors",
         "holds another run's checkpoint (seed 1 there, 0 in this run)"},
        {"fresh run over a longer run of the same settings", tiny({"--out", "c.safetensors"}), "c.safetensors",
         "total_steps 6 there, 4 in this run"},
        {"another model over a causal checkpoint", tiny({"--model", "multi-head", "--out", "a.safetensors"}), "a.safetensors",
         "holds another run's checkpoint (model causal there, multi-head in this run)"},
        {"another learning rate", tiny({"--lr", "0.01", "--out", "a.safetensors"}), "a.safetensors", "(lr 0.003 there, 0.01"},
        {"another width", tiny({"--d-model", "8", "--heads", "1", "--out", "a.safetensors"}), "a.safetensors", "d_model 16 there, 8"},
        {"over a text file", tiny({"--out", "notes.txt"}), "notes.txt", "holds text, not a checkpoint"},
        {"over an .npy array", tiny({"--out", "table.npy"}), "table.npy", "holds a .npy array, not a checkpoint"},
        {"its CSV over a checkpoint", tiny({"--out", "kept_a.safetensors.safetensors"}), "kept_a.safetensors.loss.csv",
         "holds an attnlab checkpoint, not text"},
    };
    // "x.safetensors.safetensors" has the CSV "x.safetensors.loss.csv"; make one that lands on a checkpoint instead.
    fs::copy_file(dir + "/a.safetensors", dir + "/kept_a.safetensors.loss.csv");
    for (const Case& k : cases) {
        const std::string before = read_file(dir + "/" + k.file);
        const ProgramRun r = run("tinygpt", k.args, dir, 30);
        INFO(k.what << "\n" << r.output);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains(k.says) && Contains("--overwrite"));
        CHECK(read_file(dir + "/" + k.file) == before);
    }
    CHECK(read_file(dir + "/a.safetensors") == a);
    CHECK(read_file(dir + "/b.safetensors") == b);
    CHECK(read_file(dir + "/c.safetensors") == c);

    SECTION("the same run again, and a resumed run onto its own file or a copy of it, are allowed") {
        require_ok(run("tinygpt", tiny({"--out", "a.safetensors"}), dir));
        CHECK(read_file(dir + "/a.safetensors") == a);  // the same run gives the same bits
        fs::copy_file(dir + "/a.safetensors", dir + "/a_copy.safetensors");
        require_ok(run("tinygpt", {"train", "--resume", "a.safetensors", "--steps", "6", "--out", "a_copy.safetensors"}, dir));
        require_ok(run("tinygpt", {"train", "--resume", "a.safetensors", "--steps", "6"}, dir));
        CHECK(read_file(dir + "/a.safetensors") == read_file(dir + "/a_copy.safetensors"));
    }
    SECTION("--overwrite replaces another run's checkpoint") {
        require_ok(run("tinygpt", tiny({"--out", "b.safetensors", "--overwrite"}), dir));
        CHECK(read_file(dir + "/b.safetensors") == a);
    }
}

TEST_CASE("tinygpt eval --dump-*: never over a checkpoint or another kind of file", "[tools][tinygpt][cli][outputs][bad-input]") {
    const std::string dir = scratch("dumps");
    require_ok(run("tinygpt", tiny({"--out", "m.safetensors"}), dir));
    require_ok(run("tinygpt", tiny({"--out", "D.safetensors", "--seed", "3"}), dir));
    write_file_atomic(dir + "/notes.txt", "my notes\n");
    const std::string d = read_file(dir + "/D.safetensors");
    const std::vector<std::string> eval{"eval", "--checkpoint", "m.safetensors", "--prompt", "the cat"};
    const auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> a = eval;
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };
    struct Case {
        const char* what;
        std::vector<std::string> args;
        int exit_code;
        std::string says;
    };
    for (const Case& k : std::vector<Case>{
             {"logits over another checkpoint", with({"--dump-logits", "D.safetensors"}), 2,
              "--dump-logits 'D.safetensors' exists and holds an attnlab checkpoint, not a .npy array"},
             {"attention over another checkpoint", with({"--dump-attention", "D.safetensors"}), 2,
              "--dump-attention 'D.safetensors' exists and holds an attnlab checkpoint"},
             {"logits over a text file", with({"--dump-logits", "notes.txt"}), 2, "holds text, not a .npy array"},
             {"logits over the checkpoint, even with --overwrite", with({"--dump-logits", "m.safetensors", "--overwrite"}), 2,
              "is the checkpoint; it would be overwritten"},
             {"logits with an empty path", with({"--dump-logits", ""}), 2, "--dump-logits '': an empty path names no file"},
             {"attention with an empty path", with({"--dump-attention="}), 2, "--dump-attention '': an empty path"},
             {"logits into a folder path", with({"--dump-logits", "sub/"}), 2, "names a directory, not a file"},
         }) {
        const ProgramRun r = run("tinygpt", k.args, dir, 30);
        INFO(k.what << "\n" << r.output);
        CHECK(r.exit_code == k.exit_code);
        CHECK_THAT(r.output, Contains(k.says));
    }
    CHECK(read_file(dir + "/D.safetensors") == d);
    CHECK(read_file(dir + "/notes.txt") == "my notes\n");
    require_ok(run("tinygpt", with({"--dump-logits", "l.npy"}), dir));
    require_ok(run("tinygpt", with({"--dump-logits", "l.npy"}), dir));  // an .npy array is replaced
    require_ok(run("tinygpt", with({"--dump-logits", "D.safetensors", "--overwrite"}), dir));
    CHECK(file_kind(dir + "/D.safetensors") == "a .npy array");
}

TEST_CASE("seq2seq train replaces no other run's checkpoint without --overwrite", "[tools][seq2seq][cli][outputs][bad-input]") {
    const std::string dir = scratch("seq2seq_runs");
    require_ok(run("seq2seq", tiny_seq2seq({"--out", "s.safetensors"}), dir));
    require_ok(run("seq2seq", tiny_seq2seq({"--out", "E.safetensors", "--hidden", "16"}), dir));
    write_file_atomic(dir + "/notes.txt", "my notes\n");
    const std::string e = read_file(dir + "/E.safetensors");
    struct Case {
        const char* what;
        std::vector<std::string> args;
        std::string file, says;
    };
    for (const Case& k : std::vector<Case>{
             {"resume s, --out E", {"train", "--resume", "s.safetensors", "--steps", "6", "--out", "E.safetensors", "--per-length", "2"},
              "E.safetensors", "--out 'E.safetensors': holds another run's checkpoint (hidden 16 there, 8 in this run)"},
             {"fresh run over E", tiny_seq2seq({"--out", "E.safetensors"}), "E.safetensors", "(hidden 16 there, 8 in this run)"},
             {"another seed", tiny_seq2seq({"--out", "E.safetensors", "--hidden", "16", "--seed", "4"}), "E.safetensors",
              "(seed 0 there, 4 in this run)"},
             {"another score", tiny_seq2seq({"--out", "E.safetensors", "--hidden", "16", "--score", "dot"}), "E.safetensors",
              "(score additive there, dot in this run)"},
             {"more steps", tiny_seq2seq({"--out", "E.safetensors", "--hidden", "16", "--steps", "5"}), "E.safetensors",
              "(steps 4 there, 5 in this run)"},
             {"over a text file", tiny_seq2seq({"--out", "notes.txt"}), "notes.txt", "holds text, not an attnlab seq2seq checkpoint"},
             {"over the resumed file's twin name", {"train", "--resume", "s.safetensors", "--steps", "6", "--out", "notes.txt",
                                                     "--per-length", "2"}, "notes.txt", "holds text"},
         }) {
        const std::string before = read_file(dir + "/" + k.file);
        const ProgramRun r = run("seq2seq", k.args, dir, 30);
        INFO(k.what << "\n" << r.output);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.output, Contains(k.says));
        CHECK(read_file(dir + "/" + k.file) == before);
    }
    CHECK(read_file(dir + "/E.safetensors") == e);
    require_ok(run("seq2seq", tiny_seq2seq({"--out", "E.safetensors", "--hidden", "16"}), dir));  // the same run
    require_ok(run("seq2seq", {"train", "--resume", "s.safetensors", "--steps", "6", "--out", "s2.safetensors", "--per-length", "2"}, dir));
    require_ok(run("seq2seq", {"train", "--resume", "s.safetensors", "--steps", "8", "--out", "s2.safetensors", "--per-length", "2"}, dir));
    require_ok(run("seq2seq", tiny_seq2seq({"--out", "E.safetensors", "--overwrite"}), dir));
    CHECK(read_file(dir + "/E.safetensors") == read_file(dir + "/s.safetensors"));
}

TEST_CASE("two trainers on one --out: the second stops at once, naming the first", "[tools][tinygpt][cli][outputs]") {
    const std::string dir = scratch("two_writers");
    const std::vector<std::string> args = tiny({"--steps", "10000", "--eval-every", "2500", "--out", "W.safetensors"});
    auto first = std::async(std::launch::async, [&] { return run("tinygpt", args, dir, 120); });
    for (int i = 0; i < 200 && !fs::exists(dir + "/W.safetensors.lock"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(fs::exists(dir + "/W.safetensors.lock"));
    const auto t0 = std::chrono::steady_clock::now();
    const ProgramRun second = run("tinygpt", args, dir, 60);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const ProgramRun one = first.get();
    INFO("first:\n" << one.output << "\nsecond:\n" << second.output);
    CHECK(second.exit_code == 1);
    CHECK_THAT(second.output, Contains("'W.safetensors' is being written by another program (train causal, pid") &&
                                  Contains("W.safetensors.lock"));
    CHECK_THAT(second.output, !Contains("wrote W.safetensors"));
    CHECK(waited < 10);  // it did not wait for the first to finish
    CHECK(one.exit_code == 0);
    CHECK_THAT(one.output, Contains("wrote W.safetensors"));
    CHECK_FALSE(fs::exists(dir + "/W.safetensors.lock"));  // released and removed
    CHECK(metadata(dir + "/W.safetensors").at("step") == "10000");
}

TEST_CASE("seq2seq train: a second trainer on the same --out stops at once", "[tools][seq2seq][cli][outputs]") {
    const std::string dir = scratch("two_seq2seq");
    {
        const OutputLock held(dir + "/S.safetensors", "a test holding it");
        const ProgramRun r = run("seq2seq", tiny_seq2seq({"--out", "S.safetensors"}), dir, 30);
        INFO(r.output);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("'S.safetensors' is being written by another program (a test holding it, pid"));
        CHECK_FALSE(fs::exists(dir + "/S.safetensors"));
    }
    require_ok(run("seq2seq", tiny_seq2seq({"--out", "S.safetensors"}), dir));
}

TEST_CASE("divergence keeps the best validation step on disk, and says at which step it stopped",
          "[tools][tinygpt][cli][outputs][divergence]") {
    const std::string dir = scratch("divergence");
    SECTION("a learning rate far too high: --lr 1000 --warmup 50 --steps 100 --eval-every 1") {
        const ProgramRun r = run("tinygpt", {"train", "--lr", "1000", "--warmup", "50", "--steps", "100", "--eval-every", "1",
                                             "--out", "dv.safetensors"}, dir, 120);
        INFO(r.output);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("diverged at step") && Contains("'dv.safetensors' keeps step"));
        const auto evals = evaluations(dir + "/dv.loss.csv");
        REQUIRE_FALSE(evals.empty());
        const auto best = *std::min_element(evals.begin(), evals.end(), [](auto x, auto y) { return x.second < y.second; });
        const auto meta = metadata(dir + "/dv.safetensors");
        CHECK(meta.at("step") == std::to_string(best.first));
        CHECK(std::stod(meta.at("val_loss")) == Approx(best.second).epsilon(1e-6));
        CHECK_THAT(r.output, Contains("keeps step " + std::to_string(best.first)));
    }
    SECTION("--lr 1e30: the message names the weight, never an empty one") {
        const ProgramRun r = run("tinygpt", tiny({"--lr", "1e30", "--warmup", "0", "--eval-every", "1", "--out", "x.safetensors"}),
                                 dir, 60);
        INFO(r.output);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("diverged at step 1"));
        CHECK_THAT(r.output, !Contains("(weight )") && !Contains("''"));
        CHECK_THAT(r.output, Contains("weight '") || Contains("the gradient of '") || Contains("|value| up to"));
    }
}

TEST_CASE("kill -9: the next write removes the killed writer's temporaries; checkpoint and CSV agree",
          "[tools][tinygpt][cli][outputs]") {
    const std::string dir = scratch("kill9");
    // A run killed (SIGKILL, by run_program's timeout) in the middle of its evaluations.
    const ProgramRun killed = run("tinygpt", tiny({"--steps", "400000", "--eval-every", "1", "--out", "K.safetensors"}), dir, 3);
    REQUIRE(killed.timed_out);
    REQUIRE(fs::exists(dir + "/K.safetensors"));
    // What SIGKILL mid-write leaves: a temporary of a process that is gone (this child's pid is).
    pid_t dead = ::fork();
    if (dead == 0) ::_exit(0);
    ::waitpid(dead, nullptr, 0);
    const std::string stale = dir + "/.K.safetensors.tmp-" + std::to_string(dead) + "-0123456789abcdef";
    const std::string stale_csv = dir + "/.K.loss.csv.tmp-" + std::to_string(dead) + "-0123456789abcdef";
    const std::string living = dir + "/.K.safetensors.tmp-" + std::to_string(::getpid()) + "-0123456789abcdef";
    for (const std::string& f : {stale, stale_csv, living}) write_file_atomic(f, "half a checkpoint");
    const std::string step = metadata(dir + "/K.safetensors").at("step");
    const ProgramRun resumed = run("tinygpt", {"train", "--resume", "K.safetensors", "--steps", std::to_string(std::stol(step) + 2)}, dir, 60);
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    CHECK_FALSE(fs::exists(stale));
    CHECK_FALSE(fs::exists(stale_csv));
    CHECK(fs::exists(living));  // this test process is alive: its temporary stays
    fs::remove(living);
    CHECK(temporaries(dir).empty());
    CHECK_FALSE(fs::exists(dir + "/K.safetensors.lock"));  // the killed run's stale lock was taken over, then released
    // The CSV is the checkpoint's curve: one row per step, up to the checkpoint's step.
    const auto evals = evaluations(dir + "/K.loss.csv");
    REQUIRE_FALSE(evals.empty());
    CHECK(std::to_string(evals.back().first) == metadata(dir + "/K.safetensors").at("step"));
}

TEST_CASE("a corpus run writes its own file, never the phases' standard checkpoint", "[tools][tinygpt][cli][outputs]") {
    const std::string dir = scratch("corpus_default");
    std::string notes;
    for (int i = 0; i < 30; ++i) notes += "the quick brown fox jumps over the lazy dog and the cat naps.\n";
    write_file_atomic(dir + "/notes.txt", notes);
    require_ok(run("tinygpt", tiny({"--out", "out/checkpoints/causal_model.safetensors"}), dir));
    require_ok(run("tinygpt", tiny({"--out", "out/checkpoints/char_model.safetensors", "--seed", "2"}), dir));
    const std::string causal = read_file(dir + "/out/checkpoints/causal_model.safetensors");
    const std::string csv = read_file(dir + "/out/checkpoints/causal_model.loss.csv");

    const ProgramRun words = run("tinygpt", tiny({"--corpus", "notes.txt", "--tokens", "words"}), dir, 60);
    INFO(words.output);
    REQUIRE(words.exit_code == 0);
    CHECK_THAT(words.output, Contains("-> out/runs/notes_words_causal_model.safetensors"));
    CHECK(read_file(dir + "/out/checkpoints/causal_model.safetensors") == causal);
    CHECK(read_file(dir + "/out/checkpoints/causal_model.loss.csv") == csv);
    CHECK(fs::exists(dir + "/out/runs/notes_words_causal_model.loss.csv"));
    const auto meta = metadata(dir + "/out/runs/notes_words_causal_model.safetensors");
    CHECK(meta.at("kept") == "best");  // a corpus run keeps its best by default

    const ProgramRun chars = run("tinygpt", tiny({"--corpus", "notes.txt"}), dir, 60);
    INFO(chars.output);
    REQUIRE(chars.exit_code == 0);
    CHECK_THAT(chars.output, Contains("-> out/runs/notes_char_model.safetensors"));
    // Another text of the same name elsewhere is another run: refused, the first kept.
    fs::create_directories(dir + "/other");
    write_file_atomic(dir + "/other/notes.txt", notes + "a different line.\n");
    const std::string mine = read_file(dir + "/out/runs/notes_char_model.safetensors");
    const ProgramRun other = run("tinygpt", tiny({"--corpus", "other/notes.txt"}), dir, 60);
    INFO(other.output);
    CHECK(other.exit_code == 1);
    CHECK_THAT(other.output, Contains("holds another run's checkpoint (data (corpus_bytes)") && Contains("trained on 'notes.txt'"));
    CHECK(read_file(dir + "/out/runs/notes_char_model.safetensors") == mine);
}

TEST_CASE("--keep best: the checkpoint holds the lowest validation loss, the CSV every evaluation",
          "[tools][tinygpt][cli][outputs]") {
    const std::string dir = scratch("keep_best");
    const ProgramRun r = run("tinygpt", tiny({"--steps", "40", "--eval-every", "2", "--lr", "0.05", "--keep", "best", "--out",
                                              "b.safetensors"}), dir, 60);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto evals = evaluations(dir + "/b.loss.csv");
    REQUIRE(evals.size() == 20);
    const auto best = *std::min_element(evals.begin(), evals.end(), [](auto x, auto y) { return x.second < y.second; });
    const auto meta = metadata(dir + "/b.safetensors");
    CHECK(meta.at("step") == std::to_string(best.first));
    CHECK(meta.at("kept") == "best");
    CHECK(meta.at("best_step") == std::to_string(best.first));
    CHECK(std::stod(meta.at("val_loss")) == Approx(best.second).epsilon(1e-6));
    for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {tiny({"--keep", "first"}), "--keep needs last or best, got 'first'"},
             {tiny({"--keep", ""}), "--keep needs last or best, got ''"},
             {tiny({"--keep"}), "--keep needs a value"},
             {tiny({"--overwrite=yes"}), "--overwrite is a switch and takes no value"},
             {tiny({"--overwrite", "--overwrite"}), "--overwrite is given twice"},
         }) {
        const ProgramRun bad = run("tinygpt", args, dir, 30);
        INFO(bad.output);
        CHECK(bad.exit_code == 2);
        CHECK_THAT(bad.output, Contains(says));
    }
}

TEST_CASE("a corpus run that overfits says so, and its checkpoint stays at the best step", "[tools][tinygpt][cli][outputs]") {
    const std::string dir = scratch("overfit");
    // Words in no order at all: nothing to learn beyond their frequencies, so the model soon
    // memorises its training text and the held-out loss rises.
    const std::vector<std::string> words{"the", "cat", "dog", "sat", "ran", "on", "a", "mat", "log", "big", "small", "red"};
    std::string text;
    std::uint64_t state = 1;
    for (int line = 0; line < 40; ++line, text += "\n")
        for (int w = 0; w < 8; ++w) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            text += (w ? " " : "") + words[(state >> 33) % words.size()];
        }
    write_file_atomic(dir + "/noise.txt", text);
    const ProgramRun r = run("tinygpt", {"train", "--corpus", "noise.txt", "--tokens", "words", "--steps", "300", "--eval-every", "10",
                                         "--lr", "0.01", "--warmup", "5", "--d-model", "32", "--context", "8", "--batch", "8"},
                             dir, 120);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::size_t at = r.output.find("| val rising 3 evals (best ");
    REQUIRE(at != std::string::npos);
    const std::string checkpoint = dir + "/out/runs/noise_words_causal_model.safetensors";
    const auto evals = evaluations(dir + "/out/runs/noise_words_causal_model.loss.csv");
    CHECK(evals.size() == 30);  // the record has every evaluation
    const auto best = *std::min_element(evals.begin(), evals.end(), [](auto x, auto y) { return x.second < y.second; });
    CHECK(best.first < evals.back().first);
    const auto meta = metadata(checkpoint);
    CHECK(meta.at("step") == std::to_string(best.first));
    CHECK(meta.at("best_step") == std::to_string(best.first));
}
