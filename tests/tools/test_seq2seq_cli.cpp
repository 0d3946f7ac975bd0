// test_seq2seq_cli.cpp — `seq2seq train|eval|show` as a user meets it: each case runs
// build/seq2seq as a process and checks its exit status (0 ok, 1 a file it cannot use,
// 2 a bad flag or value) and what it says. One tiny model (hidden 8, sources of 4-5 digits,
// 60 steps) is trained once into build/test_tmp/seq2seq/ and reused.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <regex>

#include "data/reversal.hpp"
#include "nn/optim.hpp"
#include "io/safetensors.hpp"
#include "nn/seq2seq_checkpoint.hpp"
#include "autograd/node.hpp"
#include "io/fileio.hpp"
#include "tensor/ops.hpp"
#include "tests/support/run_program.hpp"

using namespace attnlab;
using attnlab::testing::run_program;
using Catch::Contains;

namespace {

namespace fs = std::filesystem;

std::string at(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/seq2seq/" + name; }

testing::ProgramRun seq2seq(std::vector<std::string> args) {
    args.insert(args.begin(), testing::program_path("seq2seq"));
    return run_program(args, 60);
}

// The number after `label` in a program's output ("cross-entropy 0.123 ..." -> "0.123").
std::string number_after(const std::string& text, const std::string& label) {
    std::smatch m;
    REQUIRE(std::regex_search(text, m, std::regex(label + " ([-0-9.e]+)")));
    return m[1];
}

// The trained model, and its train output (it ends with the held-out report).
const std::string& trained() {
    static std::string output;
    if (!output.empty()) return output;
    fs::remove_all(at(""));
    fs::create_directories(at(""));
    const testing::ProgramRun r = seq2seq({"train", "--steps", "60", "--hidden", "8", "--length", "5", "--batch", "16",
                                          "--per-length", "10", "--seed", "3", "--out", at("m.safetensors")});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    output = r.output;
    return output;
}

// m.safetensors rewritten: metadata replaced, the first weight of out.weight set to `poison`, a tensor dropped.
void rewrite(const std::string& to, const std::map<std::string, std::string>& meta, float poison = 0, const std::string& drop = "") {
    SafetensorsFile f = load_safetensors(at("m.safetensors"));
    for (const auto& [k, v] : meta) f.metadata[k] = v;
    std::vector<NamedTensor> kept;
    for (auto& t : f.tensors) {
        if (t.name == "out.weight" && poison != 0) t.tensor.data_ptr<float>()[0] = poison;
        if (t.name != drop) kept.push_back(t);
    }
    save_safetensors(to, kept, f.metadata);
}

struct Case {
    const char* what;
    std::vector<std::string> args;
    int exit_code;
    std::string says;
};

void run_cases(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        const testing::ProgramRun r = seq2seq(c.args);
        INFO(c.what << "\n  output: " << r.output);
        CHECK_FALSE(r.timed_out);
        CHECK(r.signal == 0);
        CHECK(r.exit_code == c.exit_code);
        CHECK_THAT(r.output, Contains(c.says));
    }
}

}  // namespace

TEST_CASE("seq2seq: train, then eval reads back the same model", "[tools][seq2seq][cli]") {
    const std::string& train_out = trained();
    CHECK_THAT(train_out, Contains("reversal of 4-5 digits, GRU hidden 8, additive attention, softmax"));
    const testing::ProgramRun r = seq2seq({"eval", "--checkpoint", at("m.safetensors"), "--per-length", "10"});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("sources of 4-5 digits") && Contains("held-out (20 sequences)"));
    // The held-out loss printed to 9 digits after training and after loading: bit-for-bit weights.
    CHECK(number_after(r.output, "cross-entropy") == number_after(train_out, "cross-entropy"));
    CHECK(number_after(r.output, "exact-sequence accuracy") == number_after(train_out, "exact-sequence accuracy"));
    CHECK(std::regex_search(r.output, std::regex("\n +4 +[01]\\.[0-9]{4}\n +5 +[01]\\.[0-9]{4}\n")));
    // Testing longer sources than trained on: by-length rows up to 7.
    const testing::ProgramRun longer = seq2seq({"eval", "--checkpoint", at("m.safetensors"), "--per-length", "5", "--length", "7"});
    CHECK(longer.exit_code == 0);
    CHECK(std::regex_search(longer.output, std::regex("\n +7 +[01]\\.[0-9]{4}\n")));
}

TEST_CASE("seq2seq: a checkpoint round-trips bit for bit", "[tools][seq2seq][cli]") {
    trained();
    nn::LoadedSeq2Seq a = nn::load_seq2seq(at("m.safetensors"));
    CHECK(a.extra.at("max_len") == "5");
    CHECK(a.extra.at("steps") == "60");
    REQUIRE(a.has_training_state);
    CHECK(a.step == 60);
    CHECK(a.optimizer_state.size() == 2 * a.model->named_parameters().size());  // Adam: exp_avg and exp_avg_sq
    nn::Adam opt(a.model->named_parameters(), 0.003);
    opt.load_state(a.optimizer_state);
    const nn::TrainingState state{&opt, a.step, a.data_rng, {}};
    nn::save_seq2seq(at("again.safetensors"), *a.model, a.extra, &state);
    CHECK(read_file(at("again.safetensors")) == read_file(at("m.safetensors")));
    nn::LoadedSeq2Seq b = nn::load_seq2seq(at("again.safetensors"));
    const data::ReversalBatch batch = data::make_reversal_batch({{3, 1, 4, 1, 5}, {2, 7, 1, 8}});
    const Tensor la = a.model->forward(batch.src, batch.lengths, batch.tgt_in).logits;
    const Tensor lb = b.model->forward(batch.src, batch.lengths, batch.tgt_in).logits;
    REQUIRE(la.shape() == lb.shape());
    CHECK(std::memcmp(la.contiguous().data_ptr<float>(), lb.contiguous().data_ptr<float>(),
                      static_cast<std::size_t>(la.numel()) * sizeof(float)) == 0);
}

TEST_CASE("seq2seq: show decodes the digits and draws the alignment", "[tools][seq2seq][cli]") {
    trained();
    fs::remove_all(at("show"));
    const testing::ProgramRun r = seq2seq({"show", "--checkpoint", at("m.safetensors"), "--digits", "3 1 4 1 5", "--out", at("show")});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // What it printed is what the model decodes here.
    nn::LoadedSeq2Seq m = nn::load_seq2seq(at("m.safetensors"));
    const data::ReversalBatch batch = data::make_reversal_batch({{3, 1, 4, 1, 5}});
    const nn::GreedyOutput g = m.model->greedy(batch.src, batch.lengths, 6, data::kReversalBos, data::kReversalEos);
    const bool is_reversal = g.tokens[0] == data::Digits{5, 1, 4, 1, 3, data::kReversalEos};
    CHECK_THAT(r.output, Contains("source   3 1 4 1 5\noutput   " + data::to_string(g.tokens[0]) + "\nreversal " +
                                  (is_reversal ? "yes" : "no")));
    CHECK(fs::file_size(at("show/alignment.svg")) > 1000);
    CHECK(fs::file_size(at("show/alignment.png")) > 1000);
}

TEST_CASE("seq2seq: help, bad flags and bad values", "[tools][seq2seq][cli]") {
    trained();
    const std::string ck = at("m.safetensors");
    rewrite(at("nan.safetensors"), {}, NAN);
    rewrite(at("transformer.safetensors"), {{"format", "attnlab-checkpoint"}});
    rewrite(at("huge.safetensors"), {{"hidden", "100000"}});
    rewrite(at("odd.safetensors"), {{"hidden", "9"}});
    rewrite(at("missing.safetensors"), {}, 0, "decoder.bias_hh");
    rewrite(at("wrong_shape.safetensors"), {{"hidden", "16"}});
    rewrite(at("long.safetensors"), {{"max_len", "99"}});
    rewrite(at("no_task.safetensors"), {{"min_len", "four"}});
    const std::string bytes = read_file(ck);
    write_file_atomic(at("truncated.safetensors"), bytes.substr(0, bytes.size() / 2));
    write_file_atomic(at("short.safetensors"), bytes.substr(0, 5));
    run_cases({
        {"--help", {"--help"}, 0, "commands:\n  train"},
        {"no command", {}, 2, "which command?"},
        {"unknown command", {"fly"}, 2, "unknown command 'fly'"},
        {"train --help", {"train", "--help"}, 0, "usage: seq2seq train"},
        {"eval --help", {"eval", "--help"}, 0, "usage: seq2seq eval"},
        {"show --help", {"show", "--help"}, 0, "--digits \"D D ...\""},
        {"unknown flag", {"train", "--bogus", "1"}, 2, "unknown flag '--bogus'"},
        {"unknown flag (show)", {"show", "--heads", "2"}, 2, "unknown flag '--heads'"},
        {"odd hidden", {"train", "--hidden", "7"}, 2, "--hidden '7': must be even"},
        {"unknown score", {"train", "--score", "cosine"}, 2, "--score 'cosine': must be one of dot, scaled_dot"},
        {"topk 0", {"train", "--normalizer", "topk:0"}, 2, "--normalizer 'topk:0': topk needs K >= 1"},
        {"bad normalizer", {"train", "--normalizer", "topk:x"}, 2, "--normalizer 'topk:x'"},
        {"attention maybe", {"train", "--attention", "maybe"}, 2, "--attention 'maybe': must be one of on, off"},
        {"length 31", {"train", "--length", "31"}, 2, "--length '31': must be between 4 and 30"},
        {"steps 0", {"train", "--steps", "0"}, 2, "--steps '0': must be between 1"},
        {"lr nan", {"train", "--lr", "nan"}, 2, "--lr 'nan': not a finite number"},
        {"eval: no checkpoint", {"eval"}, 2, "--checkpoint '': is required"},
        {"eval: length below the trained", {"eval", "--checkpoint", ck, "--length", "2"}, 2, "at least the shortest trained source, 4"},
        {"show: a letter", {"show", "--checkpoint", ck, "--digits", "3 1 x"}, 2, "unknown word 'x'; the vocabulary is 0, 1, 2"},
        {"show: a minus", {"show", "--checkpoint", ck, "--digits", "-3"}, 2, "unknown word '-'; the vocabulary is 0,"},
        {"show: no digits", {"show", "--checkpoint", ck, "--digits", " "}, 2, "no digits"},
        {"show: too long", {"show", "--checkpoint", ck, "--digits", "1 2 3 4 5 6"}, 2, "6 digits; this model was trained on sources of at most 5"},
        {"missing file", {"eval", "--checkpoint", at("nope.safetensors")}, 1, "nope.safetensors"},
        {"truncated", {"eval", "--checkpoint", at("truncated.safetensors")}, 1, "truncated.safetensors"},
        {"5 bytes", {"show", "--checkpoint", at("short.safetensors")}, 1, "short.safetensors"},
        {"a transformer checkpoint", {"eval", "--checkpoint", at("transformer.safetensors")}, 1,
         "is not a seq2seq checkpoint (format 'attnlab-checkpoint'"},
        {"nan weight", {"eval", "--checkpoint", at("nan.safetensors")}, 1, "tensor 'out.weight' holds nan at element 0"},
        {"huge hidden", {"eval", "--checkpoint", at("huge.safetensors")}, 1, "hidden is 100000, outside [2, 2048]"},
        {"odd hidden in file", {"eval", "--checkpoint", at("odd.safetensors")}, 1, "hidden is 9, not even"},
        {"missing tensor", {"eval", "--checkpoint", at("missing.safetensors")}, 1, "decoder.bias_hh"},
        {"shapes of another width", {"eval", "--checkpoint", at("wrong_shape.safetensors")}, 1, "is float32 [12, 32], the configuration (hidden 16, embed 32, vocab 13) needs float32 [24, 32]"},
        {"task beyond 30", {"eval", "--checkpoint", at("long.safetensors")}, 1, "metadata 'max_len' is '99'"},
        {"task not a number", {"show", "--checkpoint", at("no_task.safetensors")}, 1, "metadata 'min_len' is 'four'"},
    });
}

TEST_CASE("seq2seq checkpoint: the parameter list matches the model for every variant", "[nn][seq2seq][checkpoint]") {
    for (bool attention : {true, false})
        for (auto kind : {nn::ScoreKind::dot, nn::ScoreKind::scaled_dot, nn::ScoreKind::additive, nn::ScoreKind::multiplicative}) {
            nn::Seq2SeqConfig c{.vocab = 13, .embed = 6, .hidden = 10, .attn = 7, .attention = attention, .scoring = kind};
            Generator gen(1);
            const nn::Seq2Seq model(c, gen);
            const auto specs = nn::seq2seq_parameter_specs(c);
            const auto params = model.named_parameters();
            INFO(nn::score_kind_flag(kind) << (attention ? " with" : " without") << " attention");
            REQUIRE(specs.size() == params.size());
            for (std::size_t i = 0; i < specs.size(); ++i) {
                CHECK(specs[i].name == params[i].name);
                CHECK(specs[i].shape == params[i].tensor.shape());
            }
        }
}

TEST_CASE("seq2seq train --resume: N steps, saved, then M more is byte for byte the run of N + M", "[tools][seq2seq][cli][resume]") {
    fs::create_directories(at(""));
    const std::vector<std::string> run{"train", "--steps", "12", "--hidden", "8", "--length", "5", "--batch", "8", "--warmup", "3",
                                       "--per-length", "4", "--seed", "5"};
    const auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = run;
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    };
    const testing::ProgramRun whole = seq2seq(with({"--out", at("whole.safetensors")}));
    REQUIRE(whole.exit_code == 0);
    const testing::ProgramRun first = seq2seq(with({"--stop-after", "5", "--out", at("part.safetensors")}));
    INFO(first.output);
    REQUIRE(first.exit_code == 0);
    CHECK_THAT(first.output, Contains("(step 5 of 12)"));
    CHECK(nn::load_seq2seq(at("part.safetensors")).step == 5);
    const testing::ProgramRun rest = seq2seq({"train", "--resume", at("part.safetensors"), "--out", at("resumed.safetensors"), "--per-length", "4"});
    INFO(rest.output);
    REQUIRE(rest.exit_code == 0);
    CHECK_THAT(rest.output, Contains("resuming '" + at("part.safetensors") + "' at step 5 of 12"));
    CHECK(read_file(at("resumed.safetensors")) == read_file(at("whole.safetensors")));
    // The held-out report of both runs, to 9 digits, is the same too.
    CHECK(number_after(rest.output, "cross-entropy") == number_after(whole.output, "cross-entropy"));
    // Without the optimizer's moments the continuation differs: the test above can fail.
    {
        nn::LoadedSeq2Seq p = nn::load_seq2seq(at("part.safetensors"));
        nn::Adam fresh(p.model->named_parameters(), 0.003);
        fresh.load_state(p.optimizer_state);
        NoGradGuard no_grad;
        for (const auto& s : fresh.state()) fill_(s.tensor, 0.0);
        const nn::TrainingState zeroed{&fresh, p.step, p.data_rng, {}};
        nn::save_seq2seq(at("zeroed.safetensors"), *p.model, p.extra, &zeroed);
    }
    REQUIRE(seq2seq({"train", "--resume", at("zeroed.safetensors"), "--per-length", "4"}).exit_code == 0);
    CHECK(read_file(at("zeroed.safetensors")) != read_file(at("whole.safetensors")));
    // Extending a finished run: the resumed file at step 12 trains on to 14 in place.
    fs::copy_file(at("whole.safetensors"), at("extend.safetensors"), fs::copy_options::overwrite_existing);
    const testing::ProgramRun more = seq2seq({"train", "--resume", at("extend.safetensors"), "--steps", "14", "--per-length", "4"});
    INFO(more.output);
    CHECK(more.exit_code == 0);
    CHECK(nn::load_seq2seq(at("extend.safetensors")).step == 14);
}

TEST_CASE("seq2seq train --resume: hostile and mismatched files are refused by name", "[tools][seq2seq][cli][resume]") {
    trained();
    const std::string ck = at("m.safetensors");
    // Hostile training state: each file is m.safetensors with one thing broken.
    const auto edit = [&](const std::string& to, const std::function<void(SafetensorsFile&)>& change) {
        SafetensorsFile f = load_safetensors(ck);
        change(f);
        save_safetensors(at(to), f.tensors, f.metadata);
    };
    edit("opt_nan.safetensors", [](SafetensorsFile& f) {
        for (auto& t : f.tensors)
            if (t.name == "optim.exp_avg.out.weight") t.tensor.data_ptr<float>()[2] = NAN;
    });
    edit("opt_shape.safetensors", [](SafetensorsFile& f) {
        for (auto& t : f.tensors)
            if (t.name == "optim.exp_avg_sq.out.bias") t.tensor = zeros({3});
    });
    edit("opt_partial.safetensors", [](SafetensorsFile& f) {
        std::erase_if(f.tensors, [](const NamedTensor& t) { return t.name == "optim.exp_avg_sq.out.bias"; });
    });
    edit("opt_orphan.safetensors", [](SafetensorsFile& f) {
        for (auto& t : f.tensors)
            if (t.name == "optim.exp_avg.out.bias") t.name = "optim.exp_avg.out.nothing";
    });
    edit("opt_momentum.safetensors", [](SafetensorsFile& f) {
        for (auto& t : f.tensors)
            if (t.name.starts_with("optim.exp_avg_sq.")) t.name = "optim.momentum." + t.name.substr(17);
    });
    edit("opt_none.safetensors", [](SafetensorsFile& f) {
        std::erase_if(f.tensors, [](const NamedTensor& t) { return t.name.starts_with("optim."); });
    });
    edit("opt_one_kind.safetensors", [](SafetensorsFile& f) {
        std::erase_if(f.tensors, [](const NamedTensor& t) { return t.name.starts_with("optim.exp_avg_sq."); });
    });
    edit("attention_yes.safetensors", [](SafetensorsFile& f) { f.metadata["attention"] = "yes"; });
    edit("no_step.safetensors", [](SafetensorsFile& f) { f.metadata.erase("step"); });
    edit("step_zero.safetensors", [](SafetensorsFile& f) { f.metadata["step"] = "0"; });
    edit("step_neg.safetensors", [](SafetensorsFile& f) { f.metadata["step"] = "-4"; });
    edit("rng_bad.safetensors", [](SafetensorsFile& f) { f.metadata["data_rng_2"] = "xyz"; });
    edit("v1_with_state.safetensors", [](SafetensorsFile& f) { f.metadata["format_version"] = "1"; });
    edit("no_batch.safetensors", [](SafetensorsFile& f) { f.metadata.erase("batch"); });
    edit("lr_inf.safetensors", [](SafetensorsFile& f) { f.metadata["lr"] = "inf"; });
    {  // saved for inference: the weights only
        nn::LoadedSeq2Seq m = nn::load_seq2seq(ck);
        nn::save_seq2seq(at("inference.safetensors"), *m.model, m.extra);
    }
    const std::string before = read_file(ck);
    run_cases({
        {"resume --help", {"train", "--help"}, 0, "--resume PATH"},
        {"missing file", {"train", "--resume", at("nope.safetensors")}, 1, "nope.safetensors"},
        {"empty path", {"train", "--resume", ""}, 2, "--resume '': an empty path names no file or folder"},
        {"inference only", {"train", "--resume", at("inference.safetensors"), "--steps", "70"}, 1, "holds no training state"},
        {"nan moment", {"train", "--resume", at("opt_nan.safetensors"), "--steps", "70"}, 1, "optimizer state 'optim.exp_avg.out.weight' holds nan at element 2"},
        {"moment of another shape", {"train", "--resume", at("opt_shape.safetensors"), "--steps", "70"}, 1, "'optim.exp_avg_sq.out.bias' is float32 [3], its parameter needs float32 [13]"},
        {"a moment missing", {"train", "--resume", at("opt_partial.safetensors"), "--steps", "70"}, 1, "optimizer state 'exp_avg_sq' covers"},
        {"a moment of no parameter", {"train", "--resume", at("opt_orphan.safetensors"), "--steps", "70"}, 1, "'optim.exp_avg.out.nothing' belongs to no parameter"},
        {"not Adam's state", {"train", "--resume", at("opt_momentum.safetensors"), "--steps", "70"}, 1, "optimizer state 'optim.momentum.src_emb.weight' is no Adam buffer"},
        {"a step without optimizer state", {"train", "--resume", at("opt_none.safetensors"), "--steps", "70"}, 1, "has a 'step' but no optimizer state"},
        {"one moment of two", {"train", "--resume", at("opt_one_kind.safetensors"), "--steps", "70"}, 1, "optimizer state 'exp_avg_sq' is missing (the file has exp_avg)"},
        {"attention yes", {"train", "--resume", at("attention_yes.safetensors"), "--steps", "70"}, 1, "metadata 'attention' is 'yes', not true or false"},
        {"state without a step", {"train", "--resume", at("no_step.safetensors"), "--steps", "70"}, 1, "has optimizer state but no 'step'"},
        {"step 0", {"train", "--resume", at("step_zero.safetensors"), "--steps", "70"}, 1, "step 0 is outside [1, 1000000000]"},
        {"negative step", {"train", "--resume", at("step_neg.safetensors"), "--steps", "70"}, 1, "metadata 'step' is '-4'"},
        {"generator state not hex", {"train", "--resume", at("rng_bad.safetensors"), "--steps", "70"}, 1, "data_rng_2 is 'xyz', not 16 hex digits"},
        {"version 1 with state", {"train", "--resume", at("v1_with_state.safetensors"), "--steps", "70"}, 1, "is not a parameter of this model"},
        {"run setting missing", {"train", "--resume", at("no_batch.safetensors"), "--steps", "70"}, 1, "run setting 'batch' is missing"},
        {"run setting lr inf", {"train", "--resume", at("lr_inf.safetensors"), "--steps", "70"}, 1, "run setting 'lr' is missing or outside"},
        {"finished, no --steps", {"train", "--resume", ck}, 2, "has done all 60 steps of its run; give --steps N > 60"},
        {"--steps not beyond", {"train", "--resume", ck, "--steps", "60"}, 2, "--steps '60': must exceed the step of"},
        {"--hidden contradicts", {"train", "--resume", ck, "--steps", "70", "--hidden", "16"}, 2, "--hidden '16': contradicts"},
        {"--lr contradicts, naming the stored", {"train", "--resume", ck, "--steps", "70", "--lr", "0.01"}, 2, "trained with lr 0.003"},
        {"--score contradicts", {"train", "--resume", ck, "--steps", "70", "--score", "dot"}, 2, "trained with score additive"},
        {"--seed contradicts", {"train", "--resume", ck, "--steps", "70", "--seed", "4"}, 2, "trained with seed 3"},
        {"--stop-after before the step", {"train", "--resume", ck, "--steps", "70", "--stop-after", "50"}, 2, "--stop-after '50': must be after the resumed step 60"},
        {"--stop-after beyond --steps", {"train", "--steps", "5", "--stop-after", "6"}, 2, "--stop-after '6': must be at most --steps 5"},
    });
    CHECK(read_file(ck) == before);  // no refused resume touched the checkpoint
}
