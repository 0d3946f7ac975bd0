// phase6_lens.cpp — Phase 6, step 3: the logit lens (see phases/phase6_lens.hpp).
#include "phases/phase6_lens.hpp"

#include "analyses/logit_lens.hpp"
#include "app/report.hpp"
#include "plots/bar_chart.hpp"

namespace attnlab::phase6 {

namespace lens_step {

// Sentences the KL is averaged over: enough that the mean moves by less than its last digit
// from one seed to another, few enough that they run in well under a second.
constexpr std::int64_t kSentences = 200;

// Sums over every position of every sentence, per layer: KL to the exact distribution, and how
// often the reading's top token is already the last layer's.
struct Totals {
    std::vector<double> kl, agree;
    std::int64_t positions = 0;
    void add(const lab::LogitLens& lens, const std::vector<double>& kl_mean) {
        const auto T = static_cast<std::int64_t>(lens.top.front().size());
        kl.resize(kl_mean.size()), agree.resize(kl_mean.size());
        for (std::size_t l = 0; l < kl_mean.size(); ++l) {
            kl[l] += kl_mean[l] * double(T);
            for (std::size_t t = 0; t < lens.top[l].size(); ++t) agree[l] += lens.top[l][t] == lens.top.back()[t];
        }
        positions += T;
    }
};

}  // namespace lens_step

GrammarStudy grammar_study(const lab::Options& opt) {
    GrammarStudy s{phase::load_model(opt, lab::Task::causal), {data::Vocab::kBos}, {}};
    s.ck.model->eval();
    for (std::int64_t id : phase::encode(phase::kToySentence)) s.row.push_back(id);
    s.labels = phase::token_labels(s.row, s.ck.info.vocab);
    return s;
}

void section3_logit_lens(phase::Frame& p) {
    using namespace lens_step;
    phase::section("3. The logit lens: what the residual stream predicts after each layer");
    GrammarStudy s = grammar_study(p.opt);
    nn::Transformer& model = *s.ck.model;
    const data::Grammar& g = data::toy_grammar();
    const std::int64_t context = model.config().context;
    const lab::LogitLens lens = lab::logit_lens(model, s.row);
    const std::vector<double> kl_sentence = lab::kl_to_exact(lens, lab::exact_next_tokens(g, s.row, context));
    Totals all;
    Generator gen(p.seed);
    for (std::int64_t i = 0; i < kSentences; ++i) {
        std::vector<std::int64_t> row{data::Vocab::kBos};
        for (std::int64_t w : g.sample_sentence(gen, context - 1)) row.push_back(w);
        const lab::LogitLens l = lab::logit_lens(model, row);
        all.add(l, lab::kl_to_exact(l, lab::exact_next_tokens(g, row, context)));
    }
    std::printf("each reading: softmax(head(ln_f(x))) of the residual stream x; its top token at each position of "
                "\"%s\":\n%s", phase::kToySentence.c_str(), lab::lens_top_lines(lens, s.ck.info.vocab).c_str());
    lab::Table t({{"layer", "reading after", 13, -1},
                  {"kl_sentence", "KL this sentence", 16, 3},
                  {"kl_sentences", "KL " + std::to_string(kSentences) + " sentences", 16, 3},
                  {"agrees_with_last", "top = last layer's", 18, 3}});
    t.print_header();
    std::vector<std::string> names;
    for (std::size_t l = 0; l < lens.top.size(); ++l) {
        names.push_back(lab::lens_layer_name(l));
        t.row({names.back(), kl_sentence[l], all.kl[l] / double(all.positions), all.agree[l] / double(all.positions)});
    }
    const std::vector<double> kl = t.column("kl_sentences");
    std::printf("KL(exact || reading), nats per position: %.3f after the embedding, %.3f after the last block; the "
                "last block's reading is the model's own prediction\n", kl.front(), kl.back());
    Json top = Json::array(), final_prob = Json::array();
    for (std::size_t l = 0; l < lens.top.size(); ++l) {
        Json words = Json::array(), probs = Json::array();
        for (std::size_t i = 0; i < lens.top[l].size(); ++i)
            words.push_back(s.ck.info.vocab.at(static_cast<std::size_t>(lens.top[l][i]))), probs.push_back(lens.final_token_prob[l][i]);
        top.push_back(words), final_prob.push_back(probs);
    }
    p.m["logit_lens"] = Json::Object{{"sentence", phase::kToySentence},
                                     {"sentences", kSentences},
                                     {"positions", all.positions},
                                     {"kl_embedding", kl.front()},
                                     {"kl_model", kl.back()},
                                     {"layers", t.json()},
                                     {"top_tokens", top},
                                     {"final_token_prob", final_prob}};
    lab::headline(p.m, "logit_lens_kl_embedding", kl.front(), "logit lens: KL(exact || reading) after the embedding");
    lab::headline(p.m, "logit_lens_kl_model", kl.back(), "logit lens: KL(exact || model), after the last block");
    p.out.figure(lab::logit_lens_figure(lens, s.labels, s.ck.info.vocab,
                                        "Logit lens on \"" + phase::kToySentence + "\""),
                 "logit_lens",
                 "Phase 6: the residual stream after the embedding and after each block, read through the final "
                 "LayerNorm and the output head; each cell names the token that reading ranks first, its colour is "
                 "the probability it gives the token the last layer ranks first (p(final top)).");
    p.out.figure(plots::bar_chart(names, kl, {.title = "Distance of each reading from the exact next word",
                                              .value_title = "KL(exact || reading), nats per position",
                                              .category_title = "reading after", .decimals = 3}),
                 "logit_lens_kl",
                 "Phase 6: KL from the grammar's exact next-word distribution to each layer's logit-lens reading, "
                 "per position, averaged over 200 sentences the grammar draws; the last bar is the model's own "
                 "prediction.");
}

}  // namespace attnlab::phase6
