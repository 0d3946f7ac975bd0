// eval.cpp — tinygpt eval: per-token loss of a prompt; logits and attention as .npy.
#include "tools/tinygpt/common.hpp"
#include "analyses/attention_weights.hpp"
#include "autograd/node.hpp"
#include "training/train.hpp"
#include "io/fileio.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"

namespace attnlab::tinygpt {

using lab::Task;

void declare_eval(lab::Options& o) {
    o.add("checkpoint", "PATH", "", "the model (tinygpt train writes it)");
    o.add("prompt", "TEXT", "", "the text to score, in the model's vocabulary");
    o.add_path("dump-logits", "F.npy", "", "logits as float32 [T, V]");
    o.add_path("dump-attention", "F.npy", "", "attention weights as float32 [L, H, T, T]");
    o.add_switch("overwrite", "let --dump-logits / --dump-attention replace a file that is not an .npy array "
                              "(never the checkpoint itself)");
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
    const std::int64_t T = static_cast<std::int64_t>(ids.size());
    const lab::TracedForward run = lab::traced_forward(*ck.model, from_vector(ids, {1, T}));
    Tensor logits = run.logits.select(0, 0);  // [T, V]
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
        for (const Tensor& w : run.layers) layers.push_back(w.select(0, 0));  // [H, T, T]
        save_npy(attention_path, stack(layers, 0));                                          // [L, H, T, T]
    }
    return 0;
}

}  // namespace attnlab::tinygpt
