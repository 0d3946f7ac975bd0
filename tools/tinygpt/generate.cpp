// generate.cpp — tinygpt generate: continue a prompt, greedy or sampled, and say why it stopped.
#include "tools/tinygpt/common.hpp"

#include <filesystem>

#include "data/vocab.hpp"
#include "training/train.hpp"
#include "nn/generate.hpp"

namespace attnlab::tinygpt {

using lab::Task;

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
    o.add("show", "DIR", "", "draw, per layer, what each generated token attended to, heads averaged and each head (DIR/generated_layerN)");
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

}  // namespace attnlab::tinygpt
