// tinygpt_cli.hpp — what the process tests of `tinygpt` share: a scratch folder in
// build/test_tmp/cli/, a tiny model's flags, the program run as a process, checkpoints
// rewritten with edited fields, and the fixtures (models and hostile files) built once per
// test process.
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include "nn/checkpoint.hpp"
#include "io/safetensors.hpp"
#include "io/json.hpp"
#include "io/fileio.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tests/support/run_program.hpp"

namespace attnlab::testing::tinygpt_cli {

namespace fs = std::filesystem;

inline std::string dir() { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/cli"; }
inline std::string at(const std::string& name) { return dir() + "/" + name; }

// Flags of a tiny model, appended to a `train` command.
inline const std::vector<std::string> kTiny{"--d-model", "16", "--heads", "2", "--layers", "1", "--context",
                                            "8", "--batch", "2", "--eval-every", "2", "--warmup", "1"};

inline ProgramRun tinygpt(std::vector<std::string> args, double timeout_s = 60) {
    args.insert(args.begin(), program_path("tinygpt"));
    return run_program(args, timeout_s);
}

inline std::vector<std::string> tiny_train(std::vector<std::string> extra) {
    std::vector<std::string> args{"train"};
    if (std::find(extra.begin(), extra.end(), "--steps") == extra.end()) args.insert(args.end(), {"--steps", "4"});
    args.insert(args.end(), kTiny.begin(), kTiny.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

// The checkpoint `from` rewritten with metadata replaced and a tensor edited.
inline void rewrite(const std::string& from, const std::string& to, const std::map<std::string, std::string>& meta,
             float poison = 0) {
    SafetensorsFile f = load_safetensors(from);
    for (const auto& [k, v] : meta) f.metadata[k] = v;
    if (poison != 0)
        for (auto& t : f.tensors)
            if (t.name == "head.weight") t.tensor.data_ptr<float>()[0] = poison;
    save_safetensors(to, f.tensors, f.metadata);
}

// The checkpoint `from` rewritten by `edit`, which may change anything in the file.
inline void rewrite_with(const std::string& from, const std::string& to, const std::function<void(SafetensorsFile&)>& edit) {
    SafetensorsFile f = load_safetensors(from);
    edit(f);
    save_safetensors(to, f.tensors, f.metadata);
}

inline std::string corpus_text(int variant) {
    std::string text;
    for (int i = 0; i < 20; ++i) text += variant == 0 ? "the cat sat on the mat.\n" : "the mat sat on the cat.\n";
    return text;
}

// Built once: the models and hostile files the catalogue runs against.
inline void make_fixtures() {
    static bool done = false;
    if (done) return;
    fs::remove_all(dir());
    fs::create_directories(at("adir"));
    REQUIRE(::mkfifo(at("fifo").c_str(), 0600) == 0);
    write_file_atomic(at("empty.txt"), "");
    write_file_atomic(at("corpus.txt"), corpus_text(0));
    write_file_atomic(at("corpus_same_size.txt"), corpus_text(1));
    write_file_atomic(at("corpus_moved.txt"), corpus_text(0));
    write_file_atomic(at("corpus_other_chars.txt"), "Zebras! " + corpus_text(0) + "Quixotic jumps.\n");
    const auto need_ok = [](const std::vector<std::string>& args) {
        const ProgramRun r = tinygpt(args);
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
    };
    need_ok(tiny_train({"--out", at("ck.safetensors")}));
    need_ok(tiny_train({"--model", "multi-head", "--out", at("mh.safetensors")}));
    need_ok(tiny_train({"--corpus", at("corpus.txt"), "--out", at("char.safetensors")}));
    rewrite(at("ck.safetensors"), at("bomb.safetensors"), {{"d_model", "4096"}, {"n_layers", "64"}, {"context", "65536"}});
    rewrite(at("ck.safetensors"), at("nan.safetensors"), {}, NAN);
    rewrite(at("ck.safetensors"), at("neg_step.safetensors"), {{"step", "-50"}});
    {  // saved for inference only: no training state
        nn::LoadedCheckpoint ck = nn::load_checkpoint(at("ck.safetensors"));
        nn::save_checkpoint(at("inference.safetensors"), *ck.model, ck.info);
    }
    done = true;
}

struct Case {
    const char* what;
    std::vector<std::string> args;
    int exit_code;
    std::string says;  // a fragment of stdout + stderr
};

// Runs the cases; returns how many ran.
inline std::size_t run_cases(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        const ProgramRun r = tinygpt(c.args, 20);
        INFO(c.what << "\n  output: " << r.output);
        CHECK_FALSE(r.timed_out);
        CHECK(r.signal == 0);
        CHECK(r.exit_code == c.exit_code);
        CHECK_THAT(r.output, Catch::Contains(c.says));
    }
    return cases.size();
}

}  // namespace attnlab::testing::tinygpt_cli
