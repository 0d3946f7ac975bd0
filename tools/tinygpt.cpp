// tinygpt.cpp — train, sample from and inspect the toy transformers.
//
//   tinygpt train    [--model causal|single-head|multi-head | --corpus FILE] [--steps N] ...
//   tinygpt train    --resume CKPT [--steps N] [--out PATH]
//   tinygpt generate --checkpoint F --prompt "the cat" [--tokens N] [--temperature T] [--top-k K] ...
//   tinygpt eval     --checkpoint F --prompt "..." [--dump-logits F.npy] [--dump-attention F.npy]
//   tinygpt patch    --checkpoint F --clean "..." --corrupted "..." --answer W --wrong W --out DIR
//   tinygpt lens     --checkpoint F --prompt "the cat" --out DIR
//   tinygpt induction --checkpoint F --out DIR [--length N] [--rows N] [--seed N]
//   tinygpt vocab    --checkpoint F [--sort id|count]
//   tinygpt compare  --checkpoint A --compare-checkpoint B --out DIR [--prompt "..."]
//   tinygpt heads    --checkpoint F [--out DIR] [--tolerance X] [--mask LIST] [--corpus FILE]
//
// Every subcommand has --help (app/options: the same parser and flag spellings as the phases
// and seq2seq). An unknown flag or a bad value says which and exits with status 2; a failure while running (a missing or corrupt
// checkpoint, an unknown word, a run that diverged) prints the error and exits
// with status 1. Each subcommand is a file of tools/tinygpt/ (its flags and its run); what they
// share is tools/tinygpt/common.hpp. Files are checked before they are opened: an input must be a
// non-empty regular file (a FIFO would block forever, a directory has no bytes);
// an output follows io/fileio.hpp's rule (never empty, a directory, an input, another
// kind of file or another run's checkpoint unless --overwrite), and `train` locks it.

#include <cstdio>
#include <map>
#include <new>
#include <string>

#include "tools/tinygpt/common.hpp"

using namespace attnlab;
using namespace attnlab::tinygpt;

int main(int argc, char** argv) {
    const std::string cmd =
        lab::subcommand(argc, argv, "tinygpt", "Train, sample from and look inside the toy transformers.",
                        {{"train", "train a toy transformer on the toy grammar or a text file"},
                         {"generate", "continue a prompt with a trained causal model (KV-cached)"},
                         {"eval", "per-token loss of a prompt; dump logits and attention as .npy"},
                         {"show", "draw what a model attends to on your text (heatmaps, flow, rollout, entropy)"},
                         {"patch", "activation patching: which layer, position and head carry what two texts differ in"},
                         {"lens", "the logit lens: what a causal model predicts after each layer, on your text"},
                         {"induction", "each head's previous-token and induction scores on repeated random tokens"},
                         {"vocab", "list the tokens a model knows (with their counts in its corpus)"},
                         {"compare", "two runs: loss curves on one chart, the settings that differ, heads side by side"},
                         {"heads", "on held-out text: heads switched off, how far each looks, other masks, causality"}});
    const std::map<std::string, std::pair<const char*, void (*)(lab::Options&)>> commands{
        {"train", {"Train a toy transformer; every --eval-every steps validate and write the checkpoint.\n"
                   "What it writes: --out, its loss CSV and loss figure (.loss.svg, .loss.png) and, while it runs,\n"
                   "--out.lock; nothing else. An empty path, a directory, the corpus, another kind of file or another\n"
                   "run's checkpoint (other settings, steps or data) is refused unless --overwrite; continuing a run\n"
                   "(--resume X, or the same run again) may write its own files. A run that diverges (a loss, gradient or weight not finite, or a validation\n"
                   "loss above twice its best and above ln V) stops with exit status 1 naming the step, and leaves\n"
                   "the best validation step's checkpoint. A killed run leaves its last checkpoint whole; the next\n"
                   "write removes its temporaries.",
                   declare_train}},
        {"generate", {"Continue --prompt with a causal model from --checkpoint.", declare_generate}},
        {"eval", {"Per-token loss of --prompt under --checkpoint; dump logits and attention as .npy.", declare_eval}},
        {"show", {"Draw what a model attends to: --checkpoint with --prompt or --sentences, or --from-npy.", declare_show}},
        {"patch", {"Activation patching: run --clean and --corrupted (the same number of tokens), then the corrupted one\n"
                   "again with one activation copied from the clean run (the residual stream after each layer at each\n"
                   "position; each head's output at the last position), and print and draw the share of the logit\n"
                   "difference --answer minus --wrong that each copy restores.",
                   declare_patch}},
        {"lens", {"The logit lens of a causal --checkpoint on --prompt: the residual stream after each layer read\n"
                  "through the final LayerNorm and the output head. A model of the toy grammar is also measured\n"
                  "against the grammar's exact next word (KL per layer).", declare_lens}},
        {"induction", {"Score every head of a causal --checkpoint as a previous-token head and as an induction head,\n"
                       "on rows of random tokens of its vocabulary that repeat once.", declare_induction}},
        {"vocab", {"List the tokens --checkpoint knows, in id order or by how often its corpus holds them.", declare_vocab}},
        {"compare", {"Compare the run of --checkpoint (A) with that of --compare-checkpoint (B): both loss curves on one\n"
                     "chart, the settings that differ, and with --prompt both models' heads and B - A.",
                     declare_compare}},
        {"heads", {"Measure a trained --checkpoint on the held-out data of its own run (the toy grammar's validation\n"
                   "set, or the last tenth of its corpus): the loss with each head switched off, heads pruned to the\n"
                   "fewest within --tolerance, how far each head looks, the loss under each --mask, and for a causal\n"
                   "model whether the future reaches the past and the loss without its causal mask.",
                   declare_heads}}};
    lab::Options o("tinygpt " + cmd, commands.at(cmd).first);
    commands.at(cmd).second(o);
    o.parse(argc - 1, argv + 1);
    try {
        if (cmd == "train") return cmd_train(o);
        if (cmd == "generate") return cmd_generate(o);
        if (cmd == "eval") return cmd_eval(o);
        if (cmd == "patch") return cmd_patch(o);
        if (cmd == "lens") return cmd_lens(o);
        if (cmd == "induction") return cmd_induction(o);
        if (cmd == "vocab") return cmd_vocab(o);
        if (cmd == "compare") return cmd_compare(o);
        if (cmd == "heads") return cmd_heads(o);
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