// phase3_head_types.cpp — the bodies of phases/phase3_head_types.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase3_head_types.hpp"

#include <algorithm>

#include "analyses/head_roles.hpp"
#include "analyses/attention_weights.hpp"
#include "app/report.hpp"
#include "nn/generate.hpp"
#include "plots/compose.hpp"
#include "plots/heatmap.hpp"

namespace attnlab::phase3 {

namespace {

// The relations in the order the seed lists its heads; a causal model reads the
// determiner -> noun pair the other way round (the noun comes later).
std::vector<std::string> relation_order(bool causal) {
    return {"verb->subject", causal ? "object->verb" : "verb->object", causal ? "noun->determiner" : "determiner->noun",
            "previous token", "pronoun->antecedent", lab::kRelatedNoun, lab::kOtherNoun};
}

const lab::HeadRoleScore* find_score(const std::vector<lab::HeadRoleScore>& s, const std::string& rel, std::int64_t l,
                                     std::int64_t h) {
    for (const lab::HeadRoleScore& x : s)
        if (x.relation == rel && x.layer == l && x.head == h) return &x;
    return nullptr;
}

// The course's four heads, checked in each layer: does the head it names score highest
// there, at more than twice uniform attention?
Json seed_expectations(const std::string& model, const std::vector<lab::HeadRoleScore>& s, bool causal,
                       std::int64_t L, std::int64_t H) {
    Json out = Json::array();
    const std::vector<std::string> rels = relation_order(causal);
    for (std::int64_t named = 0; named < std::min<std::int64_t>(4, H); ++named)
        for (std::int64_t l = 0; l < L; ++l) {
            const std::string& rel = rels[static_cast<std::size_t>(named)];
            if (!find_score(s, rel, l, 0)) continue;  // no such pair in the sentences
            std::int64_t best = 0;
            for (std::int64_t h = 1; h < H; ++h)
                if (find_score(s, rel, l, h)->weight > find_score(s, rel, l, best)->weight) best = h;
            const lab::HeadRoleScore &n = *find_score(s, rel, l, named), &b = *find_score(s, rel, l, best);
            const bool match = best == named && n.weight > 2 * n.uniform;
            std::printf("  %-17s the course's head %lld (%s): L%lld H%lld %.3f (uniform %.3f); best in layer %lld: H%lld %.3f -> %s\n",
                        model.c_str(), (long long)named + 1, rel.c_str(), (long long)l + 1, (long long)named + 1, n.weight,
                        n.uniform, (long long)l + 1, (long long)best + 1, b.weight, match ? "matches" : "does not match");
            out.push_back(Json::Object{{"model", model}, {"relation", rel}, {"layer", l}, {"seed_head", named},
                                       {"weight", n.weight}, {"uniform", n.uniform}, {"best_head", best},
                                       {"best_weight", b.weight}, {"matches", match}});
        }
    return out;
}

// Per head: its related-noun and other-noun mass as multiples of uniform's, and whether it is
// a semantic head (lab::is_semantic_head), printed and returned for metrics.json.
Json semantic_heads(const std::string& model, const std::vector<lab::HeadRoleScore>& s, std::int64_t L, std::int64_t H) {
    Json out = Json::array();
    if (!find_score(s, lab::kRelatedNoun, 0, 0)) return out;  // no noun saw both kinds in the sentences
    std::string found;
    for (std::int64_t l = 0; l < L; ++l)
        for (std::int64_t h = 0; h < H; ++h) {
            const lab::HeadRoleScore &r = *find_score(s, lab::kRelatedNoun, l, h), &o = *find_score(s, lab::kOtherNoun, l, h);
            const bool semantic = lab::is_semantic_head(r, o);
            const std::string head = "L" + std::to_string(l + 1) + "H" + std::to_string(h + 1);
            if (semantic) found += (found.empty() ? "" : ", ") + head;
            out.push_back(Json::Object{{"head", head}, {"related_vs_uniform", r.weight / r.uniform},
                                       {"other_vs_uniform", o.weight / o.uniform}, {"semantic", semantic}});
        }
    std::printf("  %s: semantic heads (related nouns > 2 times uniform and > 1.5 times the other nouns' lift; %lld noun queries): %s\n",
                model.c_str(), (long long)find_score(s, lab::kRelatedNoun, 0, 0)->pairs, found.empty() ? "none" : found.c_str());
    for (const Json& x : out.as_array())
        std::printf("    %s related %.2fx uniform, other nouns %.2fx\n", x.at("head").as_string().c_str(),
                    x.at("related_vs_uniform").as_double(), x.at("other_vs_uniform").as_double());
    return out;
}

// One model: a table (one row per relation, one column per head), a heatmap panel, the course's check.
plots::Figure head_types_of(Frame& p, const std::string& name, nn::Transformer& model,
                            const std::vector<std::vector<std::int64_t>>& sentences) {
    const std::vector<lab::HeadRoleScore> s = lab::measure_head_roles(model, sentences);
    const std::int64_t L = model.config().n_layers, H = model.config().n_heads;
    const bool causal = model.config().causal;
    std::vector<lab::Column> cols{{"relation", "relation", 19, -1}, {"pairs", "pairs", 5, -1}, {"uniform", "uniform", 7, 3}};
    std::vector<std::string> head_labels;
    for (std::int64_t l = 0; l < L; ++l)
        for (std::int64_t h = 0; h < H; ++h) {
            head_labels.push_back("L" + std::to_string(l + 1) + " H" + std::to_string(h + 1));
            cols.push_back({"L" + std::to_string(l + 1) + "H" + std::to_string(h + 1), head_labels.back(), 6, 3});
        }
    lab::Table t(cols, "  ");
    std::printf("%s (%s): mean attention on the gold key, per head\n", name.c_str(), causal ? "causal" : "bidirectional");
    t.print_header();
    plots::Matrix m;
    std::vector<std::string> rows;
    for (const std::string& rel : relation_order(causal)) {
        if (!find_score(s, rel, 0, 0)) continue;  // no such pair in the sentences
        rows.push_back(rel);
        const lab::HeadRoleScore& first = *find_score(s, rel, 0, 0);
        std::vector<Json> row{rel, first.pairs, first.uniform};
        m.emplace_back();
        for (std::int64_t l = 0; l < L; ++l)
            for (std::int64_t h = 0; h < H; ++h) {
                const double w = find_score(s, rel, l, h)->weight;
                m.back().push_back(w);
                row.emplace_back(w);
            }
        t.row(row);
    }
    p.m["head_types"][name] = Json::Object{{"causal", causal}, {"relations", t.json()},
                                           {"seed_patterns", seed_expectations(name, s, causal, L, H)},
                                           {"semantic_heads", semantic_heads(name, s, L, H)}};
    plots::HeatmapOptions o;
    o.title = name + " (" + (causal ? "causal" : "bidirectional") + ")";
    o.row_labels = rows, o.col_labels = head_labels;
    o.annotate = true, o.vmin = 0.0, o.vmax = 1.0, o.colormap = plots::Colormap::blues;
    o.x_title = "head", o.y_title = "query -> gold key";
    return plots::heatmap(m, o);
}

}  // namespace

void generated_text_roles(Frame& p, nn::Transformer& model, const std::vector<std::string>& prompts) {
    const data::Vocab& v = data::toy_grammar().vocab();
    lab::Table t({{"sample", "sample", 6, -1}, {"relation", "relation", 19, -1}, {"layer", "layer", 5, -1},
                  {"mean_over_heads", "mean", 6, 3}, {"best_head", "best", 4, -1}, {"best_weight", "weight", 6, 3}}, "  ");
    Json texts = Json::array();
    for (const std::string& prompt : prompts) {
        std::vector<std::int64_t> ids{data::Vocab::kBos};
        for (std::int64_t id : encode(prompt)) ids.push_back(id);
        nn::Generation g = nn::generate(model, ids, {.max_new_tokens = model.config().context - static_cast<std::int64_t>(ids.size()) - 1,
                                                     .stop_token = data::Vocab::kEos});
        std::vector<std::int64_t> words(ids.begin() + 1, ids.end());
        for (std::int64_t id : g.tokens)
            if (id != data::Vocab::kEos) words.push_back(id);
        std::string text;
        for (std::int64_t id : words) text += (text.empty() ? "" : " ") + v.word(id);
        texts.push_back(text);
        std::printf("  sample %zu (greedy from \"%s\"): %s\n", texts.size(), prompt.c_str(), text.c_str());
        if (texts.size() == 1) t.print_header();
        std::vector<lab::HeadRoleScore> s;
        std::vector<std::int64_t> framed{data::Vocab::kBos};  // <bos> words <eos>, as the model was trained
        framed.insert(framed.end(), words.begin(), words.end());
        framed.push_back(data::Vocab::kEos);
        lab::accumulate_head_roles(lab::attention_weights(model, framed), data::toy_gold_pairs(words), true, s);
        lab::finish_head_roles(s);
        for (const std::string rel : {"pronoun->antecedent", "verb->subject"})
            for (std::int64_t l = 0; l < model.config().n_layers; ++l) {
                double mean = 0, best_w = -1;
                std::int64_t best = -1;
                for (std::int64_t h = 0; h < model.config().n_heads; ++h) {
                    const lab::HeadRoleScore* x = find_score(s, rel, l, h);
                    if (!x) continue;
                    mean += x->weight / static_cast<double>(model.config().n_heads);
                    if (x->weight > best_w) best_w = x->weight, best = h;
                }
                if (best >= 0) t.row({static_cast<std::int64_t>(texts.size()), rel, l + 1, mean, best + 1, best_w});
            }
    }
    p.m["generated_text_roles"] = Json::Object{{"texts", texts}, {"weights", t.json()}};
}

void section7_head_types(Frame& p, nn::LoadedCheckpoint& causal, nn::LoadedCheckpoint& bidirectional,
                        std::int64_t n_sentences) {
    for (const nn::LoadedCheckpoint* ck : {&causal, &bidirectional})
        if (ck->info.vocab != lab::grammar_vocab()) {  // one line, in place of the section
            section("7. Head types (and 7b) skipped: needs the toy grammar's gold pairs; this checkpoint was trained on " +
                    trained_on(*ck));
            return;
        }
    section("7. Head types: which heads follow the grammar's dependencies (the patterns a trained model is expected to show)");
    Generator gen(p.seed);
    std::vector<std::vector<std::int64_t>> sentences;
    const std::int64_t fit = std::min(causal.model->config().context, bidirectional.model->config().context) - 2;
    for (std::int64_t i = 0; i < n_sentences; ++i) sentences.push_back(data::toy_grammar().sample_sentence(gen, fit));
    std::printf("%lld sentences drawn from the toy grammar (seed %llu), each read as <bos> words <eos>\n",
                (long long)n_sentences, (unsigned long long)p.seed);
    p.m["head_types"]["sentences"] = n_sentences;
    plots::Figure a = head_types_of(p, "multi_head_model", *bidirectional.model, sentences);
    plots::Figure b = head_types_of(p, "causal_model", *causal.model, sentences);
    p.out.figure(plots::hstack({a, b}, "Mean attention on the grammar's gold key (nouns: mass on related / other nouns), per head (" +
                                           std::to_string(n_sentences) + " sentences)"),
                 "head_types",
                 "Phase 3: per head, the mean attention weight a word puts on its grammatical partner (verb->subject, "
                 "verb->object, determiner/noun, previous token, pronoun->antecedent) and the mass a noun puts on related "
                 "nouns (same meaning) and on other nouns, bidirectional and causal model.");
    section("7b. Attention on generated text: the same weights on text the causal model writes");
    generated_text_roles(p, *causal.model, {"the animal didn't cross the street because", "the cats near the dog sleep because", "this dog sat on the mat because"});
}

}  // namespace attnlab::phase3
