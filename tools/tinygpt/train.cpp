// train.cpp — tinygpt train: a fresh run from flags, or a stored run resumed.
#include "tools/tinygpt/common.hpp"

#include <cmath>
#include <filesystem>

#include "training/mask_spec.hpp"
#include "training/loss_figure.hpp"
#include "training/run_config.hpp"
#include "nn/transformer_spec.hpp"
#include "io/fileio.hpp"

namespace attnlab::tinygpt {

using lab::Task;

using Limits = nn::ModelLimits;

namespace {

// The value of a setting in the recipe `make train` uses for `task`, as --help shows it.
std::string standard(Task task, const char* flag) {
    for (const lab::RunSetting& s : lab::run_settings())
        if (s.flag == std::string_view(flag)) return lab::setting_text(lab::standard_config(task), s);
    return "";
}

}  // namespace

void declare_train(lab::Options& o) {
    const auto per_task = [](const char* flag) {
        return "causal " + standard(Task::causal, flag) + ", masked-token models " + standard(Task::multi_head, flag);
    };
    o.add("model", "M", "causal", "task and model: causal (TinyGPT), single-head, multi-head, qkv-head (one head of W_Q, "
                                  "W_K, W_V only: no biases, no W_O)");
    o.add_path("corpus", "FILE", "", "train on a UTF-8 text file instead of the grammar (vocabulary stored in the checkpoint): "
                                "a causal model of its characters, or with --tokens words any --model on its words");
    o.add("tokens", "T", "chars", "with --corpus: chars or words (whitespace-separated)");
    o.add_switch("lowercase", "with --tokens words: read A-Z as a-z, in the corpus and in every prompt to the model");
    o.add_switch("split-punctuation", "with --tokens words: each punctuation mark is a word of its own (\"mat.\" -> \"mat\" "
                                      "\".\"), except ' or - inside a word (don't, well-known); prompts are split the same way");
    o.add("steps", "N", "", "optimizer steps (default: " + per_task("--steps") + ")");
    o.add("d-model", "D", standard(Task::causal, "--d-model"), "model width (at most " + std::to_string(Limits::max_d_model) + ")");
    o.add("heads", "H", standard(Task::causal, "--heads"), "attention heads (single-head and qkv-head have 1)");
    o.add("layers", "L", standard(Task::causal, "--layers"), "transformer blocks (at most " + std::to_string(Limits::max_layers) + ")");
    o.add("context", "T", standard(Task::causal, "--context"),
          "tokens per row, the model's context (at most " + std::to_string(Limits::max_context) + ")");
    o.add("batch", "B", "", "rows per batch (default: " + per_task("--batch") + ")");
    o.add("shards", "S", standard(Task::causal, "--shards"),
          "split each batch into S runs of rows, trained at once on up to S threads (ATTNLAB_NUM_THREADS): "
          "the same bits on any number of threads; 1 = the whole batch in one pass");
    o.add("lr", "X", standard(Task::causal, "--lr"), "peak learning rate, AdamW with warm-up + cosine");
    o.add("warmup", "N", standard(Task::causal, "--warmup"), "warm-up steps");
    o.add("min-lr-ratio", "R", standard(Task::causal, "--min-lr-ratio"),
          "the cosine decays from --lr to --lr x R at the last step, R in [0, 1]");
    o.add("beta1", "B", standard(Task::causal, "--beta1"), "AdamW's first-moment decay rate, in [0, 1)");
    o.add("beta2", "B", standard(Task::causal, "--beta2"), "AdamW's second-moment decay rate, in [0, 1)");
    o.add("weight-decay", "X", standard(Task::causal, "--weight-decay"), "AdamW's decoupled weight decay");
    o.add("clip", "X", standard(Task::causal, "--clip"), "gradient-norm limit");
    o.add("mask-prob", "P", standard(Task::multi_head, "--mask-prob"), "masked-token models: share of words hidden");
    o.add("mask", "M", "", "which keys each query sees: causal (default for next-token models), none (a next-token "
                           "model then sees the answer), local:W (|i-j| <= W) or strided:S (i-j divisible by S); "
                           "local and strided keep the causal mask of next-token models");
    o.add_switch("unscaled", "scores q.k without the 1/sqrt(d_k) (phase 1's experiment, trained)");
    o.add("positions", "P", standard(Task::causal, "--positions"),
          "how tokens know where they sit: learned (a trained table, pos_emb), sinusoidal (the fixed sin/cos encoding, "
          "even --d-model) or none (a causal model still sees order through its mask)");
    o.add("normalizer", "NAME", standard(Task::causal, "--normalizer"),
          "what turns scores into attention weights: softmax, or sparsemax (exact zeros; it runs the composed "
          "attention, never the fused kernel)");
    o.add("dropout", "P", standard(Task::causal, "--dropout"), "drop attention weights and residual branches with probability P in [0, 1) in training "
                               "steps (evaluation never drops)");
    o.add("eval-every", "N", standard(Task::causal, "--eval-every"), "validate and write the checkpoint every N steps");
    o.add("seed", "S", standard(Task::causal, "--seed"), "seed for weights and data");
    o.add_path("out", "PATH", "", "checkpoint to write (default: out/checkpoints/<model>_model.safetensors for the grammar, "
                                  "out/runs/<corpus name>_<model>_model.safetensors for a corpus; with --resume, the resumed "
                                  "checkpoint itself); the loss CSV and figure go beside it. It is never another run's checkpoint "
                                  "(other settings, steps or data) nor any other file, unless --overwrite; while the run "
                                  "writes it, PATH.lock names the run and a second trainer on PATH stops at once");
    o.add_switch("overwrite", "replace whatever file is at --out, another run's checkpoint included");
    o.add("keep", "WHICH", "", "what --out holds: last (the latest evaluation) or best (the lowest validation loss; the "
                               "loss CSV still records every evaluation). Default: best with --corpus, last on the grammar. "
                               "A run that diverges keeps its best either way");
    o.add_path("resume", "PATH", "", "continue the run saved in PATH: every setting comes from it, and only --steps (to "
                                "extend the run), --out, --keep and --overwrite may be given besides it");
}

namespace {

// ---- train ---------------------------------------------------------------------------

std::string describe_task(const lab::TrainConfig& c) {
    if (c.corpus.empty()) return lab::info(c.task).cli;
    if (c.task == Task::chars) return "characters of '" + c.corpus + "'";
    const std::string rules = c.lowercase && c.split_punctuation ? " (lowercased, punctuation split)"
                              : c.lowercase                      ? " (lowercased)"
                              : c.split_punctuation              ? " (punctuation split)"
                                                                 : "";
    return std::string(lab::info(c.task).cli) + " on the words of '" + c.corpus + "'" + rules;
}

// Flags that set settings of the table other than by their text: --mask sets three, --unscaled is a switch.
bool composite(const lab::RunSetting& s) {
    for (const char* f : {"--mask", "--unscaled", "--tokens", "--lowercase", "--split-punctuation"})
        if (s.flag == std::string_view(f)) return true;
    return false;
}

// --mask none|causal|local:W|strided:S -> causal_mask, window, stride (training/mask_spec.hpp).
void apply_mask(lab::TrainConfig& c, const std::string& m) {
    try {
        lab::parse_mask(m).apply(c);
    } catch (const ValueError& e) {
        throw UsageError(e.what());
    }
}

// The settings given as flags, applied to c (ValueError from the table -> a usage error).
lab::TrainConfig with_flags(lab::TrainConfig c, const lab::Options& o) {
    for (const lab::RunSetting& s : lab::run_settings()) {
        if (!*s.flag || !o.given(s.flag + 2) || composite(s)) continue;
        try {
            lab::set_setting(c, s, o.text(s.flag + 2), s.flag);
        } catch (const ValueError& e) {
            throw UsageError(e.what());
        }
    }
    if (o.given("mask")) apply_mask(c, o.text("mask"));
    if (o.given("unscaled")) c.scaled = false;
    if (o.given("lowercase")) c.lowercase = true;
    if (o.given("split-punctuation")) c.split_punctuation = true;
    if (o.given("tokens")) {
        if (o.text("tokens") != "words" && o.text("tokens") != "chars")
            throw UsageError("--tokens needs words or chars, got '" + o.text("tokens") + "'");
        c.word_tokens = o.text("tokens") == "words";
    }
    return c;
}

// "--lr 0.01", "--unscaled": how the user gave a flag, for messages.
std::string as_given(const lab::Options& o, const std::string& flag) {
    for (const char* bare : {"--unscaled", "--lowercase", "--split-punctuation"})
        if (flag == bare) return flag;
    return flag + " " + o.text(flag.substr(2));
}

// --resume CKPT: the stored run, with --steps, --out and --corpus the only flags that may differ.
lab::TrainConfig resumed_config(const lab::Options& o) {
    const std::string path = path_flag(o, "resume");
    check_input("--resume", path);
    const nn::LoadedCheckpoint ck = nn::load_checkpoint(path);
    const lab::StoredRun stored = lab::stored_run(ck, path);
    lab::TrainConfig c = stored.config;
    lab::TrainConfig asked = with_flags(stored.config, o);
    if (o.given("model")) {
        try {
            asked.task = lab::task_from_cli(o.text("model"));
        } catch (const ValueError& e) {
            throw UsageError(std::string("--model: ") + e.what());
        }
    }
    for (const lab::Difference& d : lab::differences(stored.config, asked))
        throw UsageError(as_given(o, d.flag) + " contradicts '" + path + "', which was trained with " + d.key + " " +
                         d.stored + " (with --resume only --steps may change)");
    if (o.given("corpus")) {
        if (c.corpus.empty()) throw UsageError("--corpus: '" + path + "' is a " + lab::info(c.task).cli + " model of the grammar, not of a corpus");
        c.corpus = path_flag(o, "corpus");  // may have moved: train() checks that it is the same text
    }
    if (!c.corpus.empty()) check_input(o.given("corpus") ? "--corpus" : "the checkpoint's corpus", c.corpus);
    if (o.given("steps")) {
        c.steps = asked.steps;
        if (c.steps <= stored.step)
            throw UsageError("--steps " + std::to_string(c.steps) + " must exceed the step of '" + path + "', " +
                             std::to_string(stored.step));
    } else if (stored.step >= c.steps) {
        throw UsageError("'" + path + "' has done all " + std::to_string(c.steps) + " steps of its run; give --steps N > " +
                         std::to_string(c.steps) + " to train it further");
    }
    c.resume = path;
    c.out = o.given("out") ? path_flag(o, "out") : path;
    std::printf("tinygpt train: resuming '%s' at step %lld\n", path.c_str(), static_cast<long long>(stored.step));
    return c;
}

// Where a run writes without --out: the standard checkpoints that the phases read belong to the
// grammar's runs; a run on the user's own text gets a file named after that text, so it never
// replaces them nor the run of another text.
std::string default_out(const lab::TrainConfig& c) {
    const std::string model = lab::info(c.task).model_name;
    if (c.corpus.empty()) return "out/checkpoints/" + model + ".safetensors";
    std::string name = std::filesystem::path(c.corpus).stem().string();
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
    if (name.empty() || name[0] == '_') name = "corpus" + name;
    return "out/runs/" + name + "_" + (c.word_tokens ? "words_" : "") + (c.lowercase ? "lower_" : "") +
           (c.split_punctuation ? "punct_" : "") + model + ".safetensors";
}

lab::TrainConfig fresh_config(const lab::Options& o) {
    Task task = Task::causal;
    if (o.given("model")) {
        try {
            task = lab::task_from_cli(o.text("model"));
        } catch (const ValueError&) {
            throw UsageError("--model must be " + lab::cli_choices() + ", got '" + o.text("model") + "'");
        }
    }
    if (o.given("tokens") && !o.given("corpus")) throw UsageError("--tokens " + o.text("tokens") + " needs --corpus FILE (the grammar has its own words)");
    for (const char* rule : {"lowercase", "split-punctuation"})
        if (o.given(rule) && o.text("tokens") != "words")
            throw UsageError(std::string("--") + rule + " needs --corpus FILE --tokens words (it applies to words; the grammar's are fixed)");
    if (o.given("corpus")) {
        check_input("--corpus", path_flag(o, "corpus"));
        const bool words = o.text("tokens") == "words";
        if (!words && task != Task::causal)
            throw UsageError("--corpus at character level trains a causal next-character model; --model " + o.text("model") +
                             " (masked-token) needs --tokens words");
        if (!words) task = Task::chars;
    }
    // Defaults: the recipe `make train` uses for that model (the char model: TinyGPT's).
    lab::TrainConfig c = lab::standard_config(task == Task::chars ? Task::causal : task);
    c.task = task;
    c.corpus = o.text("corpus");
    c = with_flags(c, o);
    c.out = o.given("out") ? path_flag(o, "out") : default_out(c);
    return c;
}

}  // namespace

int cmd_train(const lab::Options& o) {
    lab::TrainConfig c = o.given("resume") ? resumed_config(o) : fresh_config(o);
    check_output("--out", c.out);
    if (!c.corpus.empty() && same_file(c.out, c.corpus)) throw UsageError("--out '" + c.out + "' is the corpus; it would be overwritten");
    c.overwrite = o.on("overwrite");
    const std::string keep = o.given("keep") ? o.text("keep") : c.corpus.empty() ? "last" : "best";
    if (keep != "last" && keep != "best") throw UsageError("--keep needs last or best, got '" + keep + "'");
    c.keep = keep == "best" ? lab::TrainConfig::Keep::best : lab::TrainConfig::Keep::last;
    try {
        lab::validate(c);
    } catch (const ValueError& e) {
        throw UsageError(e.what());
    }
    std::printf("tinygpt train: %s, seed %llu, %lld steps -> %s\n", describe_task(c).c_str(),
                static_cast<unsigned long long>(c.seed), static_cast<long long>(c.steps), c.out.c_str());
    lab::TrainResult r = lab::train(c);
    std::int64_t attention = 0;  // one block's W_Q, W_K, W_V, W_O and their biases (qkv-head: 3·d_model²)
    for (const auto& p : r.model->named_parameters())
        if (p.name.starts_with("blocks.0.attn.")) attention += p.tensor.numel();
    std::printf("parameters: %lld, attention %lld per block\n", static_cast<long long>(r.model->parameter_count()),
                static_cast<long long>(attention));
    std::printf("validation loss %.4f", r.final_eval.loss);
    if (!std::isnan(r.final_eval.floor))
        std::printf(" (Bayes floor %.4f, %+.4f above)", r.final_eval.floor, r.final_eval.loss - r.final_eval.floor);
    std::printf(", accuracy %.1f%%, %.1f s, %.0f tokens/s\nwrote %s, %s and %s.svg and .png\n", 100 * r.final_eval.accuracy,
                r.seconds, r.tokens_per_second, c.out.c_str(), lab::loss_csv_path(c.out).c_str(),
                lab::loss_figure_stem(c.out).c_str());
    // Without the mask a next-token model sees, at each position, the very token it predicts.
    if (lab::info(c.task).next_token && !c.causal_mask)
        std::printf("note: trained with --mask none, each position saw the token it predicts: a validation loss near or below "
                    "the floor means the model read its targets, not that it learned more than the data allows\n");
    return 0;
}

}  // namespace attnlab::tinygpt
