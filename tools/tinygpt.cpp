// tinygpt.cpp — train, sample from and inspect the toy transformers.
//
//   tinygpt train    [--model causal|single-head|multi-head | --corpus FILE] [--steps N] ...
//   tinygpt train    --resume CKPT [--steps N] [--out PATH]
//   tinygpt generate --checkpoint F --prompt "the cat" [--tokens N] [--temperature T] [--top-k K] ...
//   tinygpt eval     --checkpoint F --prompt "..." [--dump-logits F.npy] [--dump-attention F.npy]
//
// Every subcommand has --help (app/options: the same parser and flag spellings as the phases
// and seq2seq). An unknown flag or a bad value says which and exits with status 2; a failure while running (a missing or corrupt
// checkpoint, an unknown word, a run that diverged) prints the error and exits
// with status 1. Files are checked before they are opened: an input must be a
// non-empty regular file (a FIFO would block forever, a directory has no bytes);
// an output follows io/fileio.hpp's rule (never empty, a directory, an input, another
// kind of file or another run's checkpoint unless --overwrite), and `train` locks it.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "autograd/node.hpp"
#include "data/tokenizer.hpp"
#include "data/corpus.hpp"
#include "data/vocab.hpp"
#include "analyses/model_graph.hpp"
#include "app/options.hpp"
#include "training/run_config.hpp"
#include "analyses/show.hpp"
#include "training/train.hpp"
#include "nn/checkpoint.hpp"
#include "nn/generate.hpp"
#include "nn/transformer_spec.hpp"
#include "io/fileio.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;
using lab::Task;

namespace {

using Limits = nn::ModelLimits;

// A mistake in the command line found after parsing (two flags that exclude each other, a
// file that cannot be used as the flag says): main prints it like lab::Options does, exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// ---- the flags of each command (lab::Options: --help, exit 2 on a bad flag) -------------

// The value of a setting in the recipe `make train` uses for `task`, as --help shows it.
std::string standard(Task task, const char* flag) {
    for (const lab::RunSetting& s : lab::run_settings())
        if (s.flag == std::string_view(flag)) return lab::setting_text(lab::standard_config(task), s);
    return "";
}

void declare_train(lab::Options& o) {
    const auto per_task = [](const char* flag) {
        return "causal " + standard(Task::causal, flag) + ", masked-token models " + standard(Task::multi_head, flag);
    };
    o.add("model", "M", "causal", "task and model: causal (TinyGPT), single-head, multi-head, qkv-head (one head of W_Q, "
                                  "W_K, W_V only: no biases, no W_O)");
    o.add_path("corpus", "FILE", "", "train on a UTF-8 text file instead of the grammar (vocabulary stored in the checkpoint): "
                                "a causal model of its characters, or with --tokens words any --model on its words");
    o.add("tokens", "T", "chars", "with --corpus: chars or words (whitespace-separated)");
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
    o.add("dropout", "P", standard(Task::causal, "--dropout"), "drop attention weights and residual branches with probability P in [0, 1) in training "
                               "steps (evaluation never drops)");
    o.add("eval-every", "N", standard(Task::causal, "--eval-every"), "validate and write the checkpoint every N steps");
    o.add("seed", "S", standard(Task::causal, "--seed"), "seed for weights and data");
    o.add_path("out", "PATH", "", "checkpoint to write (default: out/checkpoints/<model>_model.safetensors for the grammar, "
                                  "out/runs/<corpus name>_<model>_model.safetensors for a corpus; with --resume, the resumed "
                                  "checkpoint itself); the loss CSV goes beside it. It is never another run's checkpoint "
                                  "(other settings, steps or data) nor any other file, unless --overwrite; while the run "
                                  "writes it, PATH.lock names the run and a second trainer on PATH stops at once");
    o.add_switch("overwrite", "replace whatever file is at --out, another run's checkpoint included");
    o.add("keep", "WHICH", "", "what --out holds: last (the latest evaluation) or best (the lowest validation loss; the "
                               "loss CSV still records every evaluation). Default: best with --corpus, last on the grammar. "
                               "A run that diverges keeps its best either way");
    o.add_path("resume", "PATH", "", "continue the run saved in PATH: every setting comes from it, and only --steps (to "
                                "extend the run), --out, --keep and --overwrite may be given besides it");
}

void declare_generate(lab::Options& o) {
    o.add("checkpoint", "PATH", "", "a causal model (tinygpt train writes it)");
    o.add("prompt", "TEXT", "", "the text to continue, in the model's vocabulary");
    o.add("tokens", "N", "20", "new tokens at most (stops early at <eos> or when the context is full; stderr says which)");
    o.add("temperature", "T", "0", "0 = greedy, otherwise sample from softmax(logits / T)");
    o.add("top-k", "K", "0", "sample only among the K most likely tokens (0 = all)");
    o.add("top-p", "P", "1", "sample only among the fewest most likely tokens whose probability reaches P (1 = all)");
    o.add_switch("slide", "when the context is full, drop the oldest token and go on (each later step recomputes the "
                          "last context - 1 tokens); without it, generation stops there and says so");
    o.add("seed", "S", "0", "sampling seed");
    o.add_switch("no-kv-cache", "recompute the whole prefix every step (slower; same result)");
    o.add("show", "DIR", "", "draw, per layer, what each generated token attended to (DIR/generated_layerN)");
}

void declare_eval(lab::Options& o) {
    o.add("checkpoint", "PATH", "", "the model (tinygpt train writes it)");
    o.add("prompt", "TEXT", "", "the text to score, in the model's vocabulary");
    o.add_path("dump-logits", "F.npy", "", "logits as float32 [T, V]");
    o.add_path("dump-attention", "F.npy", "", "attention weights as float32 [L, H, T, T]");
    o.add_switch("overwrite", "let --dump-logits / --dump-attention replace a file that is not an .npy array "
                              "(never the checkpoint itself)");
}

void declare_show(lab::Options& o) {
    o.add("checkpoint", "PATH", "", "the model to look at (any tinygpt checkpoint)");
    o.add("prompt", "TEXT", "", "the text to run it on, in the model's vocabulary");
    o.add("sentences", "FILE", "", "one text per line instead (UTF-8, at most 64 lines that are not blank, " +
                                   std::to_string(lab::kMaxShowTotalCells) + " heatmap cells in all): DIR/sentence_1/, "
                                   "DIR/sentence_2/, ...");
    o.add("from-npy", "F.npy", "", "draw weights [L, H, T, T] that `tinygpt eval --dump-attention` wrote (with "
                                   "--checkpoint and --prompt, its tokens label the axes); T <= " +
                                   std::to_string(lab::kMaxShowTokens) + ", L x H <= " + std::to_string(lab::kMaxShowPanels) +
                                   ", (L x H + 2) x T^2 <= " + std::to_string(lab::kMaxShowCells));
    o.add("out", "DIR", "", "where the figures go: attention_heads, attention_flow, attention_rollout, attention_entropy "
                            "(.svg and .png each), and explorer.html, every text in one self-contained page");
    o.add_switch("graph", "with --prompt, also draw the graph backward() walks for its next-token loss: "
                          "autograd_graph (one box per module) and autograd_graph_attention (block 0's attention op by op)");
}

// A flag's value that is required.
std::string required(const lab::Options& o, const std::string& name) {
    if (!o.given(name)) throw UsageError("--" + name + " is required");
    return o.text(name);
}

// A path flag's value: never empty ("" if the flag is absent).
std::string path_flag(const lab::Options& o, const std::string& name) {
    if (o.given(name) && o.text(name).empty()) throw UsageError("--" + name + " needs a file path, got ''");
    return o.given(name) ? o.text(name) : "";
}

// An input file must be a non-empty regular file, checked with stat before it is opened:
// open(2) on a FIFO blocks until a writer comes, a directory reads as nothing useful.
void check_input(const std::string& what, const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw UsageError(what + " '" + path + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw UsageError(what + " '" + path + "' is a directory, not a file");
    if (!S_ISREG(st.st_mode))
        throw UsageError(what + " '" + path + "' is not a regular file (a FIFO, device or socket); give a file");
    if (st.st_size == 0) throw UsageError(what + " '" + path + "' is empty (stat reports 0 bytes)");
}

// An output may be new or a regular file, which is then replaced atomically; anything else
// (a directory, /dev/null, a FIFO) is refused rather than replaced by a regular file.
void check_output(const std::string& what, const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;  // does not exist yet
    if (S_ISDIR(st.st_mode)) throw UsageError(what + " '" + path + "' is a directory, not a file");
    if (!S_ISREG(st.st_mode)) throw UsageError(what + " '" + path + "' exists and is not a regular file; it is left alone");
}

// ---- train ---------------------------------------------------------------------------

std::string describe_task(const lab::TrainConfig& c) {
    if (c.corpus.empty()) return lab::info(c.task).cli;
    return c.task == Task::chars ? "characters of '" + c.corpus + "'" : std::string(lab::info(c.task).cli) + " on the words of '" + c.corpus + "'";
}

// Flags that set settings of the table other than by their text: --mask sets three, --unscaled is a switch.
bool composite(const lab::RunSetting& s) {
    for (const char* f : {"--mask", "--unscaled", "--tokens"})
        if (s.flag == std::string_view(f)) return true;
    return false;
}

// --mask none|causal|local:W|strided:S -> causal_mask, window, stride.
void apply_mask(lab::TrainConfig& c, const std::string& m) {
    const bool next_token = lab::info(c.task).next_token;
    const auto number = [&](std::string_view prefix, std::int64_t& field) {
        const auto n = lab::parse_int64(std::string_view(m).substr(prefix.size()));
        if (!n || *n < 1 || *n > nn::ModelLimits::max_context)
            throw UsageError("--mask " + m + ": " + std::string(prefix) + (prefix == "local:" ? "W" : "S") + " needs an integer in [1, " +
                             std::to_string(nn::ModelLimits::max_context) + "]");
        field = *n;
    };
    c.window = c.stride = 0;
    if (m == "none") {
        c.causal_mask = false;
    } else if (m == "causal") {
        if (!next_token)
            throw UsageError(std::string("--mask causal: ") + lab::info(c.task).cli +
                             " predicts hidden words from both sides; the causal mask is for next-token models");
        c.causal_mask = true;
    } else if (m.starts_with("local:")) {
        number("local:", c.window);
    } else if (m.starts_with("strided:")) {
        number("strided:", c.stride);
    } else {
        throw UsageError("--mask needs none, causal, local:W or strided:S, got '" + m + "'");
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
    if (o.given("tokens")) {
        if (o.text("tokens") != "words" && o.text("tokens") != "chars")
            throw UsageError("--tokens needs words or chars, got '" + o.text("tokens") + "'");
        c.word_tokens = o.text("tokens") == "words";
    }
    return c;
}

// "--lr 0.01", "--unscaled": how the user gave a flag, for messages.
std::string as_given(const lab::Options& o, const std::string& flag) {
    return flag == "--unscaled" ? flag : flag + " " + o.text(flag.substr(2));
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
    return "out/runs/" + name + "_" + (c.word_tokens ? "words_" : "") + model + ".safetensors";
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
    std::printf(", accuracy %.1f%%, %.1f s, %.0f tokens/s\nwrote %s and %s\n", 100 * r.final_eval.accuracy, r.seconds,
                r.tokens_per_second, c.out.c_str(), lab::loss_csv_path(c.out).c_str());
    return 0;
}

// ---- generate and eval ---------------------------------------------------------------

// The checkpoint of --checkpoint, with its kind known (the loader checks the rest), so that
// no later message blames the prompt for what the file holds.
nn::LoadedCheckpoint load(const lab::Options& o) {
    const std::string path = path_flag(o, "checkpoint");
    if (path.empty()) throw UsageError("--checkpoint is required");
    check_input("--checkpoint", path);
    nn::LoadedCheckpoint ck = nn::load_checkpoint(path);
    try {
        lab::task_from_kind(ck.info.kind);
    } catch (const ValueError& e) {
        throw IOError("--checkpoint '" + path + "': metadata 'kind': " + e.what());
    }
    return ck;
}

// --prompt's text: given and not empty (an empty prompt has nothing to continue or score).
std::string prompt_flag(const lab::Options& o) {
    const std::string prompt = required(o, "prompt");
    if (prompt.empty()) throw UsageError("--prompt is empty; give the text, in the model's vocabulary");
    return prompt;
}

bool is_chars(const nn::LoadedCheckpoint& ck) { return lab::task_from_kind(ck.info.kind) == Task::chars; }

// Prompt text -> token ids, with the tokenizer the checkpoint was trained with. `source`
// names where the text came from in messages: "--prompt", "--sentences 'f' line 3".
std::vector<std::int64_t> encode_prompt(const nn::LoadedCheckpoint& ck, const std::string& prompt,
                                        const std::string& source = "--prompt") {
    if (!is_chars(ck) && prompt.find_first_not_of(" \t\n\r\v\f") == std::string::npos)
        throw ValueError(source + " '" + prompt + "' holds no words; the model reads whitespace-separated words");
    try {
        if (is_chars(ck)) {
            std::string text;
            for (std::size_t i = 1; i < ck.info.vocab.size(); ++i) text += ck.info.vocab[i];
            return data::CharTokenizer::from_text(text, "checkpoint vocabulary").encode(prompt);
        }
        std::vector<std::string> words(ck.info.vocab.begin() + data::Vocab::kFirstWord, ck.info.vocab.end());
        // Grammar rows open with <bos>; a corpus's words are one stream without it.
        std::vector<std::int64_t> ids;
        if (!ck.metadata.contains("corpus") || ck.metadata.at("corpus").empty()) ids.push_back(data::Vocab::kBos);
        for (std::int64_t id : data::WordTokenizer(data::Vocab(words)).encode(prompt)) ids.push_back(id);
        return ids;
    } catch (const ValueError& e) {
        throw ValueError(source + " '" + prompt + "': " + e.what() + " of the checkpoint");
    }
}

std::string token_text(const nn::LoadedCheckpoint& ck, std::int64_t id) {
    const std::string& t = ck.info.vocab.at(static_cast<std::size_t>(id));
    return is_chars(ck) ? t : " " + t;
}

// A token as an axis label: visible whitespace for a character model.
std::string label(const nn::LoadedCheckpoint& ck, std::int64_t id) {
    const std::string& t = ck.info.vocab.at(static_cast<std::size_t>(id));
    return is_chars(ck) ? lab::token_label(t) : t;
}

// The model's attention on ids, one [H, T, T] tensor per layer, labelled with its tokens.
// `source` names the text in messages ("--prompt 'the cat'").
lab::AttentionOf attention_of(nn::LoadedCheckpoint& ck, const std::vector<std::int64_t>& ids, const std::string& title,
                              const std::string& source) {
    const nn::TransformerConfig& c = ck.model->config();
    if (static_cast<std::int64_t>(ids.size()) > c.context)
        throw ValueError(source + " has " + std::to_string(ids.size()) + " tokens, more than the context of " +
                         std::to_string(c.context));
    lab::check_drawable(c.n_layers, c.n_heads, static_cast<std::int64_t>(ids.size()), source);  // before the forward pass
    NoGradGuard no_grad;
    ck.model->eval();
    ck.model->trace().enabled = true;
    ck.model->forward(from_vector(ids, {1, static_cast<std::int64_t>(ids.size())}));
    lab::AttentionOf a{title, "", {}, {}, ids};
    for (std::int64_t id : ids) a.tokens.push_back(label(ck, id));
    for (const Tensor& w : ck.model->trace().layers) a.layers.push_back(w.select(0, 0).contiguous());  // [H, T, T]
    ck.model->trace().enabled = false;
    return a;
}

// An output folder: new, or an existing directory (a file there is refused).
std::string out_dir(const lab::Options& o, const std::string& flag) {
    const std::string dir = path_flag(o, flag);
    if (dir.empty()) throw UsageError("--" + flag + " DIR is required");
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
        throw UsageError("--" + flag + " '" + dir + "' exists and is not a directory");
    return dir;
}

// At most this many lines of --sentences: each becomes four figures and a share of the page.
constexpr std::size_t kMaxSentences = 64;

void report(const std::vector<std::string>& stems) {
    for (const std::string& s : stems) std::printf("wrote %s.svg and .png\n", s.c_str());
}

int cmd_show(const lab::Options& o) {
    const std::string dir = out_dir(o, "out");
    const int sources = o.given("prompt") + o.given("sentences");
    if (o.on("graph") && (o.given("from-npy") || !o.given("prompt")))
        throw UsageError("--graph draws one text's graph: give it with --prompt TEXT (not --sentences or --from-npy)");
    if (o.given("from-npy")) {
        check_input("--from-npy", path_flag(o, "from-npy"));
        if (o.given("sentences")) throw UsageError("--from-npy draws one text's weights; --sentences does not apply");
        const Tensor w = load_npy(path_flag(o, "from-npy"));
        if (w.dim() != 4 || w.size(2) != w.size(3))
            throw ValueError("show: '" + o.text("from-npy") + "' holds " + w.shape().str() +
                             ", not attention weights [L, H, T, T] (tinygpt eval --dump-attention writes those)");
        lab::check_drawable(w.size(0), w.size(1), w.size(2), "--from-npy '" + o.text("from-npy") + "' " + w.shape().str());
        lab::AttentionOf att{o.text("from-npy"), o.given("prompt") ? o.text("prompt") : o.text("from-npy"), {}, {}, {}};
        if (o.given("checkpoint")) {
            nn::LoadedCheckpoint ck = load(o);
            for (std::int64_t id : encode_prompt(ck, prompt_flag(o))) att.tokens.push_back(label(ck, id));
        } else {
            for (std::int64_t t = 0; t < w.size(2); ++t) att.tokens.push_back(std::to_string(t));
        }
        for (std::int64_t l = 0; l < w.size(0); ++l) att.layers.push_back(w.select(0, l).to(kFloat32).contiguous());
        report(lab::draw_attention(att, dir));
        // Causal if nothing above the diagonal was attended to: the page then greys those pairs.
        const bool causal = max(triu(abs(w.to(kFloat64)), 1)).item() == 0;
        std::printf("wrote %s\n", lab::write_explorer(att.title, causal, {att}, dir).c_str());
        return 0;
    }
    if (sources != 1) throw UsageError("give --prompt TEXT or --sentences FILE (one of them), or --from-npy F.npy");
    nn::LoadedCheckpoint ck = load(o);
    const std::string name = std::filesystem::path(o.text("checkpoint")).stem().string();
    std::vector<std::string> texts, origins;  // origins: where each text came from, for messages
    if (o.given("prompt")) {
        texts.push_back(prompt_flag(o));
        origins.push_back("--prompt");
    } else {
        const std::string path = path_flag(o, "sentences");
        check_input("--sentences", path);
        const std::string file = read_file(path);
        data::check_text(file, "--sentences '" + path + "'");  // before any line of it reaches a message
        std::size_t line_no = 0;
        for (std::size_t start = 0; start < file.size();) {
            std::size_t end = file.find('\n', start);
            if (end == std::string::npos) end = file.size();
            const std::string line = file.substr(start, end - start);
            ++line_no;
            if (line.find_first_not_of(" \t\r") != std::string::npos) {
                if (texts.size() == kMaxSentences)
                    throw ValueError("--sentences '" + path + "' has more than " + std::to_string(kMaxSentences) +
                                     " sentences (line " + std::to_string(line_no) + "); each one is drawn as four figures");
                texts.push_back(line);
                origins.push_back("--sentences '" + path + "' line " + std::to_string(line_no));
            }
            start = end + 1;
        }
        if (texts.empty()) throw ValueError("show: '" + path + "' has no sentences (every line is blank)");
    }
    // Every text is tokenized and sized before the first is drawn: the whole show's work is
    // bounded up front (lab::kMaxShowTotalCells), not found too large half-way through.
    std::vector<std::vector<std::int64_t>> encoded;
    std::int64_t cells = 0;
    const nn::TransformerConfig& c = ck.model->config();
    for (std::size_t i = 0; i < texts.size(); ++i) {
        encoded.push_back(encode_prompt(ck, texts[i], origins[i]));
        const auto T = static_cast<std::int64_t>(encoded.back().size());
        lab::check_drawable(c.n_layers, c.n_heads, T, origins[i]);
        cells += lab::show_cells(c.n_layers, c.n_heads, T);
    }
    if (cells > lab::kMaxShowTotalCells)
        throw ValueError("--sentences '" + o.text("sentences") + "': its " + std::to_string(texts.size()) + " texts are " +
                         std::to_string(cells) + " heatmap cells on this model (" + std::to_string(c.n_layers) + " layers x " +
                         std::to_string(c.n_heads) + " heads), more than the " + std::to_string(lab::kMaxShowTotalCells) +
                         " one show draws; give fewer or shorter lines");
    std::vector<lab::AttentionOf> all;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        all.push_back(attention_of(ck, encoded[i], name + " on \"" + texts[i] + "\"", origins[i]));
        all.back().text = texts[i];
        report(lab::draw_attention(all.back(), o.given("prompt") ? dir : dir + "/sentence_" + std::to_string(i + 1)));
    }
    if (o.on("graph")) {
        if (!ck.model->config().causal)
            throw ValueError("show --graph: '" + o.text("checkpoint") + "' is a bidirectional model; the graph is drawn for "
                             "the next-token loss, which only a causal one is trained on");
        report(lab::write_model_graph(*ck.model, encode_prompt(ck, texts[0]), name, dir));
    }
    std::printf("wrote %s\n", lab::write_explorer(ck, name, all, dir).c_str());
    return 0;
}

int cmd_generate(const lab::Options& o) {
    nn::GenerateOptions g_opt;
    g_opt.max_new_tokens = o.integer("tokens", 1, 1000000);
    g_opt.temperature = o.real("temperature", 0, 1000);
    g_opt.top_k = o.integer("top-k", 0, 1000000);
    g_opt.top_p = o.real("top-p", 1e-9, 1);
    g_opt.slide_window = o.on("slide");
    g_opt.seed = o.seed();
    g_opt.use_kv_cache = !o.on("no-kv-cache");
    const std::string prompt = prompt_flag(o);
    nn::LoadedCheckpoint ck = load(o);
    if (!ck.model->config().causal)
        throw ValueError("generate: '" + o.text("checkpoint") + "' is a bidirectional (" +
                         (lab::info(lab::task_from_kind(ck.info.kind)).next_token ? "--mask none" : ck.info.kind) +
                         ") model: every position sees every other, so it cannot continue a text one token at a time; "
                         "generation needs a causal one");
    const std::string show_dir = o.given("show") ? out_dir(o, "show") : "";
    std::vector<std::int64_t> ids = encode_prompt(ck, prompt);
    const std::int64_t context = ck.model->config().context;
    if (static_cast<std::int64_t>(ids.size()) >= context && !g_opt.slide_window)
        throw ValueError("--prompt '" + prompt + "' is " + std::to_string(ids.size()) + " tokens and '" + o.text("checkpoint") +
                         "' has a context of " + std::to_string(context) + ": no position is left for a new token "
                         "(--slide keeps the last " + std::to_string(context - 1) + ")");
    if (!is_chars(ck)) g_opt.stop_token = data::Vocab::kEos;
    nn::Generation g = nn::generate(*ck.model, ids, g_opt);
    if (!show_dir.empty() && !g.tokens.empty()) {
        std::vector<std::int64_t> all = ids;
        all.insert(all.end(), g.tokens.begin(), g.tokens.end());
        // A slid window draws its last context positions, as the last step saw them.
        const std::size_t dropped = all.size() > static_cast<std::size_t>(context) ? all.size() - context : 0;
        all.erase(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(dropped));
        const std::size_t prompt_shown = ids.size() > dropped ? ids.size() - dropped : 0;
        const std::string name = std::filesystem::path(o.text("checkpoint")).stem().string();
        report(lab::draw_generation(attention_of(ck, all, name + " continuing \"" + prompt + "\"", "generate --show"),
                                    prompt_shown, show_dir));
    }
    std::string text = prompt;
    for (std::int64_t id : g.tokens) text += id == g_opt.stop_token ? " <eos>" : token_text(ck, id);
    std::printf("%s\n", text.c_str());
    // Why it stopped, so that 28 tokens of 200 asked is not a mystery.
    const bool slid = ids.size() + g.tokens.size() > static_cast<std::size_t>(context);
    std::fprintf(stderr, "%s; %.2f ms (%s)\n", nn::describe_stop(g, g_opt, context).c_str(), g.milliseconds,
                 !g_opt.use_kv_cache ? "no cache" : slid ? "KV cache until the context was full, then a sliding window" : "KV cache");
    return 0;
}

int cmd_eval(const lab::Options& o) {
    const std::string logits_path = path_flag(o, "dump-logits"), attention_path = path_flag(o, "dump-attention");
    if (!logits_path.empty() && !attention_path.empty() && same_file(logits_path, attention_path))
        throw UsageError("--dump-logits and --dump-attention are the same file '" + logits_path + "'; give two paths");
    for (const auto& [flag, path] : {std::pair{"--dump-logits", logits_path}, std::pair{"--dump-attention", attention_path}}) {
        if (path.empty()) continue;
        if (o.given("checkpoint") && same_file(path, o.text("checkpoint")))
            throw UsageError(std::string(flag) + " '" + path + "' is the checkpoint; it would be overwritten");
        try {
            attnlab::check_output(flag, path, "a .npy array", o.on("overwrite"));
        } catch (const IOError& e) {
            throw UsageError(e.what());
        }
    }
    const std::string prompt = prompt_flag(o);
    nn::LoadedCheckpoint ck = load(o);
    std::vector<std::int64_t> ids = encode_prompt(ck, prompt);
    if (static_cast<std::int64_t>(ids.size()) > ck.model->config().context)
        throw ValueError("--prompt '" + prompt + "' is " + std::to_string(ids.size()) + " tokens, more than the context of " +
                         std::to_string(ck.model->config().context) + " of '" + o.text("checkpoint") + "'");
    NoGradGuard no_grad;
    ck.model->eval();
    ck.model->trace().enabled = true;
    const std::int64_t T = static_cast<std::int64_t>(ids.size());
    Tensor logits = ck.model->forward(from_vector(ids, {1, T})).select(0, 0);  // [T, V]
    Tensor logp = log_softmax(logits, -1);
    auto word = [&](std::int64_t t) { return ck.info.vocab[static_cast<std::size_t>(ids[static_cast<std::size_t>(t)])].c_str(); };
    if (ck.model->config().causal) {
        std::printf("%-4s %-12s %-12s %10s\n", "pos", "token", "next", "loss");
        double total = 0;
        for (std::int64_t t = 0; t + 1 < T; ++t) {
            const double loss = -logp.at({t, ids[static_cast<std::size_t>(t + 1)]});
            total += loss;
            std::printf("%-4lld %-12s %-12s %10.4f\n", static_cast<long long>(t), word(t), word(t + 1), loss);
        }
        if (T > 1) std::printf("mean loss %.4f nats/token over %lld predictions\n", total / static_cast<double>(T - 1), static_cast<long long>(T - 1));
    } else {  // bidirectional: the loss of each token given all the others shown
        std::printf("%-4s %-12s %10s\n", "pos", "token", "-log p");
        for (std::int64_t t = 0; t < T; ++t)
            std::printf("%-4lld %-12s %10.4f\n", static_cast<long long>(t), word(t), -logp.at({t, ids[static_cast<std::size_t>(t)]}));
    }
    if (!logits_path.empty()) save_npy(logits_path, logits.contiguous());
    if (!attention_path.empty()) {
        std::vector<Tensor> layers;
        for (const Tensor& w : ck.model->trace().layers) layers.push_back(w.select(0, 0));  // [H, T, T]
        save_npy(attention_path, stack(layers, 0));                                          // [L, H, T, T]
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string cmd =
        lab::subcommand(argc, argv, "tinygpt", "Train, sample from and look inside the toy transformers.",
                        {{"train", "train a toy transformer on the toy grammar or a text file"},
                         {"generate", "continue a prompt with a trained causal model (KV-cached)"},
                         {"eval", "per-token loss of a prompt; dump logits and attention as .npy"},
                         {"show", "draw what a model attends to on your text (heatmaps, flow, rollout, entropy)"}});
    const std::map<std::string, std::pair<const char*, void (*)(lab::Options&)>> commands{
        {"train", {"Train a toy transformer; every --eval-every steps validate and write the checkpoint.\n"
                   "What it writes: --out, its loss CSV and, while it runs, --out.lock; nothing else. An empty path,\n"
                   "a directory, the corpus, another kind of file or another run's checkpoint (other settings, steps\n"
                   "or data) is refused unless --overwrite; continuing a run (--resume X, or the same run again) may\n"
                   "write its own file. A run that diverges (a loss, gradient or weight not finite, or a validation\n"
                   "loss above twice its best and above ln V) stops with exit status 1 naming the step, and leaves\n"
                   "the best validation step's checkpoint. A killed run leaves its last checkpoint whole; the next\n"
                   "write removes its temporaries.",
                   declare_train}},
        {"generate", {"Continue --prompt with a causal model from --checkpoint.", declare_generate}},
        {"eval", {"Per-token loss of --prompt under --checkpoint; dump logits and attention as .npy.", declare_eval}},
        {"show", {"Draw what a model attends to: --checkpoint with --prompt or --sentences, or --from-npy.", declare_show}}};
    lab::Options o("tinygpt " + cmd, commands.at(cmd).first);
    commands.at(cmd).second(o);
    o.parse(argc - 1, argv + 1);
    try {
        if (cmd == "train") return cmd_train(o);
        if (cmd == "generate") return cmd_generate(o);
        if (cmd == "eval") return cmd_eval(o);
        return cmd_show(o);
    } catch (const UsageError& e) {
        o.usage_error(e.what());
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "tinygpt %s: out of memory\n", cmd.c_str());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tinygpt %s: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
