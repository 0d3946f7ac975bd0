// lens.cpp — tinygpt lens: the logit lens of a causal model on a prompt (analyses/logit_lens.hpp).
#include "tools/tinygpt/common.hpp"

#include <filesystem>

#include "analyses/logit_lens.hpp"
#include "app/report.hpp"
#include "plots/save.hpp"
#include "training/train.hpp"

namespace attnlab::tinygpt {

namespace {

// One column per token, each as wide as its widest word: past this the figure stops being readable.
constexpr std::int64_t kMaxLensTokens = 48;

}  // namespace

void declare_lens(lab::Options& o) {
    o.add("checkpoint", "PATH", "", "the causal model to read (the toy grammar's or one of your own corpus)");
    o.add("prompt", "TEXT", "", "the text to read it on, in the model's vocabulary (at most " +
                                std::to_string(kMaxLensTokens) + " tokens)");
    o.add("out", "DIR", "", "where the figure goes: logit_lens (.svg and .png)");
}

int cmd_lens(const lab::Options& o) {
    const std::string dir = out_dir(o, "out");
    const std::string prompt = prompt_flag(o);
    nn::LoadedCheckpoint ck = load(o);
    const nn::TransformerConfig& c = ck.model->config();
    if (!c.causal)
        throw ValueError("lens: '" + o.text("checkpoint") + "' is a bidirectional model; the logit lens reads next-token "
                         "predictions, which only a causal model makes");
    const std::vector<std::int64_t> ids = encode_prompt(ck, prompt);
    const auto T = static_cast<std::int64_t>(ids.size());
    if (T > std::min(c.context, kMaxLensTokens))
        throw ValueError("--prompt '" + prompt + "' is " + std::to_string(T) + " tokens; the lens reads at most " +
                         std::to_string(std::min(c.context, kMaxLensTokens)) + " (the figure has a column per token" +
                         (c.context < kMaxLensTokens ? ", the model a context of " + std::to_string(c.context) : std::string()) + ")");
    ck.model->eval();
    const lab::LogitLens lens = lab::logit_lens(*ck.model, ids);
    // A model of the toy grammar: each reading against the exact next word, when the prompt is a
    // prefix the grammar can emit (a learner may type one it cannot).
    std::vector<double> kl;
    if (ck.info.vocab == lab::grammar_vocab()) {
        try {
            kl = lab::kl_to_exact(lens, lab::exact_next_tokens(data::toy_grammar(), ids, c.context));
        } catch (const ValueError& e) {
            std::printf("no exact distribution to compare with: %s\n", e.what());
        }
    }
    std::vector<std::string> tokens, vocab;
    for (std::int64_t id : ids) tokens.push_back(label(ck, id));
    for (std::size_t id = 0; id < ck.info.vocab.size(); ++id) vocab.push_back(label(ck, std::int64_t(id)));
    std::printf("the top token of each reading at each position:\n%s", lab::lens_top_lines(lens, vocab).c_str());
    std::vector<lab::Column> columns{{"layer", "reading after", 13, -1}, {"final_prob", "p(last layer's top)", 19, 3},
                                     {"agrees", "top = last layer's", 18, 3}};
    if (!kl.empty()) columns.push_back({"kl", "KL(exact || reading)", 20, 3});
    lab::Table t(columns);
    t.print_header();
    for (std::size_t l = 0; l < lens.top.size(); ++l) {
        double prob = 0, agree = 0;
        for (std::size_t i = 0; i < lens.top[l].size(); ++i)
            prob += lens.final_token_prob[l][i], agree += lens.top[l][i] == lens.top.back()[i];
        std::vector<Json> row{lab::lens_layer_name(l), prob / double(T), agree / double(T)};
        if (!kl.empty()) row.push_back(kl[l]);
        t.row(row);
    }
    plots::save(lab::logit_lens_figure(lens, tokens, vocab, "Logit lens of " + std::filesystem::path(o.text("checkpoint")).stem().string() + " on \"" + prompt + "\""),
                dir + "/logit_lens");
    report({dir + "/logit_lens"});
    return 0;
}

}  // namespace attnlab::tinygpt
