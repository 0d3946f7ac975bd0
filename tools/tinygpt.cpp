// tinygpt.cpp — train, sample from and inspect the toy transformers.
//
//   tinygpt train    [--model causal|single-head|multi-head] [--corpus FILE] [--steps N] ...
//   tinygpt generate --checkpoint F --prompt "the cat" [--tokens N] [--temperature T] [--top-k K] ...
//   tinygpt eval     --checkpoint F --prompt "..." [--dump-logits F.npy] [--dump-attention F.npy]
//
// Every subcommand has --help. An unknown flag or a bad value prints the usage
// and exits with status 2; a failure while running (a missing or corrupt
// checkpoint, an unknown word) prints the error and exits with status 1.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autograd/node.hpp"
#include "data/tokenizer.hpp"
#include "data/vocab.hpp"
#include "nn/checkpoint.hpp"
#include "nn/generate.hpp"
#include "nn/train.hpp"
#include "tensor/npy.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

namespace {

const char* kUsage =
    "usage: tinygpt <command> [options]      (tinygpt <command> --help for its options)\n"
    "commands:\n"
    "  train      train a toy transformer on the toy grammar or a text file\n"
    "  generate   continue a prompt with a trained causal model (KV-cached)\n"
    "  eval       per-token loss of a prompt; dump logits and attention as .npy\n";

const char* kTrainUsage =
    "usage: tinygpt train [options]\n"
    "  --model causal|single-head|multi-head  task and model (default causal = TinyGPT)\n"
    "  --corpus FILE     train a causal model on the characters of a UTF-8 file instead\n"
    "  --steps N         optimizer steps (default: causal 600, masked-token models 1000)\n"
    "  --d-model D       model width (default 64)\n"
    "  --heads H         attention heads (default 4; single-head uses 1)\n"
    "  --layers L        transformer blocks (default 2)\n"
    "  --context T       tokens per row, the model's context (default 32)\n"
    "  --batch B         rows per batch (default: causal 16, masked-token models 32)\n"
    "  --lr X            peak learning rate, AdamW with warm-up + cosine (default 0.003)\n"
    "  --seed S          seed for weights and data (default 0)\n"
    "  --out PATH        checkpoint to write (default out/checkpoints/<model>_model.safetensors)\n"
    "  --resume PATH     continue training from a checkpoint\n";

const char* kGenerateUsage =
    "usage: tinygpt generate --checkpoint F --prompt TEXT [options]\n"
    "  --tokens N        new tokens at most (default 20; stops early at <eos>)\n"
    "  --temperature T   0 = greedy (default), otherwise sample from softmax(logits / T)\n"
    "  --top-k K         sample only among the K most likely tokens (default 0 = all)\n"
    "  --seed S          sampling seed (default 0)\n"
    "  --no-kv-cache     recompute the whole prefix every step (slower; same result)\n";

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
        std::size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(str(k), &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != str(k).size() || v < lo)
            throw UsageError(k + " needs an integer >= " + std::to_string(lo) + ", got '" + str(k) + "'");
        return v;
    }
    double real(const std::string& k, double fallback, double lo) const {
        if (!has(k)) return fallback;
        std::size_t used = 0;
        double v = 0;
        try {
            v = std::stod(str(k), &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != str(k).size() || !(v >= lo) || !std::isfinite(v))
            throw UsageError(k + " needs a number >= " + std::to_string(lo) + ", got '" + str(k) + "'");
        return v;
    }

private:
    std::map<std::string, std::string> values_;
};

int cmd_train(const Args& a) {
    const std::string model = a.str("--model", "causal");
    if (model != "causal" && model != "single-head" && model != "multi-head")
        throw UsageError("--model must be causal, single-head or multi-head, got '" + model + "'");
    // Defaults: the recipe `make train` uses for that model.
    nn::TrainConfig c = nn::standard_config(model == "causal" ? "causal_model" : model == "single-head" ? "single_head_model" : "multi_head_model");
    c.corpus = a.str("--corpus");
    c.steps = a.integer("--steps", c.steps, 1);
    c.d_model = a.integer("--d-model", c.d_model, 1);
    c.n_heads = a.integer("--heads", c.n_heads, 1);
    c.n_layers = a.integer("--layers", c.n_layers, 1);
    c.context = a.integer("--context", c.context, 4);
    c.batch = a.integer("--batch", c.batch, 1);
    c.lr = a.real("--lr", c.lr, 0);
    c.seed = static_cast<std::uint64_t>(a.integer("--seed", 0, 0));
    c.resume = a.str("--resume");
    const std::string name = c.corpus.empty() ? (c.model == "causal" ? "causal" : c.model == "single-head" ? "single_head" : "multi_head") : "char";
    c.out = a.str("--out", "out/checkpoints/" + name + "_model.safetensors");
    std::printf("tinygpt train: %s, seed %llu, %lld steps -> %s\n", c.corpus.empty() ? c.model.c_str() : c.corpus.c_str(),
                static_cast<unsigned long long>(c.seed), static_cast<long long>(c.steps), c.out.c_str());
    nn::TrainResult r = nn::train(c);
    std::printf("validation loss %.4f", r.final_eval.loss);
    if (!std::isnan(r.final_eval.floor))
        std::printf(" (Bayes floor %.4f, %+.4f above)", r.final_eval.floor, r.final_eval.loss - r.final_eval.floor);
    std::printf(", accuracy %.1f%%, %.1f s, %.0f tokens/s\nwrote %s and %s\n", 100 * r.final_eval.accuracy, r.seconds,
                r.tokens_per_second, c.out.c_str(), nn::loss_csv_path(c.out).c_str());
    return 0;
}

// Prompt text -> token ids, with the tokenizer the checkpoint was trained with.
std::vector<std::int64_t> encode_prompt(const nn::LoadedCheckpoint& ck, const std::string& prompt) {
    if (ck.info.kind == "char") {
        std::string text;
        for (std::size_t i = 1; i < ck.info.vocab.size(); ++i) text += ck.info.vocab[i];
        return data::CharTokenizer::from_text(text, "checkpoint vocabulary").encode(prompt);
    }
    std::vector<std::string> words(ck.info.vocab.begin() + data::Vocab::kFirstWord, ck.info.vocab.end());
    std::vector<std::int64_t> ids{data::Vocab::kBos};
    for (std::int64_t id : data::WordTokenizer(data::Vocab(words)).encode(prompt)) ids.push_back(id);
    return ids;
}

std::string token_text(const nn::LoadedCheckpoint& ck, std::int64_t id) {
    const std::string& t = ck.info.vocab.at(static_cast<std::size_t>(id));
    return ck.info.kind == "char" ? t : " " + t;
}

int cmd_generate(const Args& a) {
    nn::GenerateOptions o;
    o.max_new_tokens = a.integer("--tokens", 20, 1);
    o.temperature = a.real("--temperature", 0, 0);
    o.top_k = a.integer("--top-k", 0, 0);
    o.seed = static_cast<std::uint64_t>(a.integer("--seed", 0, 0));
    o.use_kv_cache = !a.has("--no-kv-cache");
    nn::LoadedCheckpoint ck = nn::load_checkpoint(a.required("--checkpoint"));
    if (!ck.model->config().causal)
        throw ValueError("generate: '" + a.str("--checkpoint") + "' is a bidirectional (" + ck.info.kind +
                         ") model; generation needs a causal one");
    const std::string prompt = a.required("--prompt");
    std::vector<std::int64_t> ids = encode_prompt(ck, prompt);
    if (ck.info.kind != "char") o.stop_token = data::Vocab::kEos;
    nn::Generation g = nn::generate(*ck.model, ids, o);
    std::string text = prompt;
    for (std::int64_t id : g.tokens) text += id == o.stop_token ? " <eos>" : token_text(ck, id);
    std::printf("%s\n", text.c_str());
    std::fprintf(stderr, "%zu tokens in %.2f ms (%s)\n", g.tokens.size(), g.milliseconds,
                 o.use_kv_cache ? "KV cache" : "no cache");
    return 0;
}

int cmd_eval(const Args& a) {
    nn::LoadedCheckpoint ck = nn::load_checkpoint(a.required("--checkpoint"));
    std::vector<std::int64_t> ids = encode_prompt(ck, a.required("--prompt"));
    if (static_cast<std::int64_t>(ids.size()) > ck.model->config().context)
        throw ValueError("eval: the prompt has " + std::to_string(ids.size()) + " tokens, more than the context of " +
                         std::to_string(ck.model->config().context));
    NoGradGuard no_grad;
    ck.model->eval();
    ck.model->trace().enabled = true;
    const std::int64_t T = static_cast<std::int64_t>(ids.size());
    Tensor logits = ck.model->forward(from_vector(ids, {1, T})).select(0, 0);  // [T, V]
    Tensor logp = log_softmax(logits, -1);
    if (ck.model->config().causal) {
        std::printf("%-4s %-12s %-12s %10s\n", "pos", "token", "next", "loss");
        double total = 0;
        for (std::int64_t t = 0; t + 1 < T; ++t) {
            const double loss = -logp.at({t, ids[static_cast<std::size_t>(t + 1)]});
            total += loss;
            std::printf("%-4lld %-12s %-12s %10.4f\n", static_cast<long long>(t), ck.info.vocab[static_cast<std::size_t>(ids[static_cast<std::size_t>(t)])].c_str(),
                        ck.info.vocab[static_cast<std::size_t>(ids[static_cast<std::size_t>(t + 1)])].c_str(), loss);
        }
        if (T > 1) std::printf("mean loss %.4f nats/token over %lld predictions\n", total / static_cast<double>(T - 1), static_cast<long long>(T - 1));
    } else {  // bidirectional: the loss of each token given all the others shown
        std::printf("%-4s %-12s %10s\n", "pos", "token", "-log p");
        for (std::int64_t t = 0; t < T; ++t)
            std::printf("%-4lld %-12s %10.4f\n", static_cast<long long>(t), ck.info.vocab[static_cast<std::size_t>(ids[static_cast<std::size_t>(t)])].c_str(),
                        -logp.at({t, ids[static_cast<std::size_t>(t)]}));
    }
    if (a.has("--dump-logits")) save_npy(a.str("--dump-logits"), logits.contiguous());
    if (a.has("--dump-attention")) {
        std::vector<Tensor> layers;
        for (const Tensor& w : ck.model->trace().layers) layers.push_back(w.select(0, 0));  // [H, T, T]
        save_npy(a.str("--dump-attention"), stack(layers, 0));                               // [L, H, T, T]
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    const char* usage = cmd == "train" ? kTrainUsage : cmd == "generate" ? kGenerateUsage : cmd == "eval" ? kEvalUsage : kUsage;
    try {
        if (cmd == "--help" || cmd == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (cmd == "train")
            return cmd_train(Args(argc, argv, 2, {"--model", "--corpus", "--steps", "--d-model", "--heads", "--layers",
                                                  "--context", "--batch", "--lr", "--seed", "--out", "--resume"}, {}));
        if (cmd == "generate")
            return cmd_generate(Args(argc, argv, 2, {"--checkpoint", "--prompt", "--tokens", "--temperature", "--top-k", "--seed"},
                                     {"--no-kv-cache"}));
        if (cmd == "eval")
            return cmd_eval(Args(argc, argv, 2, {"--checkpoint", "--prompt", "--dump-logits", "--dump-attention"}, {}));
        throw UsageError("unknown command '" + cmd + "'");
    } catch (const HelpRequested&) {
        std::fputs(usage, stdout);
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "tinygpt: %s\n%s", e.what(), usage);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tinygpt: %s\n", e.what());
        return 1;
    }
}
