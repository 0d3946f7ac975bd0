// phase6_sampling.cpp — Phase 6, step 4: sampling and temperature (see phases/phase6_sampling.hpp).
#include "phases/phase6_sampling.hpp"

#include <algorithm>
#include <numeric>

#include "analyses/logit_lens.hpp"
#include "analyses/sampling.hpp"
#include "app/report.hpp"
#include "phases/phase6_lens.hpp"
#include "plots/bar_chart.hpp"
#include "plots/figure_grid.hpp"
#include "plots/layout.hpp"
#include "autograd/node.hpp"

namespace attnlab::phase6 {

namespace sampling_step {

// Bars per panel: every token the grammar allows here and the model's likeliest others, up to this many.
constexpr std::size_t kBars = 12;

// The tokens the panels show: the exact distribution's support, then the model's likeliest at
// T 2 (the flattest, so the one that shows most of the tail), by the model's probability.
std::vector<std::int64_t> shown_tokens(const std::vector<double>& exact, const std::vector<double>& flat) {
    std::vector<std::int64_t> ids(exact.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::stable_sort(ids.begin(), ids.end(), [&](std::int64_t a, std::int64_t b) {
        const auto i = static_cast<std::size_t>(a), j = static_cast<std::size_t>(b);
        return (exact[i] > 0) != (exact[j] > 0) ? exact[i] > 0 : flat[i] > flat[j];
    });
    ids.resize(std::min(kBars, ids.size()));
    return ids;
}

plots::Figure panel(const std::string& title, const std::vector<double>& p, const std::vector<std::int64_t>& ids,
                    const std::vector<std::string>& vocab, int colour, double top) {
    std::vector<std::string> labels;
    std::vector<double> values;
    for (std::int64_t id : ids) labels.push_back(vocab.at(static_cast<std::size_t>(id))), values.push_back(p[static_cast<std::size_t>(id)]);
    return plots::bar_chart(labels, values, {.title = title, .value_title = "probability", .horizontal = true,
                                             .color = plots::palette::categorical(colour), .value_max = top,
                                             .plot_length = 180});
}

}  // namespace sampling_step

void section4_sampling(phase::Frame& p) {
    using namespace sampling_step;
    phase::section("4. Sampling: temperature, top-k and top-p on the next-token distribution");
    GrammarStudy s = grammar_study(p.opt);
    const std::vector<std::int64_t> prompt(s.row.begin(), s.row.begin() + 3);  // <bos> and the first two words
    const std::string prompt_text = s.labels[1] + " " + s.labels[2];
    NoGradGuard no_grad;
    const Tensor logits = s.ck.model->forward(from_vector(prompt, {1, 3})).select(0, 0).select(0, -1).contiguous();  // [V]
    const std::vector<double> exact = lab::exact_next_tokens(data::toy_grammar(), prompt, s.ck.model->config().context).back();
    const std::vector<lab::SampledDistribution> dists = lab::sampling_distributions(logits, lab::standard_sampling_settings());
    std::printf("after \"%s\": the grammar allows %lld next words; each setting's distribution over all %zu tokens:\n",
                prompt_text.c_str(), (long long)std::count_if(exact.begin(), exact.end(), [](double x) { return x > 0; }),
                exact.size());
    lab::Table t({{"setting", "setting", 14, -1},
                  {"entropy", "entropy (nats)", 14, 3},
                  {"kept", "tokens > 0", 10, -1},
                  {"top_prob", "p(top token)", 12, 3},
                  {"tv_to_exact", "TV to exact", 11, 3}});
    t.print_header();
    const auto row = [&](const std::string& name, const std::vector<double>& q) {
        t.row({name, lab::entropy(q), std::int64_t(std::count_if(q.begin(), q.end(), [](double x) { return x > 0; })),
               *std::max_element(q.begin(), q.end()), lab::total_variation(q, exact)});
    };
    row("exact", exact);
    for (const lab::SampledDistribution& d : dists) row(d.name, d.probs);
    const std::vector<double> h = t.column("entropy"), top_prob = t.column("top_prob");
    const auto argmax = [](const std::vector<double>& q) { return std::max_element(q.begin(), q.end()) - q.begin(); };
    const bool same_top = argmax(dists[0].probs) == argmax(dists[1].probs) && argmax(dists[1].probs) == argmax(dists[2].probs);
    std::printf("temperature 0.5 -> 1 -> 2: entropy %.3f -> %.3f -> %.3f nats (the grammar's own: %.3f); the top token "
                "'%s' %s, its share %.3f -> %.3f -> %.3f\n", h[1], h[2], h[3], h[0],
                s.ck.info.vocab.at(static_cast<std::size_t>(argmax(dists[1].probs))).c_str(),
                same_top ? "stays the top one" : "does NOT stay the top one", top_prob[1], top_prob[2], top_prob[3]);
    p.m["sampling"] = Json::Object{{"prompt", prompt_text}, {"settings", t.json_by("setting")}};
    lab::headline(p.m, "sampling_entropy_t1", p.m.at("sampling").at("settings").at("T 1").at("entropy"), "next-word entropy at T 1 (nats)");
    lab::headline(p.m, "sampling_entropy_exact", h[0], "the grammar's exact next-word entropy");
    const std::vector<std::int64_t> ids = shown_tokens(exact, dists[2].probs);
    double top = *std::max_element(exact.begin(), exact.end());  // one scale for every panel, so bars compare
    for (const lab::SampledDistribution& d : dists) top = std::max(top, *std::max_element(d.probs.begin(), d.probs.end()));
    top *= 1.3;  // room for the longest bar's value label, which would otherwise widen that panel's axis alone
    std::vector<plots::Figure> panels{panel("exact (the grammar)", exact, ids, s.ck.info.vocab, 0, top)};
    for (std::size_t i = 0; i < dists.size(); ++i)
        panels.push_back(panel(dists[i].name + ": entropy " + plots::layout::format_fixed(dists[i].entropy, 2), dists[i].probs,
                               ids, s.ck.info.vocab, int(i) + 1, top));
    p.out.figure(plots::figure_grid(panels, {.title = "The next word after \"" + prompt_text + "\", sampled", .columns = 3}),
                 "sampling",
                 "Phase 6: the next-token distribution of the grammar's causal model after a two-word prompt at "
                 "temperature 0.5, 1 and 2 and with top-k and top-p cut-offs, beside the grammar's exact distribution; "
                 "entropies are over all tokens, the bars show the likeliest.");
}

}  // namespace attnlab::phase6
