// test_phase_cli.cpp — the five phase programs as a learner runs them: every flag with a
// good value (its effect read back from the metrics.json the run recorded) and a bad one
// (exit status 2 and a message naming the flag and the value, before any work is done).
// The good runs use tiny checkpoints trained here (d_model 16, 1 layer, 5 steps) and small
// step counts, and write to a temporary --out; the defaults are checked against main's
// numbers by build/metrics_reference (make check-metrics) after make all.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <sstream>
#include <tuple>
#include <unistd.h>

#include "training/train.hpp"
#include "nn/checkpoint.hpp"
#include "io/fileio.hpp"
#include "io/json.hpp"
#include "tests/support/run_program.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

// The phase program of this build configuration, run with `args`; 5 minutes at most.
testing::ProgramRun spawn(const std::string& program, std::vector<std::string> args) {
    args.insert(args.begin(), testing::program_path(program));
    return testing::run_program(args, 300);
}

// `c`'s task on `c`'s data, as a tiny model (d_model 16, n_heads, 1 layer, context 16, 5 steps
// of 4 rows), written to `out`; returns `out`.
std::string train_tiny(lab::TrainConfig c, const fs::path& out, std::int64_t n_heads = 2) {
    c.steps = 5, c.d_model = 16, c.n_heads = n_heads, c.n_layers = 1, c.context = 16, c.batch = 4, c.warmup = 1;
    c.eval_every = 5, c.val_batches = 1, c.progress = lab::TrainConfig::Progress::quiet, c.out = out.string();
    lab::train(c);
    return c.out;
}

// A corpus file in `dir` (created): `line` 30 times.
std::string write_corpus(const fs::path& dir, const std::string& line) {
    fs::create_directories(dir);
    std::string text;
    for (int i = 0; i < 30; ++i) text += line;
    write_file_atomic((dir / "corpus.txt").string(), text);
    return (dir / "corpus.txt").string();
}

// A tiny model of the corpus file: `task` on its words, or (words false) the char task on its characters.
std::string tiny_corpus_model(const std::string& corpus, lab::Task task, bool words, const fs::path& out,
                              std::int64_t n_heads = 2) {
    lab::TrainConfig c;
    c.task = task, c.word_tokens = words, c.corpus = corpus;
    return train_tiny(c, out, n_heads);
}

// A temporary folder with three tiny checkpoints, made once and removed at exit.
struct Fixture {
    fs::path dir = fs::temp_directory_path() / ("attnlab_phase_cli_" + std::to_string(::getpid()));
    Fixture() {
        fs::create_directories(dir);
        for (const lab::Task task : {lab::Task::causal, lab::Task::single_head, lab::Task::multi_head}) {
            const std::string name = lab::info(task).model_name;
            train_tiny(lab::standard_config(task), dir / (name + ".safetensors"), name == "single_head_model" ? 1 : 2);
        }
    }
    ~Fixture() { fs::remove_all(dir); }
    std::string ckpt(const std::string& name) const { return (dir / (name + ".safetensors")).string(); }
    std::string out(const std::string& name) const { return (dir / name).string(); }
};
const Fixture& fixture() {
    static const Fixture f;
    return f;
}

// Exit 2, and a message that names the flag and the value.
void check_rejected(const std::string& program, std::vector<std::string> args, const std::string& flag,
                    const std::string& value, const std::string& reason = "") {
    const auto r = spawn(program, args);
    INFO(program << " output:\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(flag) && Catch::Contains(value) && Catch::Contains(reason));
}

// ---- the phases as tables of contents --------------------------------------------------------
// A step is its number and an optional letter ("4", "4b"); "4" < "4b" < "5".
using Step = std::pair<int, std::string>;

// The steps main() names, in its order: each call to sectionN[x]_..., sectionsN_M_... (from N to
// every step numbered M) or sectionN_M_... (the same), with or without a namespace.
struct Call {
    std::string name;
    Step first, last;
};
std::vector<Call> steps_main_calls(const std::string& source) {
    const std::size_t at = source.find("int main(");
    REQUIRE(at != std::string::npos);
    const std::string body = source.substr(at);
    std::vector<Call> calls;
    const std::regex call(R"(\bsections?(\d+)([a-z]?)(?:_(\d+)([a-z]?))?_\w*\()");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), call); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        Call c{m.str(0), {std::stoi(m.str(1)), m.str(2)}, {}};
        c.last = m[3].matched ? Step{std::stoi(m.str(3)), m.str(4).empty() ? "~" : m.str(4)} : Step{c.first.first, "~"};
        if (!m[3].matched && !c.first.second.empty()) c.last = c.first;  // section4b_...: step 4b only
        calls.push_back(c);
    }
    return calls;
}

// The step headings a phase printed, in order: "=== 4b. ..." or "4b. Capitalised ..." at the start of a line.
std::vector<Step> printed_steps(const std::string& output) {
    std::vector<Step> steps;
    const std::regex heading(R"(^(?:=== )?(\d+)([a-z]?)\. [A-Z])");
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_search(line, m, heading)) steps.push_back({std::stoi(m.str(1)), m.str(2)});
    }
    return steps;
}

std::string step_str(const Step& s) { return std::to_string(s.first) + s.second; }

// Empty when every printed step comes from the call of main() that names it, in main()'s order,
// never going back (one step may print two headings, as a skipped step 8 does); else what is out of place.
std::string steps_out_of_order(const std::vector<Call>& calls, const std::vector<Step>& printed) {
    for (std::size_t i = 1; i < calls.size(); ++i)
        if (calls[i].first < calls[i - 1].first) return "main() calls " + calls[i].name + " after " + calls[i - 1].name;
    if (printed.empty()) return "no step headings printed";
    std::size_t c = 0;
    for (std::size_t i = 0; i < printed.size(); ++i) {
        const Step& h = printed[i];
        if (i > 0 && h < printed[i - 1]) return "step " + step_str(h) + " printed after step " + step_str(printed[i - 1]);
        while (c + 1 < calls.size() && calls[c + 1].first <= h) ++c;
        if (c >= calls.size() || h < calls[c].first || calls[c].last < h)
            return "step " + step_str(h) + " printed, but main() has no section named for it" +
                   (c < calls.size() ? " (nearest: " + calls[c].name + ")" : std::string());
    }
    return "";
}

void check_steps_follow_main(const std::string& program, const std::string& output) {
    const std::string source = read_file(std::string(ATTNLAB_SOURCE_DIR) + "/phases/" + program + ".cpp");
    const std::vector<Step> printed = printed_steps(output);
    std::string headings;
    for (const Step& h : printed) headings += step_str(h) + " ";
    INFO(program << " printed the steps " << headings);
    CHECK(steps_out_of_order(steps_main_calls(source), printed) == "");
}

// Every number a leaf of `node` holds, outside its "headlines" object.
void recorded_numbers(const Json& node, std::vector<Json>& out) {
    if (node.is_object()) {
        for (const auto& [key, value] : node.as_object())
            if (key != "headlines") recorded_numbers(value, out);
    } else if (node.is_array()) {
        for (const Json& item : node.as_array()) recorded_numbers(item, out);
    } else if (node.is_number()) {
        out.push_back(node);
    }
}

// A headline (lab::headline) is a number the phase's tables recorded, not a second computation of it.
void check_headlines_are_recorded(const Json& m) {
    const Json* headlines = m.find("headlines");
    if (headlines == nullptr) return;  // a run that skips every headlined step
    std::vector<Json> numbers;
    recorded_numbers(m, numbers);
    for (const auto& [key, h] : headlines->as_object()) {
        INFO("headline " << key << " = " << to_json(h.at("value")));
        CHECK(std::find(numbers.begin(), numbers.end(), h.at("value")) != numbers.end());
    }
}

Json run_ok(const std::string& program, const std::vector<std::string>& args, const std::string& out, int phase,
            std::string* output = nullptr) {
    const auto r = spawn(program, args);
    INFO(program << " output:\n" << r.output);
    REQUIRE(r.exit_code == 0);
    check_steps_follow_main(program, r.output);  // every good run: its headings follow main()'s order
    if (output) *output = r.output;
    const Json m = load_json(out + "/phase" + std::to_string(phase) + "/metrics.json");
    check_headlines_are_recorded(m);  // and its headlines are numbers its tables recorded
    return m;
}

std::vector<std::string> strings(const Json& a) {
    std::vector<std::string> out;
    for (const Json& s : a.as_array()) out.push_back(s.as_string());
    return out;
}

}  // namespace

TEST_CASE("every phase answers --help with its flags, and refuses an unknown flag", "[phases][cli]") {
    for (const std::string p :
         {"phase1_single_head", "phase2_multi_head", "phase3_visualization", "phase4_causal", "phase5_seq2seq", "phase6_inside"}) {
        const auto help = spawn(p, {"--help"});
        INFO(p << ":\n" << help.output);
        CHECK(help.exit_code == 0);
        CHECK_THAT(help.output, Catch::Contains("--seed N") && Catch::Contains("--out DIR") && Catch::Contains("(default: "));
        check_rejected(p, {"--no-such-flag", "1"}, "--no-such-flag", "unknown flag");
        check_rejected(p, {"--seed", "-1"}, "--seed", "'-1'", "between");
        check_rejected(p, {"--seed", "1", "--seed", "2"}, "--seed", "twice");
        check_rejected(p, {"--seed"}, "--seed", "needs a value");
    }
}

TEST_CASE("--sentence and --checkpoint: an unknown word lists the nearest known ones; a bad file is named",
          "[phases][cli]") {
    for (const std::string p : {"phase1_single_head", "phase2_multi_head", "phase3_visualization", "phase4_causal", "phase6_inside"}) {
        const std::string model = p == "phase1_single_head" ? "single_head_model" : p == "phase2_multi_head" ? "multi_head_model"
                                                                                                           : "causal_model";
        check_rejected(p, {"--checkpoint", fixture().ckpt(model), "--sentence", "the dgo sat"}, "--sentence", "'the dgo sat'",
                       "nearest known words: dog,");  // a swap of two letters is one edit
        check_rejected(p, {"--checkpoint", fixture().ckpt(model), "--sentence", "the [MASK] sat"}, "--sentence", "[MASK]",
                       "unknown word '[MASK]'; nearest known words:");
        check_rejected(p, {"--checkpoint", fixture().out("missing.safetensors")}, "--checkpoint", "missing.safetensors");
    }
    check_rejected("phase1_single_head", {"--checkpoint", fixture().ckpt("multi_head_model"), "--head", "3"}, "--head", "'3'",
                   "between 1 and 2");
    std::string long_sentence = "the cat";
    for (int i = 0; i < 40; ++i) long_sentence += " sat";
    check_rejected("phase1_single_head", {"--checkpoint", fixture().ckpt("single_head_model"), "--sentence", long_sentence},
                   "--sentence", "the cat sat", "the model reads at most");
    check_rejected("phase4_causal", {"--checkpoint", fixture().ckpt("multi_head_model")}, "--checkpoint", "multi_head_model",
                   "causal model");
}

TEST_CASE("phases 1 and 2 rebuild softmax attention by hand: they refuse a sparsemax or position-free model",
          "[phases][cli][positions]") {
    for (const auto& [task, positions, normalizer, says] :
         std::vector<std::tuple<lab::Task, nn::PositionScheme, nn::Normalizer, std::string>>{
             {lab::Task::single_head, nn::PositionScheme::learned, nn::Normalizer::sparsemax(), "normalizer 'sparsemax'"},
             {lab::Task::single_head, nn::PositionScheme::none, nn::Normalizer::softmax(), "positions 'none'"},
             {lab::Task::multi_head, nn::PositionScheme::sinusoidal, nn::Normalizer::sparsemax(), "normalizes with sparsemax"}}) {
        lab::TrainConfig c = lab::standard_config(task);
        c.positions = positions, c.normalizer = normalizer;
        const std::string name = std::string("knob_") + nn::position_scheme_name(positions) + "_" + normalizer.name() + ".safetensors";
        const std::string ck = train_tiny(c, fixture().out(name), task == lab::Task::single_head ? 1 : 2);
        check_rejected(task == lab::Task::single_head ? "phase1_single_head" : "phase2_multi_head", {"--checkpoint", ck},
                       "--checkpoint", name, says);
    }
}

TEST_CASE("phase 1 runs on the learner's sentence, checkpoint, seed, d_k list and steps", "[phases][cli][phase1]") {
    check_rejected("phase1_single_head", {"--d-k", "8,0"}, "--d-k", "'8,0'", "between 1");
    check_rejected("phase1_single_head", {"--d-k", "8,,32"}, "--d-k", "'8,,32'", "not a whole number");
    check_rejected("phase1_single_head", {"--steps", "0"}, "--steps", "'0'");
    const std::string out = fixture().out("p1");
    const Json m = run_ok("phase1_single_head", {"--checkpoint", fixture().ckpt("single_head_model"), "--sentence", "my dog saw the cat",
                                                 "--seed", "3", "--d-k", "16,4", "--steps", "7", "--out", out}, out, 1);
    CHECK(strings(m.at("tokens")) == std::vector<std::string>{"my", "dog", "saw", "the", "cat"});
    CHECK(m.at("d_k").as_int64() == 16);  // the tiny model's d_model, one head
    CHECK(m.at("seed").as_int64() == 3);
    CHECK(m.find("saw"));                 // step 1 and 3's query: the third word
    std::vector<std::int64_t> dks;
    for (const Json& c : m.at("scaling").at("cells").as_array()) dks.push_back(c.at("d_k").as_int64());
    CHECK(dks == std::vector<std::int64_t>{4, 4, 16, 16});
    CHECK(m.at("scaling_training").at("d_k").as_int64() == 16);
    CHECK(m.at("scaling_training").at("scaled").at("loss_curve").size() == 7);
    CHECK(fs::exists(out + "/phase1/attention_heatmap.png"));
    CHECK(fs::exists(out + "/data/attention_weights.npy"));
}

TEST_CASE("phase 2 runs on the learner's checkpoint, heads list, d_model and steps", "[phases][cli][phase2]") {
    check_rejected("phase2_multi_head", {"--heads", "3"}, "--heads", "'3'", "do not divide --d-model 64");
    check_rejected("phase2_multi_head", {"--d-model", "0"}, "--d-model", "'0'");
    check_rejected("phase2_multi_head", {"--compare-checkpoint", fixture().out("nope")}, "--compare-checkpoint", "nope");
    const std::string out = fixture().out("p2");
    const Json m = run_ok("phase2_multi_head", {"--checkpoint", fixture().ckpt("multi_head_model"), "--compare-checkpoint",
                                                fixture().ckpt("single_head_model"), "--sentence", "the dog sat", "--heads", "1,4",
                                                "--d-model", "32", "--steps", "6", "--out", out}, out, 2);
    CHECK(m.at("heads").size() == 2);  // the tiny model's 2 heads
    const Json& sweep = m.at("heads_sweep");
    CHECK(sweep.at("d_model").as_int64() == 32);
    CHECK(sweep.at("steps").as_int64() == 6);
    REQUIRE(sweep.at("results").size() == 2);
    CHECK(sweep.at("results").as_array()[1].at("n_heads").as_int64() == 4);
    CHECK(sweep.at("results").as_array()[1].at("d_k").as_int64() == 8);
    CHECK(m.at("parameter_counts").as_array()[0].at("parameters").as_int64() == 4 * 32 * 32 + 4 * 32);
    CHECK(m.at("single_vs_multi").find(fixture().ckpt("single_head_model")));
}

TEST_CASE("phase 3 runs on the learner's sentence and checkpoints", "[phases][cli][phase3]") {
    const std::string out = fixture().out("p3");
    const Json m = run_ok("phase3_visualization", {"--checkpoint", fixture().ckpt("causal_model"), "--compare-checkpoint",
                                                   fixture().ckpt("multi_head_model"), "--sentence", "the bird saw my dog",
                                                   "--out", out}, out, 3);
    CHECK(m.at("sentence").as_string() == "the bird saw my dog");
    CHECK(strings(m.at("tokens")).front() == "<bos>");
    CHECK(m.at("rollout").size() == 7);  // <bos> 5 words <eos>
    CHECK(m.at("attention_distance").find(fixture().ckpt("causal_model")));
    CHECK(fs::exists(out + "/phase3/explorer.html"));
}

TEST_CASE("phase 3 reads --sentence and the corpus with the rules a word model was trained with", "[phases][cli][phase3]") {
    const fs::path dir = fixture().dir / "corpus_rules";
    lab::TrainConfig c;
    c.task = lab::Task::causal, c.word_tokens = true, c.lowercase = true, c.split_punctuation = true;
    c.corpus = write_corpus(dir, "A bird sang over the quiet river today.\n");
    const std::string ck = train_tiny(c, dir / "rules.safetensors");
    const std::string out = (dir / "out").string();
    const Json m = run_ok("phase3_visualization", {"--checkpoint", ck, "--compare-checkpoint", ck, "--sentence", "A BIRD sang today.",
                                                   "--out", out}, out, 3);
    CHECK(strings(m.at("tokens")) == std::vector<std::string>{"a", "bird", "sang", "today", "."});
    const Json first = run_ok("phase3_visualization", {"--checkpoint", ck, "--compare-checkpoint", ck, "--out", out + "_first"},
                              out + "_first", 3);
    CHECK(strings(first.at("tokens")) ==  // the corpus's first 12 words, split as in training
          std::vector<std::string>{"a", "bird", "sang", "over", "the", "quiet", "river", "today", ".", "a", "bird", "sang"});
    check_rejected("phase3_visualization", {"--checkpoint", ck, "--compare-checkpoint", ck, "--sentence", "a brid sang"},
                   "--sentence", "a brid sang", "unknown word 'brid'; the vocabulary is ., a, bird, over, quiet, river, sang, the, today");
}

TEST_CASE("phase 3 studies models of the learner's own corpus, skipping only what needs the grammar", "[phases][cli][phase3]") {
    const fs::path dir = fixture().dir / "corpus_phase3";
    const std::string corpus = write_corpus(dir, "a bird sang over the quiet river today.\n");
    // A causal word model of 2 heads beside a masked-token one of 4: each is measured with its own heads.
    const std::string causal = tiny_corpus_model(corpus, lab::Task::causal, true, dir / "causal.safetensors", 2);
    const std::string masked = tiny_corpus_model(corpus, lab::Task::multi_head, true, dir / "masked.safetensors", 4);
    const std::string out = (dir / "out").string();
    const auto r = spawn("phase3_visualization", {"--checkpoint", causal, "--compare-checkpoint", masked, "--out", out});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("=== 7. Head types (and 7b) skipped: needs the toy grammar's gold pairs; this checkpoint "
                                         "was trained on corpus '" + corpus + "' (words) ==="));
    const Json m = load_json(out + "/phase3/metrics.json");
    // Without --sentence: the corpus's first 12 words, read as the corpus was, without <bos> and <eos>.
    const std::vector<std::string> first12{"a", "bird", "sang", "over", "the", "quiet", "river", "today.", "a", "bird", "sang", "over"};
    CHECK(strings(m.at("tokens")) == first12);
    CHECK(m.at("sentence").as_string() == "a bird sang over the quiet river today. a bird sang over");
    CHECK(m.at("rollout").size() == 12);
    CHECK(m.at("rollout").as_array()[0].size() == 12);
    for (const auto& [model, heads] : {std::pair{causal, 2u}, std::pair{masked, 4u}}) {
        INFO(model);
        const Json& layers = m.at("attention_distance").at(model).at("layers");
        REQUIRE(layers.size() == 1);  // the checkpoint's one layer
        CHECK(layers.as_array()[0].at("distance").size() == heads);
        CHECK(layers.as_array()[0].at("first_token_weight").size() == heads);  // key 0 is a word: no <bos>
        CHECK_FALSE(layers.as_array()[0].find("bos_weight"));
    }
    CHECK(m.at("3d_attention").at("head").as_int64() < 2);
    CHECK(m.at("attention_gradients").at("per_head").size() == 2);
    CHECK(m.at("attention_gradients").at("check_worst_rel_error").as_double() <= 0.05);
    CHECK_FALSE(m.find("head_types"));
    CHECK_FALSE(m.find("generated_text_roles"));
    for (const char* figure : {"attention_flow", "3d_attention", "attention_rollout", "attention_distance", "attention_gradients",
                               "gradient_weighted_rollout"})
        CHECK(fs::exists(out + "/phase3/" + figure + ".png"));
    CHECK_FALSE(fs::exists(out + "/phase3/head_types.png"));
    // The explorer lists the sentence alone and frames typed text as the corpus was read: no <bos>.
    const Json page = load_json(out + "/phase3/explorer_data.json");
    REQUIRE(page.at("sentences").size() == 1);
    CHECK(strings(page.at("sentences").as_array()[0].at("tokens")) == first12);
    CHECK(page.at("models").as_array()[1].at("n_heads").as_int64() == 4);
    CHECK(page.at("models").as_array()[0].at("tokenizer").at("prefix").size() == 0);
    CHECK(page.at("models").as_array()[0].at("gradients").size() == 1);

    // --sentence in the corpus's words; a character model beside itself, its whitespace made visible.
    const Json m2 = run_ok("phase3_visualization", {"--checkpoint", causal, "--compare-checkpoint", masked, "--sentence",
                                                    "the quiet bird sang", "--out", out + "_sentence"}, out + "_sentence", 3);
    CHECK(strings(m2.at("tokens")) == std::vector<std::string>{"the", "quiet", "bird", "sang"});
    CHECK(m2.at("rollout").size() == 4);
    const std::string chars = tiny_corpus_model(corpus, lab::Task::chars, false, dir / "chars.safetensors");
    const Json m3 = run_ok("phase3_visualization", {"--checkpoint", chars, "--compare-checkpoint", chars, "--out", out + "_chars"},
                           out + "_chars", 3);
    CHECK(strings(m3.at("tokens")) == std::vector<std::string>{"a", "_", "b", "i", "r", "d", "_", "s", "a", "n", "g", "_"});
    CHECK(m3.at("attention_distance").find(chars + " (compared)"));  // the model beside itself keeps a key of its own

    // Bad values, each refused with exit 2 before any drawing.
    check_rejected("phase3_visualization", {"--checkpoint", causal, "--compare-checkpoint", masked, "--sentence", "the quiet cat"},
                   "--sentence", "the quiet cat", "unknown word 'cat'; the vocabulary is a, bird, over");
    check_rejected("phase3_visualization", {"--checkpoint", causal, "--compare-checkpoint", fixture().ckpt("multi_head_model")},
                   "--compare-checkpoint", "multi_head_model", "trained on the toy grammar");
    check_rejected("phase3_visualization", {"--checkpoint", causal, "--compare-checkpoint", chars}, "--compare-checkpoint",
                   "chars.safetensors", "(characters)");
    check_rejected("phase3_visualization", {"--checkpoint", causal}, "--compare-checkpoint", "multi_head_model",
                   "not given, and the default reads the toy grammar");
}

TEST_CASE("phase 4 runs on the learner's checkpoint, masks, pruning order and steps", "[phases][cli][phase4][slow]") {
    check_rejected("phase4_causal", {"--mask", "local:0"}, "--mask", "'local:0'", "W of local:W needs an integer in [1, 8192]");
    check_rejected("phase4_causal", {"--mask", "local:2,strided:x"}, "--mask", "'strided:x'", "S of strided:S needs an integer");
    check_rejected("phase4_causal", {"--mask", "diagonal"}, "--mask", "'diagonal'", "is not a mask: none, causal, local:W or strided:S");
    check_rejected("phase4_causal", {"--mask", "none,causal"}, "--mask", "'none,causal'", "causal is always trained");
    check_rejected("phase4_causal", {"--steps", "10"}, "--steps", "'10'", "between 25");
    check_rejected("phase4_causal", {"--checkpoint", fixture().ckpt("causal_model"), "--prune", "1.3"}, "--prune", "'1.3'",
                   "not a head of this model");
    const std::string out = fixture().out("p4");
    const Json m = run_ok("phase4_causal", {"--checkpoint", fixture().ckpt("causal_model"), "--sentence", "my cat saw the dog",
                                            "--mask", "none,local:1", "--prune", "1.2,1.1", "--steps", "25", "--seed", "9",
                                            "--out", out}, out, 4);
    const Json& losses = m.at("custom_masks").at("val_loss");
    CHECK(losses.find("full causal"));
    CHECK(losses.find("no mask"));
    CHECK(losses.find("local +-1"));
    CHECK(losses.size() == 3);
    CHECK(m.at("custom_masks").at("steps").as_int64() == 25);
    CHECK(m.at("head_pruning").at("order").as_string() == "1.2,1.1");
    CHECK(m.at("head_pruning").at("cumulative").size() == 2);
    CHECK(m.at("generation").at("prompt").as_string() == "my cat");
    CHECK(m.at("seed").as_int64() == 9);
    // Step 11: the whole model's graph, one box per module: 1 embedding + 6 per block + ln_f, head, loss.
    const std::int64_t layers = nn::load_checkpoint(fixture().ckpt("causal_model")).model->config().n_layers;
    CHECK(m.at("model_graph").at("module_boxes").as_int64() == 1 + 6 * layers + 3);
    CHECK(m.at("model_graph").at("attention_ops").as_int64() < m.at("model_graph").at("ops").as_int64());
    CHECK(fs::exists(out + "/phase4/model_graph.png"));
    CHECK(fs::exists(out + "/phase4/model_graph_attention.png"));
}

TEST_CASE("phase 4 runs on a model of the learner's own corpus, skipping only what needs the grammar", "[phases][cli][phase4]") {
    const fs::path dir = fixture().dir / "corpus";
    const std::string corpus = write_corpus(dir, "a bird sang over the quiet river today.\n");
    for (const bool words : {false, true}) {
        INFO((words ? "word" : "character") << " model");
        const std::string model = tiny_corpus_model(corpus, words ? lab::Task::causal : lab::Task::chars, words,
                                                    dir / (words ? "words.safetensors" : "chars.safetensors"));
        const std::string out = (dir / (words ? "out_words" : "out_chars")).string();
        const auto r = spawn("phase4_causal", {"--checkpoint", model, "--out", out});
        INFO(r.output);
        REQUIRE(r.exit_code == 0);  // not refused, not crashed
        for (const char* step : {"4. Break causality", "7. Custom masks", "8. Attention entropy during training", "8. Pruning heads",
                                 "8b. Pruning to the minimum", "9. Attention while it learns"})
            CHECK_THAT(r.output, Catch::Contains(std::string(step)) && Catch::Contains("is a model of its own corpus"));
        CHECK_THAT(r.output, Catch::Contains("outputs at positions <= i are bit-identical for every i: yes"));
        check_steps_follow_main("phase4_causal", r.output);  // the skipped steps keep their places too
        const Json m = load_json(out + "/phase4/metrics.json");
        // The corpus's own text: its first two tokens are the generation's prompt.
        CHECK(m.at("generation").at("prompt").as_string() == (words ? "a bird" : "a "));
        CHECK(m.at("causality_check").size() == 11u);  // its first 12 tokens: one row per i < T - 1
        CHECK(m.at("bidirectional_vs_causal").at("causal_upper_triangle_max").as_double() == 0);
        CHECK(m.at("padding").at("combined").at("max_weight_on_padding").as_double() == 0);
        CHECK_FALSE(m.find("custom_masks"));
        CHECK_FALSE(m.find("head_pruning"));
        CHECK(m.at("model_graph").at("module_boxes").as_int64() == 1 + 6 * 1 + 3);  // the tiny model has 1 block
        CHECK(fs::exists(out + "/phase4/causal_mask.png"));
    }
    // A --sentence from the model's vocabulary; an unknown word or character is refused by name.
    const std::string out = (dir / "out_sentence").string();
    const auto r = spawn("phase4_causal", {"--checkpoint", (dir / "words.safetensors").string(), "--sentence", "the quiet bird sang",
                                           "--out", out});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(load_json(out + "/phase4/metrics.json").at("generation").at("prompt").as_string() == "the quiet");
    check_rejected("phase4_causal", {"--checkpoint", (dir / "words.safetensors").string(), "--sentence", "the quiet cat"},
                   "--sentence", "the quiet cat", "unknown word 'cat'");
    check_rejected("phase4_causal", {"--checkpoint", (dir / "chars.safetensors").string(), "--sentence", "a bird!"},
                   "--sentence", "a bird!", "!");
    // Phase 2 on the word model: step 6's comparison on the grammar's validation set names it as skipped.
    const std::string out2 = (dir / "out_phase2").string();
    const auto r2 = spawn("phase2_multi_head", {"--checkpoint", (dir / "words.safetensors").string(), "--sentence", "a bird sang",
                                                "--compare-checkpoint", fixture().ckpt("single_head_model"), "--heads", "2",
                                                "--steps", "20", "--out", out2});
    INFO(r2.output);
    REQUIRE(r2.exit_code == 0);
    CHECK_THAT(r2.output, Catch::Contains("words.safetensors: skipped: a model of its own corpus"));
    CHECK(load_json(out2 + "/phase2/metrics.json").at("single_vs_multi").size() == 1);  // the grammar's single-head model only
}

TEST_CASE("phases 1 and 2 study a character model of the learner's corpus on its own text", "[phases][cli][phase1][phase2][slow]") {
    const fs::path dir = fixture().dir / "corpus_chars";
    const std::string corpus = write_corpus(dir, "a bird\tsang.\nover the river\n");
    const std::string model = tiny_corpus_model(corpus, lab::Task::chars, false, dir / "chars.safetensors");
    for (const char* program : {"phase1_single_head", "phase2_multi_head"}) {
        INFO(program);
        const std::string out = (dir / program).string();
        // Without --sentence: the corpus's first 12 characters, whitespace spelled out on one line.
        const auto r = spawn(program, {"--checkpoint", model, "--out", out, "--steps", "20"});
        INFO(r.output);
        REQUIRE(r.exit_code == 0);  // the grammar's default sentence is not forced on a character model
        CHECK_THAT(r.output, Catch::Contains("a bird\\tsang."));
        // --sentence in the model's characters; a character it never saw is refused by name.
        const auto r2 = spawn(program, {"--checkpoint", model, "--out", out, "--steps", "20", "--sentence", "bird over"});
        INFO(r2.output);
        CHECK(r2.exit_code == 0);
        CHECK_THAT(r2.output, Catch::Contains("bird over"));
        check_rejected(program, {"--checkpoint", model, "--sentence", "bird!"}, "--sentence", "bird!", "!");
    }
}

TEST_CASE("phase 5 runs with the learner's hidden width, source length, scoring and steps", "[phases][cli][phase5][slow]") {
    check_rejected("phase5_seq2seq", {"--hidden", "7"}, "--hidden", "'7'", "even");
    check_rejected("phase5_seq2seq", {"--length", "3"}, "--length", "'3'", "between 4");
    check_rejected("phase5_seq2seq", {"--score", "cosine"}, "--score", "'cosine'", "one of dot, scaled_dot");
    check_rejected("phase5_seq2seq", {"--cost-t", "64,big"}, "--cost-t", "'64,big'", "not a whole number");
    check_rejected("phase5_seq2seq", {"--sentence", "the cat"}, "--sentence", "unknown flag");  // digits only here
    const std::string out = fixture().out("p5");
    std::string output;
    const Json m = run_ok("phase5_seq2seq", {"--hidden", "8", "--length", "6", "--score", "dot", "--steps", "20",
                                             "--cost-t", "16,32", "--seed", "2", "--out", out}, out, 5, &output);
    // 20 steps leave the recurrent, convolutional and dense models guessing: the comparison says so under its table.
    CHECK_THAT(output, Catch::Contains("warning: gru (accuracy ") && Catch::Contains(" near chance 0.125)") &&
                           Catch::Contains("still far from trained; their places in this comparison may change with more training (--steps)"));
    CHECK(m.at("reversal").at("steps").as_int64() == 20);
    CHECK(m.at("compare_steps").as_int64() == 6);
    CHECK(m.at("reversal").at("accuracy_by_length").size() == 3);  // lengths 4, 5, 6
    CHECK(m.at("attention_cost").find("32"));
    CHECK(m.at("seed").as_int64() == 2);
    CHECK(fs::exists(out + "/data/phase5_reversal_attention.npy"));
}

TEST_CASE("phase 5 studies the learner's own seq2seq checkpoint", "[phases][cli][phase5][slow]") {
    const std::string model = fixture().out("reversal.safetensors");
    const auto trained = spawn("seq2seq", {"train", "--hidden", "8", "--length", "5", "--steps", "20", "--batch", "8",
                                           "--per-length", "5", "--out", model});
    INFO(trained.output);
    REQUIRE(trained.exit_code == 0);
    check_rejected("phase5_seq2seq", {"--checkpoint", model, "--length", "7"}, "--length", "'7'", "sources of up to 5 digits");
    check_rejected("phase5_seq2seq", {"--checkpoint", fixture().ckpt("causal_model")}, "--checkpoint", "causal_model",
                   "not a seq2seq checkpoint");
    const std::string out = fixture().out("p5_mine");
    check_rejected("phase5_seq2seq", {"--checkpoint", model, "--digits", "1 2 3 4 5 6"}, "--digits", "'1 2 3 4 5 6'", "at most 5");
    check_rejected("phase5_seq2seq", {"--digits", "1 2 a"}, "--digits", "'1 2 a'", "unknown word 'a'; the vocabulary is 0, 1, 2");
    const Json m = run_ok("phase5_seq2seq", {"--checkpoint", model, "--hidden", "8", "--steps", "20", "--cost-t", "16",
                                             "--seed", "0", "--digits", "3 1 4 1 5", "--out", out}, out, 5);
    // The same model decodes --digits in the phase as in `seq2seq show`.
    const auto shown = spawn("seq2seq", {"show", "--checkpoint", model, "--digits", "3 1 4 1 5", "--out", out + "/show"});
    CHECK_THAT(shown.output, Catch::Contains("output   " + m.at("digits").at("output").as_string() + "\n"));
    CHECK(fs::exists(out + "/phase5/reversal_attention_digits.png"));
    CHECK(m.at("reversal").at("checkpoint").as_string() == model);
    CHECK(m.at("reversal").at("steps").as_int64() == 20);            // the checkpoint's, not a new run
    CHECK(m.at("reversal").at("accuracy_by_length").size() == 2);    // its lengths: 4 and 5
    // Seed 0 draws the held-out set `seq2seq eval` uses: the same model, the same accuracy.
    const auto eval = spawn("seq2seq", {"eval", "--checkpoint", model});
    char expected[64];
    std::snprintf(expected, sizeof expected, "exact-sequence accuracy %.4f,", m.at("reversal").at("exact_sequence_accuracy").as_double());
    CHECK_THAT(eval.output, Catch::Contains(expected));
}

TEST_CASE("phase 1 studies one chosen head of a multi-head model", "[phases][cli][phase1]") {
    const std::string out = fixture().out("p1_head");
    const Json m = run_ok("phase1_single_head", {"--checkpoint", fixture().ckpt("multi_head_model"), "--head", "2",
                                                 "--sentence", "the cat sat", "--d-k", "4", "--steps", "3", "--out", out}, out, 1);
    CHECK(m.at("head").as_int64() == 2);
    CHECK(m.at("d_k").as_int64() == 8);  // d_model 16 over 2 heads
    // The step-by-step head reproduces the layer (the phase stops otherwise), to within 1e-6.
    CHECK(m.at("layer_check").at("max_abs_diff_weights").as_double() < 1e-6);
    CHECK(m.at("layer_check").at("max_abs_diff_output").as_double() < 1e-6);
    const auto head1 = spawn("phase1_single_head", {"--checkpoint", fixture().ckpt("multi_head_model"), "--head", "1",
                                                    "--sentence", "the cat sat", "--d-k", "4", "--steps", "3",
                                                    "--out", fixture().out("p1_head1")});
    REQUIRE(head1.exit_code == 0);
    const Json m1 = load_json(fixture().out("p1_head1") + "/phase1/metrics.json");
    CHECK(to_json(m1.at("weights")) != to_json(m.at("weights")));  // two heads, two patterns

    // The bias-free head of `tinygpt train --model qkv-head`: no W_O, so its output is the layer's.
    const std::string qkv = fixture().out("qkv.safetensors");
    REQUIRE(spawn("tinygpt", {"train", "--model", "qkv-head", "--steps", "2", "--d-model", "16", "--layers", "1", "--context",
                              "16", "--batch", "2", "--eval-every", "2", "--out", qkv}).exit_code == 0);
    const std::string out_qkv = fixture().out("p1_qkv");
    const Json mq = run_ok("phase1_single_head", {"--checkpoint", qkv, "--sentence", "the cat sat", "--d-k", "4", "--steps", "3",
                                                  "--out", out_qkv}, out_qkv, 1);
    CHECK(mq.at("layer_check").at("max_abs_diff_output").as_double() < 1e-6);
}

TEST_CASE("the step checker: headings must follow main()'s sections in order", "[phases][cli][toc]") {
    const std::vector<Call> calls = steps_main_calls(
        "void section9_x(); int main() {\n  section1_a(p);\n  phase1::section4b_b(p);\n  sections5_6_c(p);\n  section7_d(p);\n}");
    REQUIRE(calls.size() == 4);  // the definition before main() does not count
    CHECK(step_str(calls[1].first) == "4b");
    CHECK(step_str(calls[1].last) == "4b");
    CHECK(step_str(calls[2].last) == "6~");
    CHECK(steps_out_of_order(calls, printed_steps("=== 1. A ===\nx\n=== 4b. B ===\n5. Five\n=== 6b. C ===\n7. Seven\n")) == "");
    CHECK(steps_out_of_order(calls, printed_steps("=== 1. A ===\n3. lower case is not a heading\n")) == "");
    CHECK_THAT(steps_out_of_order(calls, printed_steps("=== 1. A ===\n=== 7. D ===\n=== 5. C ===\n")),
               Catch::Contains("step 5 printed after step 7"));
    CHECK_THAT(steps_out_of_order(calls, printed_steps("=== 1. A ===\n=== 3. Nobody ===\n")),
               Catch::Contains("step 3 printed, but main() has no section named for it"));
    CHECK_THAT(steps_out_of_order(calls, printed_steps("=== 4. Not 4b ===\n")), Catch::Contains("no section named for it"));
    CHECK_THAT(steps_out_of_order(steps_main_calls("int main() { section2_a(p); section1_b(p); }"), printed_steps("=== 1. A ===\n")),
               Catch::Contains("main() calls section1_b( after section2_a("));
    CHECK(steps_out_of_order(calls, {}) == "no step headings printed");
}

TEST_CASE("phase 6 patches the learner's checkpoint and sentence, and refuses a sentence without agreement",
          "[phases][cli][phase6]") {
    const std::string causal = fixture().ckpt("causal_model");
    check_rejected("phase6_inside", {"--checkpoint", causal, "--sentence", "the cat sat on the mat"}, "--sentence",
                   "the cat sat on the mat", "the verb 'sat' does not agree with its subject");
    check_rejected("phase6_inside", {"--checkpoint", causal, "--sentence", "this cat sleeps"}, "--sentence", "this cat sleeps",
                   "not a sentence of the grammar");
    check_rejected("phase6_inside", {"--checkpoint", causal, "--sentence", "the cat on the mat"}, "--sentence",
                   "the cat on the mat", "no subject followed by its verb");
    check_rejected("phase6_inside", {"--checkpoint", fixture().ckpt("multi_head_model")}, "--checkpoint", "multi_head_model",
                   "causal model");
    const std::string corpus = write_corpus(fixture().out("p6_corpus"), "the cat sleeps on the mat\n");
    const std::string words = tiny_corpus_model(corpus, lab::Task::causal, true, fixture().out("p6_corpus") + "/words.safetensors");
    check_rejected("phase6_inside", {"--checkpoint", words}, "--checkpoint", "words.safetensors", "`tinygpt patch`");

    const std::string out = fixture().out("p6");
    const Json m = run_ok("phase6_inside", {"--checkpoint", causal, "--sentence", "my mice under the chair chase the dog",
                                            "--steps", "100", "--out", out}, out, 6);
    const Json& p = m.at("patching");
    CHECK(p.at("sentence").at("clean").as_string() == "my mice under the chair");
    CHECK(p.at("sentence").at("corrupted").as_string() == "my mouse under the chair");
    // The tiny model has 1 layer of 2 heads: its residual stream after the last layer, at the last
    // position, is everything the logits read.
    const Json& last = p.at("sentence").at("residual").as_array().back();
    CHECK(last.at("layer").as_string() == "L1");
    CHECK(last.at("position_5").as_double() == 1.0);
    CHECK(p.at("heads").size() == 2);
    for (const char* f : {"patching_residual.png", "patching_heads.png"}) CHECK(fs::exists(fs::path(out) / "phase6" / f));
}
