// induction.cpp — tinygpt induction: each head's previous-token and induction scores on repeated
// random tokens of the model's own vocabulary (analyses/induction.hpp).
#include "tools/tinygpt/common.hpp"

#include <filesystem>

#include "analyses/induction.hpp"
#include "app/report.hpp"
#include "data/vocab.hpp"
#include "plots/heatmap.hpp"
#include "plots/layout.hpp"
#include "plots/save.hpp"

namespace attnlab::tinygpt {

void declare_induction(lab::Options& o) {
    o.add("checkpoint", "PATH", "", "the causal model to score (the toy grammar's or one of your own corpus)");
    o.add("length", "N", "0", "random tokens per copy: rows are x_1 .. x_N x_1 .. x_N; 0 = as many as half the "
                              "context holds, at most 16");
    o.add("rows", "N", "32", "rows scored (1 to 1024)");
    o.add("seed", "N", "0", "seed of the random tokens");
    o.add("out", "DIR", "", "where the figure goes: induction_scores (.svg and .png)");
}

int cmd_induction(const lab::Options& o) {
    const std::string dir = out_dir(o, "out");
    const std::int64_t rows = o.integer("rows", 1, 1024);
    const std::uint64_t seed = o.seed();
    nn::LoadedCheckpoint ck = load(o);
    const nn::TransformerConfig& c = ck.model->config();
    if (!c.causal)
        throw ValueError("induction: '" + o.text("checkpoint") + "' is a bidirectional model; an induction head "
                         "completes a repeat from the tokens before it, which only a causal model reads");
    // The model's own tokens: words after the specials, or characters after <pad>. Grammar rows open with <bos>.
    const std::int64_t lo = is_chars(ck) ? 1 : data::Vocab::kFirstWord, hi = static_cast<std::int64_t>(ck.info.vocab.size());
    const bool grammar = !is_chars(ck) && (!ck.metadata.contains("corpus") || ck.metadata.at("corpus").empty());
    const std::vector<std::int64_t> prefix = grammar ? std::vector<std::int64_t>{data::Vocab::kBos} : std::vector<std::int64_t>{};
    const std::int64_t fits = (c.context - static_cast<std::int64_t>(prefix.size())) / 2;
    if (fits < 2 || hi - lo < 2)
        throw ValueError("induction: '" + o.text("checkpoint") + "' has a context of " + std::to_string(c.context) + " and " +
                         std::to_string(hi - lo) + " tokens; a repeat needs room for two copies of at least 2 of 2 tokens");
    const std::int64_t n = o.integer("length", 0, fits) == 0 ? std::min<std::int64_t>(16, fits) : o.integer("length", 2, fits);
    Generator gen(seed);
    const lab::RepeatedRows r = lab::repeated_random_rows(rows, n, lo, hi, prefix, gen);
    const lab::HeadScores s = lab::head_scores(*ck.model, r.ids, r.repeat);
    const double uniform = lab::uniform_causal_score(r.ids.size(1));
    std::printf("%lld rows of %lld random tokens repeated once (%lld tokens each); a head that attends uniformly "
                "scores about %.3f on either measure\n", (long long)rows, (long long)n, (long long)r.ids.size(1), uniform);
    lab::Table t({{"head", "head", 7, -1}, {"previous", "previous-token", 14, 3}, {"induction", "induction", 9, 3}});
    t.print_header();
    plots::Matrix prev, ind;
    for (std::size_t l = 0; l < s.previous.size(); ++l) {
        prev.push_back(s.previous[l]), ind.push_back(s.induction[l]);
        for (std::size_t h = 0; h < s.previous[l].size(); ++h)
            t.row({"L" + std::to_string(l + 1) + " H" + std::to_string(h + 1), s.previous[l][h], s.induction[l][h]});
    }
    plots::HeatmapGridOptions g;
    g.title = std::filesystem::path(o.text("checkpoint")).stem().string() + ": " + std::to_string(n) + " random tokens, repeated";
    g.panel_titles = {"previous-token score", "induction score"};
    for (std::int64_t l = 1; l <= c.n_layers; ++l) g.row_labels.push_back("layer " + std::to_string(l));
    for (std::int64_t h = 1; h <= c.n_heads; ++h) g.col_labels.push_back("H" + std::to_string(h));
    g.x_title = "head (uniform attention scores " + plots::layout::format_fixed(uniform, 2) + ")", g.y_title = "", g.vmin = 0.0, g.vmax = 1.0, g.annotate = true, g.columns = 2;
    g.colormap = plots::Colormap::blues, g.colorbar_label = "score";
    plots::save(plots::heatmap_grid({prev, ind}, g), dir + "/induction_scores");
    report({dir + "/induction_scores"});
    return 0;
}

}  // namespace attnlab::tinygpt
