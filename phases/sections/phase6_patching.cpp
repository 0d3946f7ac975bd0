// phase6_patching.cpp — see phases/phase6_patching.hpp.
#include "phases/phase6_patching.hpp"

#include <algorithm>
#include <cmath>

#include "app/report.hpp"
#include "autograd/node.hpp"
#include "plots/figure_grid.hpp"
#include "analyses/patching_figures.hpp"

namespace attnlab::phase6 {

using namespace phase;

namespace {

constexpr std::int64_t kPairsEach = 16;  // pairs whose distractor has the subject's number, and as many with the other
constexpr double kCarries = 0.10;        // a head "carries" the number if patching it restores at least this much
constexpr double kCompetes = 0.05;       // the distractor competes if flipping it moves the logit difference this share
                                         // of what flipping the subject does

// What the positions of the grammar's pairs hold: "<bos> the cat near the dogs" -> sleeps.
const std::vector<std::string> kPositions{"<bos>", "det", "subject", "prep", "det", "distractor"};

std::string head_name(std::int64_t l, std::int64_t h) { return "L" + std::to_string(l + 1) + " H" + std::to_string(h + 1); }
std::string percent(double f) { return std::to_string(std::lround(100 * f)) + " %"; }

// Pairs drawn from the grammar, all of the form <bos> det subject preposition det distractor:
// `subject` corrupts the subject's number; `distractor` gives the distractor the subject's number in
// its clean input and the other number in its corrupted one, the subject's verb still the answer.
struct GrammarPairs {
    std::vector<lab::PatchPair> subject, distractor;
    std::vector<bool> agrees;  // per pair: the distractor has the subject's number
};

GrammarPairs grammar_pairs(std::uint64_t seed) {
    const data::Grammar& g = data::toy_grammar();
    const std::int64_t the = g.vocab().id("the");
    Generator gen(seed);
    GrammarPairs r;
    std::int64_t counts[2] = {0, 0};  // [distractor agrees]
    for (int tries = 0; tries < 200000 && (counts[0] < kPairsEach || counts[1] < kPairsEach); ++tries) {
        lab::AgreementPair a;
        try {
            a = lab::agreement_pair(g.sample_sentence(gen));
        } catch (const ValueError&) {
            continue;  // no present-tense verb, or a subject whose determiner fixes its number
        }
        if (a.pair.clean.size() != kPositions.size() || a.distractor != 5) continue;
        const std::int64_t noun = a.pair.clean[5];
        const bool agrees = g.step(g.state_after(std::vector<std::int64_t>{the, noun}), a.pair.answer) >= 0;
        if (counts[agrees] == kPairsEach) continue;
        lab::PatchPair d = a.pair;
        d.corrupted = d.clean, d.corrupted[5] = data::other_number(noun);
        const std::vector<std::int64_t> flipped(d.corrupted.begin() + 1, d.corrupted.end());
        try {  // "near these dogs" has no singular twin: the flipped distractor must be the grammar's too
            if (g.step(g.state_after(flipped), d.answer) < 0) continue;
        } catch (const ValueError&) {
            continue;
        }
        if (!agrees) std::swap(d.clean, d.corrupted);  // clean: the distractor agrees; corrupted: it competes
        r.subject.push_back(a.pair), r.distractor.push_back(d), r.agrees.push_back(agrees);
        ++counts[agrees];
    }
    if (counts[0] < kPairsEach || counts[1] < kPairsEach)
        throw std::runtime_error("phase 6: the grammar gave too few agreement pairs for seed " + std::to_string(seed));
    return r;
}

// The clean run's attention from the last position to each position, per head: [L][H][T], mean over the pairs.
std::vector<std::vector<std::vector<double>>> last_position_attention(nn::Transformer& model, const std::vector<lab::PatchPair>& pairs) {
    const auto B = static_cast<std::int64_t>(pairs.size()), T = static_cast<std::int64_t>(pairs.front().clean.size());
    std::vector<std::int64_t> ids;
    for (const auto& p : pairs) ids.insert(ids.end(), p.clean.begin(), p.clean.end());
    NoGradGuard no_grad;
    model.trace().enabled = true;
    model.forward(from_vector(ids, {B, T}));
    model.trace().enabled = false;
    std::vector<std::vector<std::vector<double>>> out;
    for (const Tensor& w : model.trace().layers) {  // [B, H, T, T]
        const Tensor last = mean(w.select(2, T - 1), 0).to(kFloat64).contiguous();  // [H, T]
        std::vector<std::vector<double>> layer;
        for (std::int64_t h = 0; h < last.size(0); ++h) layer.push_back(last.select(0, h).to_vector<double>());
        out.push_back(layer);
    }
    return out;
}

std::string words_of(const std::vector<std::int64_t>& ids, const std::vector<std::string>& vocab, std::size_t from = 1) {
    std::string s;
    for (std::size_t i = from; i < ids.size(); ++i) s += (s.empty() ? "" : " ") + vocab.at(static_cast<std::size_t>(ids[i]));
    return s;
}

}  // namespace

PatchingSetup patching_setup(const lab::Options& opt) {
    PatchingSetup s{load_model(opt, lab::Task::causal), {}};
    if (!s.ckpt.model->config().causal)
        opt.fail("checkpoint", "phase 6 needs a causal model (next-token); this one is bidirectional");
    if (s.ckpt.info.vocab != lab::grammar_vocab())
        opt.fail("checkpoint", "phase 6's activation patching needs a model of the toy grammar, whose verbs agree with their "
                               "subjects; `tinygpt patch` patches any causal model on texts you choose");
    try {
        s.sentence = lab::agreement_pair(sentence_ids(opt, s.ckpt.info.vocab, s.ckpt.model->config().context));
    } catch (const ValueError& e) {
        opt.fail("sentence", e.what());
    }
    return s;
}

void section2_activation_patching(Frame& p, PatchingSetup& s) {
    section("2. Activation patching: which heads carry the subject's number to the verb?");
    nn::Transformer& model = *s.ckpt.model;
    const std::vector<std::string>& vocab = s.ckpt.info.vocab;
    const nn::TransformerConfig& c = model.config();
    const GrammarPairs pairs = grammar_pairs(p.seed);
    const lab::PatchPair& first = pairs.subject.front();
    std::printf("the causal model of phases 3 and 4 (%lld layers of %lld heads); %zu pairs from the grammar such as\n"
                "  clean \"%s\" -> %s, corrupted \"%s\" -> %s; half of them with a distractor of the subject's number\n",
                (long long)c.n_layers, (long long)c.n_heads, pairs.subject.size(), words_of(first.clean, vocab).c_str(),
                vocab[static_cast<std::size_t>(first.answer)].c_str(), words_of(first.corrupted, vocab).c_str(),
                vocab[static_cast<std::size_t>(first.wrong)].c_str());
    const lab::PatchingResult r = lab::activation_patching(model, pairs.subject);
    const lab::PatchingResult d = lab::activation_patching(model, pairs.distractor);
    const lab::PatchingResult one = lab::activation_patching(model, {s.sentence.pair});
    // The distractor's flip in the subject's units: how far patching a head moves the logit difference
    // there, as a share of the gap the subject's number opens. Its own gap may be tiny, and a
    // fraction of a tiny gap would draw noise as large as a whole head.
    const double gap = r.clean_mean - r.corrupted_mean, effect = d.clean_mean - d.corrupted_mean;
    const Tensor pull = d.heads * (effect / gap);  // [L, H]
    std::printf("logit difference (right verb form - wrong one) at the last position, mean of the pairs: clean %.3f, "
                "corrupted %.3f\n", r.clean_mean, r.corrupted_mean);

    std::printf("fraction restored by patching the residual stream after each layer at each position (mean of the pairs):\n");
    const lab::Table avg = lab::patching_residual_table(r.residual, kPositions);
    std::vector<std::string> labels = token_labels(s.sentence.pair.clean, vocab);
    const std::string clean_text = words_of(s.sentence.pair.clean, vocab), corrupted_text = words_of(s.sentence.pair.corrupted, vocab);
    std::printf("the same for \"%s\" vs \"%s\" (logit difference %.3f vs %.3f):\n", clean_text.c_str(), corrupted_text.c_str(),
                one.clean_mean, one.corrupted_mean);
    const lab::Table mine = lab::patching_residual_table(one.residual, labels);

    const auto attention = last_position_attention(model, pairs.subject);
    std::printf("each head's output at the last position patched; its attention from there to the subject and the distractor:\n");
    lab::Table heads({{"head", "head", 6, -1},
                      {"subject", "restores subject", 16, 2},
                      {"distractor", "distractor's pull", 17, 2},
                      {"sentence", "your sentence", 13, 2},
                      {"attention_subject", "attn subject", 12, 2},
                      {"attention_distractor", "attn distractor", 15, 2}}, "  ");
    heads.print_header();
    struct Ranked { std::string name; double subject, distractor, attention_distractor; };
    std::vector<Ranked> ranked;
    for (std::int64_t l = 0; l < c.n_layers; ++l)
        for (std::int64_t h = 0; h < c.n_heads; ++h) {
            const auto& a = attention[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
            heads.row({head_name(l, h), r.heads.at({l, h}), pull.at({l, h}), one.heads.at({l, h}), a[2], a[5]});
            ranked.push_back({head_name(l, h), r.heads.at({l, h}), pull.at({l, h}), a[5]});
        }

    // The conclusion, from the numbers above.
    std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.subject > b.subject; });
    Json carriers = Json::array();
    std::string carried;
    for (const Ranked& h : ranked)
        if (h.subject >= kCarries) carriers.push_back(h.name), carried += (carried.empty() ? "" : ", ") + h.name + " (" + percent(h.subject) + ")";
    if (carried.empty())
        std::printf("no single head restores %s or more: the subject's number reaches the verb spread over the heads "
                    "(the most: %s, %s)\n", percent(kCarries).c_str(), ranked.front().name.c_str(), percent(ranked.front().subject).c_str());
    else std::printf("the subject's number reaches the verb's position through %s: each head's output alone restores "
                     "that much of the logit difference\n", carried.c_str());
    for (std::int64_t l = 0; l + 1 < c.n_layers; ++l) {
        std::int64_t best = 0;
        for (std::int64_t t = 1; t < r.residual.size(1); ++t)
            if (r.residual.at({l, t}) > r.residual.at({l, best})) best = t;
        std::printf("after layer %lld the number is held most at the %s position (%s restored there)\n", (long long)l + 1,
                    kPositions[static_cast<std::size_t>(best)].c_str(), percent(r.residual.at({l, best})).c_str());
    }
    double same = 0, other = 0;
    for (std::size_t i = 0; i < pairs.agrees.size(); ++i) (pairs.agrees[i] ? same : other) += r.clean[i] / double(kPairsEach);
    const bool competes = std::abs(effect) >= kCompetes * std::abs(gap);
    const Ranked by_distractor = *std::max_element(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
        return std::abs(a.distractor) < std::abs(b.distractor);
    });
    const Ranked looks = *std::max_element(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
        return a.attention_distractor < b.attention_distractor;
    });
    std::printf("the distractor %s: the clean logit difference is %.3f when it has the subject's number and %.3f when it has "
                "the other; flipping its number alone moves it by %.3f, %.1f %% of what flipping the subject's does",
                competes ? "competes" : "barely competes", same, other, effect, 100 * effect / gap);
    if (competes) std::printf(", and %s's output carries the most of that (%s)", by_distractor.name.c_str(), percent(by_distractor.distractor).c_str());
    std::printf("; %s attends most to it from the last position (weight %.2f) and restores %s of the subject's number\n",
                looks.name.c_str(), looks.attention_distractor, percent(looks.subject).c_str());

    p.m["patching"] = Json::Object{
        {"pairs", static_cast<std::int64_t>(pairs.subject.size())},
        {"clean_logit_difference", r.clean_mean},
        {"corrupted_logit_difference", r.corrupted_mean},
        {"residual", avg.json()},
        {"heads", heads.json()},
        {"carriers", carriers},
        {"distractor", Json::Object{{"logit_difference_same_number", same},
                                    {"logit_difference_other_number", other},
                                    {"competes", competes},
                                    {"flip_effect", effect},
                                    {"carried_most_by", competes ? Json(by_distractor.name) : Json("")},
                                    {"attended_most_by", looks.name}}},
        {"sentence", Json::Object{{"clean", clean_text},
                                  {"corrupted", corrupted_text},
                                  {"clean_logit_difference", one.clean_mean},
                                  {"corrupted_logit_difference", one.corrupted_mean},
                                  {"residual", mine.json()}}}};

    const double range = lab::patching_range({r.residual, one.residual});
    p.out.figure(plots::figure_grid({lab::patching_residual_heatmap(one.residual, labels, "Your sentence, its subject flipped", range),
                                     lab::patching_residual_heatmap(r.residual, kPositions, "Mean of " +
                                                                    std::to_string(pairs.subject.size()) + " grammar pairs", range)},
                                    {.columns = 1}),
                 "patching_residual",
                 "Phase 6: the share of the verb's logit difference restored by copying the clean run's residual stream "
                 "after each layer, at one position, into the run whose subject has the other number.");
    p.out.figure(lab::patching_heads_heatmap({r.heads, one.heads, pull}, {"subject flipped (pairs)", "subject flipped (sentence)",
                                                                          "distractor flipped (pairs)"},
                                             "Each head's output at the last position, patched"),
                 "patching_heads",
                 "Phase 6: the share of the verb's logit difference restored by copying one head's output at the last "
                 "position from the clean run; the right panel flips the distractor's number instead of the subject's, in percent of the subject's logit-difference gap.");
}

}  // namespace attnlab::phase6
