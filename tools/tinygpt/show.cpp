// show.cpp — tinygpt show: draw what a model attends to on a text, a file of texts or dumped weights.
#include "tools/tinygpt/common.hpp"

#include <filesystem>

#include "data/corpus.hpp"
#include "analyses/model_graph.hpp"
#include "training/train.hpp"
#include "io/fileio.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"

namespace attnlab::tinygpt {

using lab::Task;

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
    o.add("out", "DIR", "", "where the figures go: attention_heads, attention_flow, attention_rollout, attention_entropy, "
                            "entropy_over_training (a training checkpoint: each head's entropy at every evaluation) "
                            "(.svg and .png each), and explorer.html, every text in one self-contained page");
    o.add_switch("graph", "with --prompt, also draw the graph backward() walks for its next-token loss: "
                          "autograd_graph (one box per module) and autograd_graph_attention (block 0's attention op by op)");
}

namespace {

// At most this many lines of --sentences: each becomes four figures and a share of the page.
constexpr std::size_t kMaxSentences = 64;

}  // namespace

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
    if (const std::string stem = lab::draw_entropy_over_training(ck, name, dir); !stem.empty()) report({stem});
    if (o.on("graph")) {
        if (!ck.model->config().causal)
            throw ValueError("show --graph: '" + o.text("checkpoint") + "' is a bidirectional model; the graph is drawn for "
                             "the next-token loss, which only a causal one is trained on");
        report(lab::write_model_graph(*ck.model, encode_prompt(ck, texts[0]), name, dir));
    }
    std::printf("wrote %s\n", lab::write_explorer(ck, name, all, dir).c_str());
    return 0;
}
}  // namespace attnlab::tinygpt
