// tinygpt.cpp — train, sample from and inspect the toy transformers.
//
//   tinygpt train    [--model causal|single-head|multi-head | --corpus FILE] [--steps N] ...
//   tinygpt train    --resume CKPT [--steps N] [--out PATH]
//   tinygpt generate --checkpoint F --prompt "the cat" [--tokens N] [--temperature T] [--top-k K] ...
//   tinygpt eval     --checkpoint F --prompt "..." [--dump-logits F.npy] [--dump-attention F.npy]
//
// Every subcommand has --help. An unknown flag or a bad value prints the usage
// and exits with status 2; a failure while running (a missing or corrupt
// checkpoint, an unknown word, a run that diverged) prints the error and exits
// with status 1. Files are checked before they are opened: an input must be a
// non-empty regular file (a FIFO would block forever, a directory has no bytes),
// an output must not be anything but a regular file.
#include <sys/stat.h>

#include <algorithm>
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
#include "data/vocab.hpp"
#include "lab/run_config.hpp"
#include "lab/show.hpp"
#include "lab/train.hpp"
#include "nn/checkpoint.hpp"
#include "nn/generate.hpp"
#include "nn/transformer_spec.hpp"
#include "tensor/fileio.hpp"
#include "tensor/npy.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;
using lab::Task;

namespace {

const char* kUsage =
    "usage: tinygpt <command> [options]      (tinygpt <command> --help for its options)\n"
    "commands:\n"
    "  train      train a toy transformer on the toy grammar or a text file\n"
    "  generate   continue a prompt with a trained causal model (KV-cached)\n"
    "  eval       per-token loss of a prompt; dump logits and attention as .npy\n"
    "  show       draw what a model attends to on your text (heatmaps, flow, rollout, entropy)\n";

using Limits = nn::ModelLimits;
const std::string kTrainUsage =
    "usage: tinygpt train [options]\n"
    "  --model causal|single-head|multi-head|qkv-head  task and model (default causal = TinyGPT;\n"
    "                    qkv-head: one head of W_Q, W_K, W_V only, no biases, no W_O)\n"
    "  --corpus FILE     train on a UTF-8 text file instead of the grammar (vocabulary stored in\n"
    "                    the checkpoint): a causal model of its characters, or with\n"
    "                    --tokens words, any --model on its whitespace-separated words\n"
    "  --tokens T        with --corpus: chars (default) or words\n"
    "  --steps N         optimizer steps (default: causal 600, masked-token models 1000)\n"
    "  --d-model D       model width (default 64, at most " + std::to_string(Limits::max_d_model) + ")\n"
    "  --heads H         attention heads (default 4; single-head has 1)\n"
    "  --layers L        transformer blocks (default 2, at most " + std::to_string(Limits::max_layers) + ")\n"
    "  --context T       tokens per row, the model's context (default 32, at most " + std::to_string(Limits::max_context) + ")\n"
    "  --batch B         rows per batch (default: causal 16, masked-token models 32)\n"
    "  --lr X            peak learning rate, AdamW with warm-up + cosine (default 0.003)\n"
    "  --warmup N        warm-up steps (default 100)\n"
    "  --weight-decay X  AdamW's decoupled weight decay (default 0.01)\n"
    "  --clip X          gradient-norm limit (default 1)\n"
    "  --mask-prob P     masked-token models: share of words hidden (default 0.15)\n"
    "  --mask M          which keys each query sees: causal (default for next-token models), none\n"
    "                    (no mask: a next-token model then sees the answer), local:W (|i-j| <= W)\n"
    "                    or strided:S (i-j divisible by S); local and strided keep the causal mask\n"
    "                    of next-token models\n"
    "  --unscaled        scores q.k without the 1/sqrt(d_k) (phase 1's experiment, trained)\n"
    "  --dropout P       drop attention weights and residual branches with probability P in\n"
    "                    training steps, P in [0, 1) (default 0; evaluation never drops)\n"
    "  --eval-every N    validate and write the checkpoint every N steps (default 100)\n"
    "  --seed S          seed for weights and data (default 0)\n"
    "  --out PATH        checkpoint to write (default out/checkpoints/<model>_model.safetensors;\n"
    "                    with --resume, the resumed checkpoint itself)\n"
    "  --resume PATH     continue the run saved in PATH: every setting comes from it, and only\n"
    "                    --steps (to extend the run) and --out may be given besides it\n";

const char* kGenerateUsage =
    "usage: tinygpt generate --checkpoint F --prompt TEXT [options]\n"
    "  --tokens N        new tokens at most (default 20; stops early at <eos>)\n"
    "  --temperature T   0 = greedy (default), otherwise sample from softmax(logits / T)\n"
    "  --top-k K         sample only among the K most likely tokens (default 0 = all)\n"
    "  --seed S          sampling seed (default 0)\n"
    "  --no-kv-cache     recompute the whole prefix every step (slower; same result)\n"
    "  --show DIR        draw, per layer, what each generated token attended to (DIR/generated_layerN)\n";

const char* kShowUsage =
    "usage: tinygpt show --out DIR (--checkpoint F (--prompt TEXT | --sentences FILE) | --from-npy F.npy)\n"
    "  --checkpoint F     the model to look at (any tinygpt checkpoint)\n"
    "  --prompt TEXT      the text to run it on, in the model's vocabulary\n"
    "  --sentences FILE   one text per line instead: DIR/sentence_1/, DIR/sentence_2/, ...\n"
    "  --from-npy F.npy   draw weights [L, H, T, T] that `tinygpt eval --dump-attention` wrote\n"
    "                     (with --checkpoint and --prompt, its tokens label the axes)\n"
    "  --out DIR          where the figures go: attention_heads, attention_flow,\n"
    "                     attention_rollout, attention_entropy (.svg and .png each), and\n"
    "                     explorer.html, every text in one self-contained page\n";

const char* kEvalUsage =
    "usage: tinygpt eval --checkpoint F --prompt TEXT [options]\n"
    "  --dump-logits F.npy     logits as float32 [T, V]\n"
    "  --dump-attention F.npy  attention weights as float32 [L, H, T, T]\n";

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct HelpRequested {};

// Flags of one subcommand: --name VALUE pairs and bare switches.
class Args {
public:
    Args(int argc, char** argv, int first, const std::vector<std::string>& valued, const std::vector<std::string>& switches) {
        for (int i = first; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--help" || a == "-h") throw HelpRequested{};
            if (std::find(switches.begin(), switches.end(), a) != switches.end()) {
                values_[a] = "1";
            } else if (std::find(valued.begin(), valued.end(), a) != valued.end()) {
                if (i + 1 >= argc) throw UsageError(a + " needs a value");
                if (values_.contains(a)) throw UsageError(a + " is given twice");
                values_[a] = argv[++i];
            } else {
                throw UsageError("unknown option '" + a + "'");
            }
        }
    }
    bool has(const std::string& k) const { return values_.contains(k); }
    std::string str(const std::string& k, const std::string& fallback = "") const {
        auto it = values_.find(k);
        return it == values_.end() ? fallback : it->second;
    }
    std::string required(const std::string& k) const {
        if (!has(k)) throw UsageError(k + " is required");
        return str(k);
    }
    std::int64_t integer(const std::string& k, std::int64_t fallback, std::int64_t lo) const {
        if (!has(k)) return fallback;
        const auto v = lab::parse_int64(str(k));
        if (!v || *v < lo) throw UsageError(k + " needs an integer >= " + std::to_string(lo) + ", got '" + str(k) + "'");
        return *v;
    }
    std::uint64_t seed(const std::string& k) const {
        const auto v = lab::parse_uint64(str(k, "0"));
        if (!v) throw UsageError(k + " needs an integer >= 0, got '" + str(k) + "'");
        return *v;
    }
    double real(const std::string& k, double fallback, double lo) const {
        if (!has(k)) return fallback;
        const auto v = lab::parse_real(str(k));
        if (!v || *v < lo)
            throw UsageError(k + " needs a finite number >= " + lab::format_real(lo) + ", got '" + str(k) + "'");
        return *v;
    }
    // A path flag's value: never empty.
    std::string path(const std::string& k, const std::string& fallback = "") const {
        if (has(k) && str(k).empty()) throw UsageError(k + " needs a file path, got ''");
        return str(k, fallback);
    }

private:
    std::map<std::string, std::string> values_;
};

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

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
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
lab::TrainConfig with_flags(lab::TrainConfig c, const Args& a) {
    for (const lab::RunSetting& s : lab::run_settings()) {
        if (!*s.flag || !a.has(s.flag) || composite(s)) continue;
        try {
            lab::set_setting(c, s, a.str(s.flag), s.flag);
        } catch (const ValueError& e) {
            throw UsageError(e.what());
        }
    }
    if (a.has("--mask")) apply_mask(c, a.str("--mask"));
    if (a.has("--unscaled")) c.scaled = false;
    if (a.has("--tokens")) {
        if (a.str("--tokens") != "words" && a.str("--tokens") != "chars")
            throw UsageError("--tokens needs words or chars, got '" + a.str("--tokens") + "'");
        c.word_tokens = a.str("--tokens") == "words";
    }
    return c;
}

// "--lr 0.01", "--unscaled": how the user gave a flag, for messages.
std::string as_given(const Args& a, const std::string& flag) { return flag == "--unscaled" ? flag : flag + " " + a.str(flag); }

// --resume CKPT: the stored run, with --steps, --out and --corpus the only flags that may differ.
lab::TrainConfig resumed_config(const Args& a) {
    const std::string path = a.path("--resume");
    check_input("--resume", path);
    const nn::LoadedCheckpoint ck = nn::load_checkpoint(path);
    const lab::StoredRun stored = lab::stored_run(ck, path);
    lab::TrainConfig c = stored.config;
    lab::TrainConfig asked = with_flags(stored.config, a);
    if (a.has("--model")) {
        try {
            asked.task = lab::task_from_cli(a.str("--model"));
        } catch (const ValueError& e) {
            throw UsageError(std::string("--model: ") + e.what());
        }
    }
    for (const lab::Difference& d : lab::differences(stored.config, asked))
        throw UsageError(as_given(a, d.flag) + " contradicts '" + path + "', which was trained with " + d.key + " " +
                         d.stored + " (with --resume only --steps may change)");
    if (a.has("--corpus")) {
        if (c.corpus.empty()) throw UsageError("--corpus: '" + path + "' is a " + lab::info(c.task).cli + " model of the grammar, not of a corpus");
        c.corpus = a.path("--corpus");  // may have moved: train() checks that it is the same text
    }
    if (!c.corpus.empty()) check_input(a.has("--corpus") ? "--corpus" : "the checkpoint's corpus", c.corpus);
    if (a.has("--steps")) {
        c.steps = asked.steps;
        if (c.steps <= stored.step)
            throw UsageError("--steps " + std::to_string(c.steps) + " must exceed the step of '" + path + "', " +
                             std::to_string(stored.step));
    } else if (stored.step >= c.steps) {
        throw UsageError("'" + path + "' has done all " + std::to_string(c.steps) + " steps of its run; give --steps N > " +
                         std::to_string(c.steps) + " to train it further");
    }
    c.resume = path;
    c.out = a.path("--out", path);
    std::printf("tinygpt train: resuming '%s' at step %lld\n", path.c_str(), static_cast<long long>(stored.step));
    return c;
}

lab::TrainConfig fresh_config(const Args& a) {
    Task task = Task::causal;
    if (a.has("--model")) {
        try {
            task = lab::task_from_cli(a.str("--model"));
        } catch (const ValueError&) {
            throw UsageError("--model must be " + lab::cli_choices() + ", got '" + a.str("--model") + "'");
        }
    }
    if (a.has("--tokens") && !a.has("--corpus")) throw UsageError("--tokens " + a.str("--tokens") + " needs --corpus FILE (the grammar has its own words)");
    if (a.has("--corpus")) {
        check_input("--corpus", a.path("--corpus"));
        const bool words = a.str("--tokens", "chars") == "words";
        if (!words && task != Task::causal)
            throw UsageError("--corpus at character level trains a causal next-character model; --model " + a.str("--model") +
                             " (masked-token) needs --tokens words");
        if (!words) task = Task::chars;
    }
    // Defaults: the recipe `make train` uses for that model (the char model: TinyGPT's).
    lab::TrainConfig c = lab::standard_config(task == Task::chars ? Task::causal : task);
    c.task = task;
    c.corpus = a.str("--corpus");
    c = with_flags(c, a);
    c.out = a.path("--out", "out/checkpoints/" + std::string(lab::info(task).model_name) + ".safetensors");
    return c;
}

int cmd_train(const Args& a) {
    lab::TrainConfig c = a.has("--resume") ? resumed_config(a) : fresh_config(a);
    check_output("--out", c.out);
    if (!c.corpus.empty() && same_file(c.out, c.corpus)) throw UsageError("--out '" + c.out + "' is the corpus; it would be overwritten");
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

nn::LoadedCheckpoint load(const Args& a) {
    const std::string path = a.path("--checkpoint");
    if (path.empty()) throw UsageError("--checkpoint is required");
    check_input("--checkpoint", path);
    return nn::load_checkpoint(path);
}

bool is_chars(const nn::LoadedCheckpoint& ck) { return lab::task_from_kind(ck.info.kind) == Task::chars; }

// Prompt text -> token ids, with the tokenizer the checkpoint was trained with.
std::vector<std::int64_t> encode_prompt(const nn::LoadedCheckpoint& ck, const std::string& prompt) {
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
        throw ValueError("--prompt '" + prompt + "': " + e.what() + " of the checkpoint");
    }
}

std::string token_text(const nn::LoadedCheckpoint& ck, std::int64_t id) {
    const std::string& t = ck.info.vocab.at(static_cast<std::size_t>(id));
    return is_chars(ck) ? t : " " + t;
}

// A token as an axis label: visible whitespace for a character model.
std::string label(const nn::LoadedCheckpoint& ck, std::int64_t id) {
    const std::string& t = ck.info.vocab.at(static_cast<std::size_t>(id));
    if (!is_chars(ck)) return t;
    return t == " " ? "_" : t == "\n" ? "\\n" : t == "\t" ? "\\t" : t;
}

// The model's attention on ids, one [H, T, T] tensor per layer, labelled with its tokens.
lab::AttentionOf attention_of(nn::LoadedCheckpoint& ck, const std::vector<std::int64_t>& ids, const std::string& title) {
    if (static_cast<std::int64_t>(ids.size()) > ck.model->config().context)
        throw ValueError("show: the text has " + std::to_string(ids.size()) + " tokens, more than the context of " +
                         std::to_string(ck.model->config().context));
    NoGradGuard no_grad;
    ck.model->eval();
    ck.model->trace().enabled = true;
    ck.model->forward(from_vector(ids, {1, static_cast<std::int64_t>(ids.size())}));
    lab::AttentionOf a{title, "", {}, {}};
    for (std::int64_t id : ids) a.tokens.push_back(label(ck, id));
    for (const Tensor& w : ck.model->trace().layers) a.layers.push_back(w.select(0, 0).contiguous());  // [H, T, T]
    ck.model->trace().enabled = false;
    return a;
}

// An output folder: new, or an existing directory (a file there is refused).
std::string out_dir(const Args& a, const std::string& flag) {
    const std::string dir = a.path(flag);
    if (dir.empty()) throw UsageError(flag + " DIR is required");
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) throw UsageError(flag + " '" + dir + "' exists and is not a directory");
    return dir;
}

void report(const std::vector<std::string>& stems) {
    for (const std::string& s : stems) std::printf("wrote %s.svg and .png\n", s.c_str());
}

int cmd_show(const Args& a) {
    const std::string dir = out_dir(a, "--out");
    const int sources = a.has("--prompt") + a.has("--sentences");
    if (a.has("--from-npy")) {
        check_input("--from-npy", a.path("--from-npy"));
        if (a.has("--sentences")) throw UsageError("--from-npy draws one text's weights; --sentences does not apply");
        const Tensor w = load_npy(a.path("--from-npy"));
        if (w.dim() != 4 || w.size(2) != w.size(3))
            throw ValueError("show: '" + a.str("--from-npy") + "' holds " + w.shape().str() +
                             ", not attention weights [L, H, T, T] (tinygpt eval --dump-attention writes those)");
        lab::AttentionOf att{a.str("--from-npy"), a.str("--prompt", a.str("--from-npy")), {}, {}};
        if (a.has("--checkpoint")) {
            nn::LoadedCheckpoint ck = load(a);
            for (std::int64_t id : encode_prompt(ck, a.required("--prompt"))) att.tokens.push_back(label(ck, id));
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
    nn::LoadedCheckpoint ck = load(a);
    const std::string name = std::filesystem::path(a.str("--checkpoint")).stem().string();
    std::vector<std::string> texts;
    if (a.has("--prompt")) {
        texts.push_back(a.str("--prompt"));
    } else {
        check_input("--sentences", a.path("--sentences"));
        const std::string file = read_file(a.str("--sentences"));
        for (std::size_t start = 0; start < file.size();) {
            std::size_t end = file.find('\n', start);
            if (end == std::string::npos) end = file.size();
            const std::string line = file.substr(start, end - start);
            if (line.find_first_not_of(" \t\r") != std::string::npos) texts.push_back(line);
            start = end + 1;
        }
        if (texts.empty()) throw ValueError("show: '" + a.str("--sentences") + "' has no sentences (every line is blank)");
    }
    std::vector<lab::AttentionOf> all;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        all.push_back(attention_of(ck, encode_prompt(ck, texts[i]), name + " on \"" + texts[i] + "\""));
        all.back().text = texts[i];
        report(lab::draw_attention(all.back(), a.has("--prompt") ? dir : dir + "/sentence_" + std::to_string(i + 1)));
    }
    std::printf("wrote %s\n", lab::write_explorer(ck, name, all, dir).c_str());
    return 0;
}

int cmd_generate(const Args& a) {
    nn::GenerateOptions o;
    o.max_new_tokens = a.integer("--tokens", 20, 1);
    o.temperature = a.real("--temperature", 0, 0);
    o.top_k = a.integer("--top-k", 0, 0);
    o.seed = a.seed("--seed");
    o.use_kv_cache = !a.has("--no-kv-cache");
    const std::string prompt = a.required("--prompt");
    nn::LoadedCheckpoint ck = load(a);
    if (!ck.model->config().causal)
        throw ValueError("generate: '" + a.str("--checkpoint") + "' is a bidirectional (" +
                         (lab::info(lab::task_from_kind(ck.info.kind)).next_token ? "--mask none" : ck.info.kind) +
                         ") model: every position sees every other, so it cannot continue a text one token at a time; "
                         "generation needs a causal one");
    const std::string show_dir = a.has("--show") ? out_dir(a, "--show") : "";
    std::vector<std::int64_t> ids = encode_prompt(ck, prompt);
    if (!is_chars(ck)) o.stop_token = data::Vocab::kEos;
    nn::Generation g = nn::generate(*ck.model, ids, o);
    if (!show_dir.empty() && !g.tokens.empty()) {
        std::vector<std::int64_t> all = ids;
        all.insert(all.end(), g.tokens.begin(), g.tokens.end());
        if (static_cast<std::int64_t>(all.size()) > ck.model->config().context) all.resize(static_cast<std::size_t>(ck.model->config().context));
        const std::string name = std::filesystem::path(a.str("--checkpoint")).stem().string();
        report(lab::draw_generation(attention_of(ck, all, name + " continuing \"" + prompt + "\""), ids.size(), show_dir));
    }
    std::string text = prompt;
    for (std::int64_t id : g.tokens) text += id == o.stop_token ? " <eos>" : token_text(ck, id);
    std::printf("%s\n", text.c_str());
    std::fprintf(stderr, "%zu tokens in %.2f ms (%s)\n", g.tokens.size(), g.milliseconds,
                 o.use_kv_cache ? "KV cache" : "no cache");
    return 0;
}

int cmd_eval(const Args& a) {
    const std::string logits_path = a.path("--dump-logits"), attention_path = a.path("--dump-attention");
    if (!logits_path.empty() && !attention_path.empty() && same_file(logits_path, attention_path))
        throw UsageError("--dump-logits and --dump-attention are the same file '" + logits_path + "'; give two paths");
    for (const auto& [flag, path] : {std::pair{"--dump-logits", logits_path}, std::pair{"--dump-attention", attention_path}}) {
        if (path.empty()) continue;
        check_output(flag, path);
        if (a.has("--checkpoint") && same_file(path, a.str("--checkpoint")))
            throw UsageError(std::string(flag) + " '" + path + "' is the checkpoint; it would be overwritten");
    }
    const std::string prompt = a.required("--prompt");
    nn::LoadedCheckpoint ck = load(a);
    std::vector<std::int64_t> ids = encode_prompt(ck, prompt);
    if (static_cast<std::int64_t>(ids.size()) > ck.model->config().context)
        throw ValueError("eval: the prompt has " + std::to_string(ids.size()) + " tokens, more than the context of " +
                         std::to_string(ck.model->config().context));
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

std::vector<std::string> train_flags() {
    std::vector<std::string> flags{"--model", "--corpus", "--out", "--resume"};
    for (const lab::RunSetting& s : lab::run_settings())
        if (*s.flag && s.flag != std::string_view("--unscaled") && std::find(flags.begin(), flags.end(), s.flag) == flags.end())
            flags.push_back(s.flag);
    return flags;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    const char* usage = cmd == "train"      ? kTrainUsage.c_str()
                        : cmd == "generate" ? kGenerateUsage
                        : cmd == "eval"     ? kEvalUsage
                        : cmd == "show"     ? kShowUsage
                                            : kUsage;
    try {
        if (cmd == "--help" || cmd == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (cmd == "train") return cmd_train(Args(argc, argv, 2, train_flags(), {"--unscaled"}));
        if (cmd == "generate")
            return cmd_generate(Args(argc, argv, 2, {"--checkpoint", "--prompt", "--tokens", "--temperature", "--top-k", "--seed", "--show"},
                                     {"--no-kv-cache"}));
        if (cmd == "eval")
            return cmd_eval(Args(argc, argv, 2, {"--checkpoint", "--prompt", "--dump-logits", "--dump-attention"}, {}));
        if (cmd == "show")
            return cmd_show(Args(argc, argv, 2, {"--checkpoint", "--prompt", "--sentences", "--from-npy", "--out"}, {}));
        throw UsageError("unknown command '" + cmd + "'");
    } catch (const HelpRequested&) {
        std::fputs(usage, stdout);
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "tinygpt: %s\n%s", e.what(), usage);
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "tinygpt %s: out of memory\n", cmd.c_str());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tinygpt: %s\n", e.what());
        return 1;
    }
}
