// test_tinygpt_cli.cpp — the bad-input catalogue of `tinygpt`, as a user meets it: each
// case runs build/tinygpt as a process and checks its exit status (0 ok, 1 failed while
// running, 2 bad flag) and a fragment of what it says. Every reproducer of the issue
// "Untrusted files and long runs" for the command line is here (sections 2-4 and 6).
//
// Models are tiny (d_model 16, 1 layer, context 8) and runs a few steps, so the whole
// catalogue takes seconds. Files it needs (a bomb header, NaN weights, a FIFO) are made
// in build/test_tmp/cli/ by the fixture below.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "nn/checkpoint.hpp"
#include "io/safetensors.hpp"
#include "io/fileio.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tests/support/run_program.hpp"

using namespace attnlab;
using attnlab::testing::run_program;
using Catch::Contains;

namespace {

namespace fs = std::filesystem;

std::string dir() { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/cli"; }
std::string at(const std::string& name) { return dir() + "/" + name; }

// Flags of a tiny model, appended to a `train` command.
const std::vector<std::string> kTiny{"--d-model", "16", "--heads", "2", "--layers", "1", "--context",
                                     "8", "--batch", "2", "--eval-every", "2", "--warmup", "1"};

testing::ProgramRun tinygpt(std::vector<std::string> args, double timeout_s = 60) {
    args.insert(args.begin(), testing::program_path("tinygpt"));
    return run_program(args, timeout_s);
}

std::vector<std::string> tiny_train(std::vector<std::string> extra) {
    std::vector<std::string> args{"train"};
    if (std::find(extra.begin(), extra.end(), "--steps") == extra.end()) args.insert(args.end(), {"--steps", "4"});
    args.insert(args.end(), kTiny.begin(), kTiny.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

// The checkpoint `from` rewritten with metadata replaced and a tensor edited.
void rewrite(const std::string& from, const std::string& to, const std::map<std::string, std::string>& meta,
             float poison = 0) {
    SafetensorsFile f = load_safetensors(from);
    for (const auto& [k, v] : meta) f.metadata[k] = v;
    if (poison != 0)
        for (auto& t : f.tensors)
            if (t.name == "head.weight") t.tensor.data_ptr<float>()[0] = poison;
    save_safetensors(to, f.tensors, f.metadata);
}

std::string corpus_text(int variant) {
    std::string text;
    for (int i = 0; i < 20; ++i) text += variant == 0 ? "the cat sat on the mat.\n" : "the mat sat on the cat.\n";
    return text;
}

// Built once: the models and hostile files the catalogue runs against.
void make_fixtures() {
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
        const testing::ProgramRun r = tinygpt(args);
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
std::size_t run_cases(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        const testing::ProgramRun r = tinygpt(c.args, 20);
        INFO(c.what << "\n  output: " << r.output);
        CHECK_FALSE(r.timed_out);
        CHECK(r.signal == 0);
        CHECK(r.exit_code == c.exit_code);
        CHECK_THAT(r.output, Contains(c.says));
    }
    return cases.size();
}

}  // namespace

TEST_CASE("tinygpt: flags and usage", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors");
    run_cases({
        {"no command", {}, 2, "usage: tinygpt <command>"},
        {"--help", {"--help"}, 0, "commands:"},
        {"train --help", {"train", "--help"}, 0, "only --steps (to extend the run)"},
        {"train --help: a switch is bare", {"train", "--help"}, 0, "  --unscaled              scores q.k without"},
        {"train --help: defaults are the recipe's", {"train", "--help"}, 0, "--d-model D             model width (at most 4096) (default: 64)"},
        {"generate --help", {"generate", "--help"}, 0, "  --no-kv-cache           recompute"},
        {"eval --help", {"eval", "--help"}, 0, "usage: tinygpt eval"},
        {"show --help", {"show", "--help"}, 0, "--from-npy F.npy"},
        {"unknown flag (generate)", {"generate", "--sentence", "the"}, 2, "tinygpt generate: unknown flag '--sentence'"},
        {"unknown flag (eval)", {"eval", "--bogus", "1"}, 2, "tinygpt eval: unknown flag '--bogus'"},
        {"unknown flag (show)", {"show", "--bogus", "1"}, 2, "tinygpt show: unknown flag '--bogus'"},
        {"a switch given a value", {"train", "--unscaled=yes"}, 2, "--unscaled is a switch and takes no value (got '--unscaled=yes')"},
        {"a switch given twice", {"train", "--unscaled", "--unscaled"}, 2, "--unscaled is given twice"},
        {"generate's switch given a value", {"generate", "--no-kv-cache=1"}, 2, "--no-kv-cache is a switch and takes no value"},
        {"generate's switch given twice", {"generate", "--no-kv-cache", "--no-kv-cache"}, 2, "--no-kv-cache is given twice"},
        {"a bare word", {"eval", "the"}, 2, "unexpected argument 'the'"},
        {"unknown command", {"fly"}, 2, "unknown command 'fly'"},
        {"unknown flag", {"train", "--bogus"}, 2, "tinygpt train: unknown flag '--bogus'"},
        {"flag without value", {"train", "--steps"}, 2, "--steps needs a value"},
        {"flag twice", {"train", "--steps", "5", "--steps", "6"}, 2, "--steps is given twice"},
        {"steps 0", {"train", "--steps", "0"}, 2, "--steps needs an integer in [1, 1000000000], got '0'"},
        {"steps not a number", {"train", "--steps", "12x"}, 2, "--steps needs an integer in [1, 1000000000], got '12x'"},
        {"unknown model", {"train", "--model", "gpt5"}, 2, "--model must be causal, single-head, multi-head or qkv-head, got 'gpt5'"},
        {"lr nan", {"train", "--lr", "nan"}, 2, "--lr needs a number >= 0, got 'nan'"},
        {"lr negative", {"train", "--lr", "-1"}, 2, "--lr needs a number >= 0, got '-1'"},
        {"mask prob above 1", {"train", "--mask-prob", "1.5"}, 2, "--mask-prob needs a number in (0, 1], got '1.5'"},
        {"clip 0", {"train", "--clip", "0"}, 2, "--clip needs a number > 0, got '0'"},
        {"eval every 0", {"train", "--eval-every", "0"}, 2, "--eval-every needs an integer in [1, 1000000000], got '0'"},
        {"seed negative", {"train", "--seed", "-3"}, 2, "--seed needs an integer >= 0, got '-3'"},
        {"generate: no prompt", {"generate", "--checkpoint", ck}, 2, "--prompt is required"},
        {"eval: no checkpoint", {"eval", "--prompt", "the cat"}, 2, "--checkpoint is required"},
        {"generate: tokens 0", {"generate", "--checkpoint", ck, "--prompt", "the", "--tokens", "0"}, 2, "--tokens '0': must be between 1 and 1000000"},
        {"generate: top-k -1", {"generate", "--checkpoint", ck, "--prompt", "the", "--top-k", "-1"}, 2, "--top-k '-1': must be between 0 and 1000000"},
    });
}

TEST_CASE("tinygpt train --shards: the same checkpoint on 1 thread and on 2, recorded for --resume", "[tools][tinygpt][cli]") {
    make_fixtures();
    // A masked-token model with dropout: padded rows, ignored targets and per-shard dropout draws.
    const auto train_on = [](const char* threads, const std::string& out) {
        std::vector<std::string> args{"/usr/bin/env", std::string("ATTNLAB_NUM_THREADS=") + threads, testing::program_path("tinygpt")};
        for (const std::string& a : tiny_train({"--model", "multi-head", "--steps", "6", "--shards", "2", "--dropout", "0.1", "--out", out}))
            args.push_back(a);
        return run_program(args, 60);
    };
    const std::string one = at("shards_t1.safetensors"), two = at("shards_t2.safetensors");
    const auto r1 = train_on("1", one), r2 = train_on("2", two);
    INFO(r1.output << r2.output);
    REQUIRE(r1.exit_code == 0);
    REQUIRE(r2.exit_code == 0);
    const auto bytes = [](const std::string& path) {
        std::ifstream f(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    CHECK(bytes(one).size() > 1000);
    CHECK(bytes(one) == bytes(two));  // weights, optimiser state, loss curve: every bit
    CHECK(nn::load_checkpoint(one).metadata.at("shards") == "2");
    run_cases({
        {"--shards 0", {"train", "--shards", "0"}, 2, "--shards needs an integer in [1, 64], got '0'"},
        {"--shards contradicts on resume", {"train", "--resume", one, "--steps", "8", "--shards", "1"}, 2, "trained with shards 2"},
        {"a resumed run keeps its shards", {"train", "--resume", one, "--steps", "8"}, 0, "resuming"},
    });
    CHECK(nn::load_checkpoint(one).metadata.at("shards") == "2");
}

TEST_CASE("tinygpt train: the course's knobs, each with a good and a bad value", "[tools][tinygpt][cli]") {
    make_fixtures();
    const auto meta = [](const std::string& path) { return nn::load_checkpoint(path).metadata; };
    const std::string local = at("local.safetensors"), none = at("nomask.safetensors"), strided = at("strided.safetensors");
    const std::string knobs = at("knobs.safetensors"), qkv = at("qkv.safetensors");
    run_cases({
        {"--mask local:3", tiny_train({"--mask", "local:3", "--out", local}), 0, "wrote"},
        {"--mask none", tiny_train({"--mask", "none", "--out", none}), 0, "wrote"},
        {"generate refuses a model trained without the mask", {"generate", "--checkpoint", none, "--prompt", "the"}, 1, "is a bidirectional (--mask none) model"},
        {"--mask strided:2", tiny_train({"--mask", "strided:2", "--out", strided}), 0, "wrote"},
        {"--unscaled --dropout 0.1 and the schedule knobs",
         tiny_train({"--unscaled", "--dropout", "0.1", "--weight-decay", "0.05", "--clip", "0.5", "--out", knobs}), 0, "wrote"},
        {"--model qkv-head --mask-prob 0.3",
         {"train", "--model", "qkv-head", "--steps", "4", "--d-model", "16", "--layers", "1", "--context", "8", "--batch", "2",
          "--eval-every", "2", "--mask-prob", "0.3", "--out", qkv}, 0, "attention 768 per block"},  // 3 * 16²
        {"--mask bogus", {"train", "--mask", "bogus"}, 2, "--mask needs none, causal, local:W or strided:S, got 'bogus'"},
        {"--mask local:0", {"train", "--mask", "local:0"}, 2, "--mask local:0: local:W needs an integer in [1, 8192]"},
        {"--mask local:x", {"train", "--mask", "local:x"}, 2, "local:W needs an integer"},
        {"--mask strided:-2", {"train", "--mask", "strided:-2"}, 2, "strided:S needs an integer in [1, 8192]"},
        {"--mask causal on a masked-token model", {"train", "--model", "multi-head", "--mask", "causal"}, 2, "the causal mask is for next-token models"},
        {"--dropout 1", {"train", "--dropout", "1"}, 2, "--dropout needs a number in [0, 1), got '1'"},
        {"--dropout -0.1", {"train", "--dropout", "-0.1"}, 2, "--dropout needs a number in [0, 1), got '-0.1'"},
        {"--unscaled takes no value", {"train", "--unscaled", "yes"}, 2, "unexpected argument 'yes': --unscaled is a switch and takes no value"},
        {"--warmup -1", {"train", "--warmup", "-1"}, 2, "--warmup needs an integer in [0, 1000000000], got '-1'"},
        {"--weight-decay x", {"train", "--weight-decay", "x"}, 2, "--weight-decay needs a number >= 0, got 'x'"},
        {"qkv-head with 2 heads", {"train", "--model", "qkv-head", "--heads", "2"}, 2, "qkv-head has 1 head, not n_heads 2"},
        {"--mask contradicts on resume", {"train", "--resume", local, "--steps", "6", "--mask", "local:4"}, 2, "trained with window 3"},
        {"--unscaled contradicts on resume", {"train", "--resume", local, "--steps", "6", "--unscaled"}, 2, "--unscaled contradicts"},
        {"--dropout contradicts on resume", {"train", "--resume", knobs, "--steps", "6", "--dropout", "0"}, 2, "trained with dropout 0.1"},
        {"a resumed run keeps its knobs", {"train", "--resume", knobs, "--steps", "6"}, 0, "resuming"},
        {"--tokens words, causal", tiny_train({"--corpus", at("corpus.txt"), "--tokens", "words", "--out", at("words.safetensors")}), 0, "causal on the words of"},
        {"--tokens words, masked-token", tiny_train({"--corpus", at("corpus.txt"), "--tokens", "words", "--model", "multi-head", "--out", at("words_mh.safetensors")}), 0, "multi-head on the words of"},
        {"--tokens chars", tiny_train({"--corpus", at("corpus.txt"), "--tokens", "chars", "--out", at("chars2.safetensors")}), 0, "characters of"},
        {"generate from a word model", {"generate", "--checkpoint", at("words.safetensors"), "--prompt", "the cat", "--tokens", "3"}, 0, "the cat"},
        {"a prompt word the corpus lacks", {"generate", "--checkpoint", at("words.safetensors"), "--prompt", "the zebra"}, 1, "zebra"},
        {"--tokens bytes", {"train", "--corpus", at("corpus.txt"), "--tokens", "bytes"}, 2, "--tokens needs words or chars, got 'bytes'"},
        {"--tokens without --corpus", {"train", "--tokens", "words"}, 2, "--tokens words needs --corpus FILE"},
        {"masked-token on characters", {"train", "--corpus", at("corpus.txt"), "--model", "multi-head"}, 2, "needs --tokens words"},
        {"--tokens contradicts on resume", {"train", "--resume", at("words.safetensors"), "--steps", "6", "--tokens", "chars"}, 2, "trained with word_tokens true"},
    });
    // What each flag set is what the checkpoint's run (and model) records.
    CHECK(meta(local).at("window") == "3");
    CHECK(meta(local).at("causal") == "true");  // local:W keeps a next-token model causal
    CHECK(meta(none).at("causal") == "false");
    CHECK(meta(strided).at("stride") == "2");
    CHECK(meta(knobs).at("scaled") == "false");
    CHECK(meta(knobs).at("dropout") == "0.10000000000000001");
    CHECK(meta(knobs).at("weight_decay") == "0.05");
    CHECK(meta(knobs).at("step") == "6");
    CHECK(meta(at("words.safetensors")).at("word_tokens") == "true");
    CHECK(meta(at("words_mh.safetensors")).at("kind") == "multi-head");
    CHECK(meta(qkv).at("kind") == "qkv-head");
    CHECK(meta(qkv).at("qkv_only") == "true");
    CHECK(meta(qkv).at("mask_prob") == "0.3");
    CHECK_FALSE(nn::load_checkpoint(qkv).model->named_parameters().empty());
}

TEST_CASE("tinygpt show and generate --show draw any model on any text", "[tools][tinygpt][cli][show]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), words = at("words.safetensors");
    if (!fs::exists(words)) REQUIRE(tinygpt(tiny_train({"--corpus", at("corpus.txt"), "--tokens", "words", "--out", words})).exit_code == 0);
    write_file_atomic(at("sentences.txt"), "the cat sat\n\nthe dog ran\n");
    write_file_atomic(at("blank.txt"), "\n  \n");
    write_file_atomic(at("afile"), "x");
    REQUIRE(tinygpt({"eval", "--checkpoint", ck, "--prompt", "the cat sat", "--dump-attention", at("att.npy")}).exit_code == 0);
    save_npy(at("not_attention.npy"), zeros({2, 3}));
    const auto pngs = [](const std::string& d) {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(d))
            if (e.path().extension() == ".png" && fs::file_size(e.path()) > 1000) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    };
    const std::vector<std::string> four{"attention_entropy.png", "attention_flow.png", "attention_heads.png", "attention_rollout.png"};
    run_cases({
        {"show --help", {"show", "--help"}, 0, "--from-npy F.npy"},
        {"show a prompt", {"show", "--checkpoint", ck, "--prompt", "the cat sat", "--out", at("show_prompt")}, 0, "attention_heads.svg"},
        {"show sentences", {"show", "--checkpoint", ck, "--sentences", at("sentences.txt"), "--out", at("show_lines")}, 0, "sentence_2/attention_entropy"},
        {"show a character model, a space in the prompt", {"show", "--checkpoint", at("char.safetensors"), "--prompt", "the cat", "--out", at("show_chars")}, 0, "explorer.html"},
        {"show a word-corpus model", {"show", "--checkpoint", words, "--prompt", "the cat sat", "--out", at("show_words")}, 0, "attention_flow"},
        {"show --from-npy", {"show", "--from-npy", at("att.npy"), "--out", at("show_npy")}, 0, "attention_rollout"},
        {"show --from-npy with labels", {"show", "--from-npy", at("att.npy"), "--checkpoint", ck, "--prompt", "the cat sat", "--out", at("show_npy2")}, 0, "attention_heads"},
        {"generate --show", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--tokens", "3", "--show", at("show_gen")}, 0, "generated_layer1.svg"},
        {"show without --out", {"show", "--checkpoint", ck, "--prompt", "the cat"}, 2, "--out DIR is required"},
        {"show without text", {"show", "--checkpoint", ck, "--out", at("show_x")}, 2, "give --prompt TEXT or --sentences FILE"},
        {"show with both texts", {"show", "--checkpoint", ck, "--prompt", "the", "--sentences", at("sentences.txt"), "--out", at("show_x")}, 2, "(one of them)"},
        {"show --out is a file", {"show", "--checkpoint", ck, "--prompt", "the", "--out", at("afile")}, 2, "exists and is not a directory"},
        {"show an unknown word", {"show", "--checkpoint", ck, "--prompt", "the zebra", "--out", at("show_x")}, 1, "zebra"},
        {"show blank sentences", {"show", "--checkpoint", ck, "--sentences", at("blank.txt"), "--out", at("show_x")}, 1, "has no sentences"},
        {"show --from-npy not attention", {"show", "--from-npy", at("not_attention.npy"), "--out", at("show_x")}, 1, "not attention weights [L, H, T, T]"},
        {"show --from-npy missing", {"show", "--from-npy", at("nope.npy"), "--out", at("show_x")}, 2, "nope.npy"},
        {"show --from-npy labels of another length", {"show", "--from-npy", at("att.npy"), "--checkpoint", ck, "--prompt", "the cat", "--out", at("show_x")}, 1, "expected ["},
        {"generate --show is a file", {"generate", "--checkpoint", ck, "--prompt", "the", "--show", at("afile")}, 2, "exists and is not a directory"},
        {"show --graph", {"show", "--checkpoint", ck, "--prompt", "the cat sat", "--out", at("show_graph"), "--graph"}, 0, "autograd_graph_attention.svg"},
        {"show --graph with --sentences", {"show", "--checkpoint", ck, "--sentences", at("sentences.txt"), "--out", at("show_x"), "--graph"}, 2, "--graph draws one text's graph"},
        {"show --graph with --from-npy", {"show", "--from-npy", at("att.npy"), "--out", at("show_x"), "--graph"}, 2, "give it with --prompt TEXT"},
        {"show --graph given a value", {"show", "--checkpoint", ck, "--prompt", "the cat", "--out", at("show_x"), "--graph", "yes"}, 2, "--graph is a switch and takes no value"},
        {"show --graph on one token", {"show", "--checkpoint", words, "--prompt", "the", "--out", at("show_x"), "--graph"}, 1, "needs 2 to"},
    });
    for (const char* d : {"show_prompt", "show_lines/sentence_1", "show_lines/sentence_2", "show_words", "show_npy", "show_npy2"}) {
        INFO(d);
        CHECK(pngs(at(d)) == four);
    }
    CHECK_FALSE(fs::exists(at("show_lines/sentence_3")));  // the blank line is skipped
    // One explorer page per show, holding every text: its data names them and the model.
    for (const char* d : {"show_prompt", "show_lines", "show_words", "show_npy"}) {
        INFO(d);
        CHECK(fs::file_size(at(std::string(d) + "/explorer.html")) > 10000);
    }
    const std::string lines = read_file(at("show_lines/explorer_data.json"));
    CHECK_THAT(lines, Contains("\"text\": \"the cat sat\"") || Contains("\"text\":\"the cat sat\""));
    CHECK_THAT(lines, Contains("the dog ran"));
    CHECK_THAT(lines, Contains("\"causal\": true") || Contains("\"causal\":true"));
    CHECK(pngs(at("show_gen")) == std::vector<std::string>{"generated_layer1.png"});  // the tiny model has 1 layer
    // --graph adds the graph backward() walks, one box per module and the attention op by op
    std::vector<std::string> six = four;
    six.insert(six.end(), {"autograd_graph.png", "autograd_graph_attention.png"});
    std::sort(six.begin(), six.end());
    CHECK(pngs(at("show_graph")) == six);
    CHECK_THAT(read_file(at("show_graph/autograd_graph.svg")), Contains("blocks.0.attn: 2 heads") && Contains("loss: cross-entropy"));
}

TEST_CASE("tinygpt: limits shared by trainer and loader, header bombs", "[tools][tinygpt][cli]") {
    make_fixtures();
    run_cases({
        {"--layers 65", {"train", "--layers", "65"}, 2, "--layers needs an integer in [1, 64], got '65'"},
        {"--d-model 100000", {"train", "--d-model", "100000"}, 2, "--d-model needs an integer in [1, 4096], got '100000'"},
        {"--context 65536", {"train", "--context", "65536"}, 2, "--context needs an integer in [4, 8192], got '65536'"},
        {"too many parameters together", {"train", "--d-model", "4096", "--layers", "64"}, 2, "parameters, more than the limit of 268435456"},
        {"heads do not divide d_model", {"train", "--d-model", "30", "--heads", "4"}, 2, "d_model 30 is not divisible by n_heads 4"},
        {"single-head with 4 heads", {"train", "--model", "single-head", "--heads", "4"}, 2, "single-head has 1 head, not n_heads 4"},
        {"bomb: eval", {"eval", "--checkpoint", at("bomb.safetensors"), "--prompt", "the cat"}, 1, "context 65536 is outside [1, 8192]"},
        {"bomb: generate", {"generate", "--checkpoint", at("bomb.safetensors"), "--prompt", "the cat"}, 1, "bomb.safetensors"},
        {"bomb: resume", {"train", "--resume", at("bomb.safetensors"), "--steps", "9"}, 1, "context 65536 is outside"},
    });
}

TEST_CASE("tinygpt: a header bomb fails within a small memory limit", "[tools][tinygpt][cli]") {
    make_fixtures();
    // Not under ASan: it reserves terabytes of shadow address space, so RLIMIT_AS cannot apply.
#if !defined(__SANITIZE_ADDRESS__)
    const auto r = run_program({testing::program_path("tinygpt"), "eval", "--checkpoint", at("bomb.safetensors"), "--prompt",
                                "the cat"},
                               20, std::uint64_t(512) << 20);  // 512 MiB; the claimed model is ~52 GB
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("context 65536 is outside"));
#endif
}

TEST_CASE("tinygpt: resume restores the run and never destroys a checkpoint", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), chars = at("char.safetensors");
    run_cases({
        {"finished run, no --steps", {"train", "--resume", ck}, 2, "has done all 4 steps of its run; give --steps N > 4"},
        {"--steps below the step", {"train", "--resume", ck, "--steps", "3"}, 2, "--steps 3 must exceed the step of"},
        {"--steps equal to the step", {"train", "--resume", ck, "--steps", "4"}, 2, "--steps 4 must exceed the step of"},
        {"--lr contradicts", {"train", "--resume", ck, "--steps", "6", "--lr", "0.01"}, 2, "--lr 0.01 contradicts"},
        {"--lr names the stored value", {"train", "--resume", ck, "--steps", "6", "--lr", "0.01"}, 2, "trained with lr 0.003"},
        {"--d-model contradicts", {"train", "--resume", ck, "--steps", "6", "--d-model", "32"}, 2, "--d-model 32 contradicts"},
        {"--heads contradicts", {"train", "--resume", ck, "--steps", "6", "--heads", "4"}, 2, "trained with n_heads 2"},
        {"--batch contradicts", {"train", "--resume", ck, "--steps", "6", "--batch", "8"}, 2, "trained with batch 2"},
        {"--seed contradicts", {"train", "--resume", ck, "--steps", "6", "--seed", "7"}, 2, "--seed 7 contradicts"},
        {"--model contradicts", {"train", "--resume", ck, "--steps", "6", "--model", "multi-head"}, 2, "trained with task causal"},
        {"--corpus on a grammar model", {"train", "--resume", ck, "--steps", "6", "--corpus", at("corpus.txt")}, 2, "is a causal model of the grammar"},
        {"same settings repeated are fine, a finished run still needs --steps", {"train", "--resume", ck, "--lr", "0.003"}, 2, "has done all 4 steps"},
        {"char model, same size other text", {"train", "--resume", chars, "--steps", "6", "--corpus", at("corpus_same_size.txt"), "--out", at("char_x.safetensors")}, 1, "is not the text it was trained on"},
        {"char model, a corpus with characters it never saw", {"train", "--resume", chars, "--steps", "6", "--corpus", at("corpus_other_chars.txt"), "--out", at("char_x.safetensors")}, 1, "is not the text it was trained on"},
        {"inference-only checkpoint", {"train", "--resume", at("inference.safetensors"), "--steps", "9"}, 1, "holds no training state"},
        {"negative step", {"train", "--resume", at("neg_step.safetensors"), "--steps", "9"}, 1, "step -50 is outside [0, 1000000000]"},
    });
}

TEST_CASE("tinygpt: a resumed run writes back to its own checkpoint and names its task", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string mh = at("mh_resume.safetensors");
    fs::copy_file(at("mh.safetensors"), mh, fs::copy_options::overwrite_existing);
    write_file_atomic(at("mh_resume.loss.csv"), "step,loss\ngarbage,x\n");  // a corrupt CSV is rewritten, not read
    // The default --out of a fresh run (from --model's default, causal) must not be touched.
    const fs::path causal_default = fs::path(ATTNLAB_SOURCE_DIR) / "out/checkpoints/causal_model.safetensors";
    const bool existed = fs::exists(causal_default);
    const auto stamp = existed ? fs::last_write_time(causal_default) : fs::file_time_type();
    const auto r = tinygpt({"train", "--resume", mh, "--steps", "6"});
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("tinygpt train: multi-head, seed 0, 6 steps -> " + mh));
    CHECK(nn::load_checkpoint(mh).step == 6);
    CHECK(read_file(at("mh_resume.loss.csv")).starts_with("step,loss,val_loss\n1,"));
    CHECK_THAT(read_file(at("mh_resume.loss.csv")), Contains("\n6,"));
    CHECK(fs::exists(causal_default) == existed);
    if (existed) CHECK(fs::last_write_time(causal_default) == stamp);
    // The character model resumes from its corpus under another name, if the text is the same.
    const auto moved = tinygpt({"train", "--resume", at("char.safetensors"), "--steps", "6", "--corpus", at("corpus_moved.txt"),
                                "--out", at("char_moved.safetensors")});
    INFO(moved.output);
    CHECK(moved.exit_code == 0);
    CHECK_THAT(moved.output, Contains("characters of '" + at("corpus_moved.txt") + "'"));
}

TEST_CASE("tinygpt: divergence stops the run and keeps the file at --out", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string out = at("diverge.safetensors");
    fs::copy_file(at("ck.safetensors"), out, fs::copy_options::overwrite_existing);
    const std::string before = read_file(out);
    const auto r = tinygpt(tiny_train({"--steps", "20", "--lr", "1e6", "--out", out}));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("diverged at step") && Contains("peak 1e+06") && Contains("was not written"));
    CHECK(read_file(out) == before);
    run_cases({
        {"NaN weights: generate", {"generate", "--checkpoint", at("nan.safetensors"), "--prompt", "the cat"}, 1, "tensor 'head.weight' holds nan at element 0"},
        {"NaN weights: eval", {"eval", "--checkpoint", at("nan.safetensors"), "--prompt", "the cat"}, 1, "holds nan"},
    });
}

TEST_CASE("tinygpt: files it reads and writes, and messages", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors");
    const std::vector<std::string> eval{"eval", "--checkpoint", ck, "--prompt", "the cat sat"};
    auto with = [](std::vector<std::string> a, const std::vector<std::string>& more) {
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };
    run_cases({
        {"checkpoint is a directory", {"eval", "--checkpoint", at("adir"), "--prompt", "the"}, 2, "--checkpoint '" + at("adir") + "' is a directory"},
        {"checkpoint is a FIFO (must not hang)", {"eval", "--checkpoint", at("fifo"), "--prompt", "the"}, 2, "is not a regular file"},
        {"checkpoint is /proc/self/status", {"generate", "--checkpoint", "/proc/self/status", "--prompt", "the"}, 2, "'/proc/self/status' is empty"},
        {"checkpoint missing", {"eval", "--checkpoint", at("nope.safetensors"), "--prompt", "the"}, 2, "No such file or directory"},
        {"checkpoint is empty", {"eval", "--checkpoint", at("empty.txt"), "--prompt", "the"}, 2, "is empty"},
        {"checkpoint is not one", {"eval", "--checkpoint", at("corpus.txt"), "--prompt", "the"}, 1, "corpus.txt"},
        {"resume from a directory", {"train", "--resume", at("adir")}, 2, "--resume '" + at("adir") + "' is a directory"},
        {"resume from a FIFO", {"train", "--resume", at("fifo")}, 2, "is not a regular file"},
        {"corpus is a directory", {"train", "--corpus", at("adir")}, 2, "--corpus '" + at("adir") + "' is a directory"},
        {"corpus is a FIFO", {"train", "--corpus", at("fifo")}, 2, "is not a regular file"},
        {"corpus is /proc/self/status", {"train", "--corpus", "/proc/self/status"}, 2, "is empty"},
        {"corpus is empty", {"train", "--corpus", at("empty.txt")}, 2, "is empty"},
        {"corpus with --model multi-head", {"train", "--corpus", at("corpus.txt"), "--model", "multi-head"}, 2, "--model multi-head (masked-token) needs --tokens words"},
        {"corpus with --model causal is the char model", tiny_train({"--corpus", at("corpus.txt"), "--model", "causal", "--out", at("char_causal.safetensors")}), 0, "characters of"},
        {"--out empty", {"train", "--out", ""}, 2, "--out needs a file path, got ''"},
        {"--out is a directory", {"train", "--out", at("adir")}, 2, "--out '" + at("adir") + "' is a directory"},
        {"--out is /dev/null", {"train", "--out", "/dev/null"}, 2, "exists and is not a regular file"},
        {"--out is the corpus", tiny_train({"--corpus", at("corpus.txt"), "--out", at("corpus.txt")}), 2, "is the corpus"},
        {"both dumps one path", with(eval, {"--dump-logits", at("d.npy"), "--dump-attention", at("d.npy")}), 2, "are the same file"},
        {"both dumps one file, two spellings", with(eval, {"--dump-logits", at("d.npy"), "--dump-attention", dir() + "/./adir/../d.npy"}), 2, "are the same file"},
        {"dump over the checkpoint", with(eval, {"--dump-logits", ck}), 2, "is the checkpoint; it would be overwritten"},
        {"dump into a directory", with(eval, {"--dump-attention", at("adir")}), 2, "is a directory"},
        {"dump over /dev/null", with(eval, {"--dump-logits", "/dev/null"}), 2, "exists and is not a regular file"},
        {"two dumps", with(eval, {"--dump-logits", at("l.npy"), "--dump-attention", at("a.npy")}), 0, "mean loss"},
        {"temperature 1e-320 is tiny but valid", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--temperature", "1e-320"}, 0, "the cat"},
        {"temperature -1", {"generate", "--checkpoint", ck, "--prompt", "the", "--temperature", "-1"}, 2, "--temperature '-1': must be between 0 and 1000"},
        {"temperature nan", {"generate", "--checkpoint", ck, "--prompt", "the", "--temperature", "nan"}, 2, "--temperature 'nan': not a finite number"},
        {"temperature 1e-400 would be 0", {"generate", "--checkpoint", ck, "--prompt", "the", "--temperature", "1e-400"}, 2, "--temperature '1e-400': not a finite number"},
        {"generate from a masked-token model", {"generate", "--checkpoint", at("mh.safetensors"), "--prompt", "the"}, 1, "is a bidirectional (multi-head) model"},
        {"unknown word", {"generate", "--checkpoint", ck, "--prompt", "the zebra"}, 1, "unknown word"},
        {"character outside the vocabulary", {"generate", "--checkpoint", at("char.safetensors"), "--prompt", "the Zq"}, 1, "is not in the vocabulary of the checkpoint"},
    });
}

TEST_CASE("tinygpt generate --no-kv-cache: the switch recomputes the prefix, the text is the same", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::vector<std::string> args{"generate", "--checkpoint", at("ck.safetensors"), "--prompt", "the cat", "--tokens", "5"};
    std::vector<std::string> uncached = args;
    uncached.push_back("--no-kv-cache");
    const testing::ProgramRun a = tinygpt(args), b = tinygpt(uncached);
    INFO(a.output << "\n" << b.output);
    REQUIRE(a.exit_code == 0);
    REQUIRE(b.exit_code == 0);
    CHECK_THAT(a.output, Contains("(KV cache)"));
    CHECK_THAT(b.output, Contains("(no cache)"));
    // stdout (the text) and stderr (the timing) interleave in either order: compare the text's line.
    const auto text = [](const std::string& out) {
        const std::size_t at_text = out.find("the cat");
        return at_text == std::string::npos ? std::string() : out.substr(at_text, out.find('\n', at_text) - at_text);
    };
    CHECK(text(a.output).size() > std::string("the cat").size());
    CHECK(text(a.output) == text(b.output));
}
