// test_grammar.cpp — the grammar's automaton: exact probabilities, sampling, agreement,
// the seed sentences, and its errors.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "data/grammar.hpp"
#include "data/tokenizer.hpp"
#include "data/toy_sequences.hpp"
#include "tensor/error.hpp"

using namespace attnlab;
using namespace attnlab::data;

namespace {

std::vector<std::int64_t> words(const std::string& text) { return WordTokenizer(toy_grammar().vocab()).encode(text); }

double sum(const std::vector<double>& p) {
    double s = 0;
    for (double x : p) s += x;
    return s;
}

// Pearson's chi-square of observed counts against probabilities, with bins whose
// expected count is below 5 pooled into one; returns {statistic, degrees of freedom}.
std::pair<double, int> chi_square(const std::map<std::int64_t, int>& counts, const std::vector<double>& p, int n) {
    double stat = 0, pooled_expected = 0, pooled_observed = 0;
    int bins = 0;
    for (std::size_t t = 0; t < p.size(); ++t) {
        const double expected = p[t] * n;
        const auto it = counts.find(static_cast<std::int64_t>(t));
        const double observed = it == counts.end() ? 0 : it->second;
        if (p[t] == 0) {
            CHECK(observed == 0);  // never sampled where the table says impossible
        } else if (expected < 5) {
            pooled_expected += expected;
            pooled_observed += observed;
        } else {
            stat += (observed - expected) * (observed - expected) / expected;
            ++bins;
        }
    }
    if (pooled_expected > 0) {
        stat += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
        ++bins;
    }
    return {stat, bins - 1};
}

// The chi-square value a correct sampler exceeds with probability about 1e-6
// (Wilson–Hilferty approximation), so a fixed-seed test fails only for a real bias.
double chi_square_limit(int dof) {
    const double k = dof, z = 4.75;
    return k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
}

// An agreement checker written from English, independent of the grammar's states:
// the subject is the sentence's first noun, its verb the first verb form after it.
struct Agreement {
    const std::set<std::string> singular_nouns{"cat", "dog", "mat", "animal", "street", "fox", "kitten", "bird",
                                               "rug", "chair", "tree", "garden", "box", "house", "mouse", "child"};
    const std::set<std::string> plural_nouns{"cats", "dogs", "mats", "animals", "streets", "foxes", "kittens", "birds",
                                             "rugs", "chairs", "trees", "gardens", "boxes", "houses", "mice", "children"};
    const std::set<std::string> singular_present{"sits", "sleeps", "runs", "jumps", "waits",
                                                 "sees", "chases", "likes", "crosses", "watches"};
    const std::set<std::string> plural_present{"sit", "sleep", "run", "jump", "wait", "see", "chase", "like", "cross", "watch"};
    const std::set<std::string> past{"sat", "slept", "ran", "jumped", "waited", "saw", "chased", "liked", "crossed",
                                     "watched", "didn't"};
    const std::set<std::string> singular_det{"this", "that", "every"};
    const std::set<std::string> plural_det{"these", "those", "some", "two"};

    bool is_noun(const std::string& w) const { return singular_nouns.contains(w) || plural_nouns.contains(w); }

    // Empty if the sentence agrees; else what is wrong. `distractor` is set when a noun
    // of the other number stands between the subject and a present-tense verb.
    std::string check(const std::vector<std::string>& s, bool& distractor) const {
        int subject = -1, verb = -1;
        for (int i = 0; i < static_cast<int>(s.size()); ++i) {
            const std::string& w = s[static_cast<std::size_t>(i)];
            if (subject < 0 && is_noun(w)) subject = i;
            if (subject >= 0 && verb < 0 && (singular_present.contains(w) || plural_present.contains(w) || past.contains(w))) verb = i;
        }
        if (subject < 0 || verb < 0) return "no subject or no verb";
        const bool plural = plural_nouns.contains(s[static_cast<std::size_t>(subject)]);
        const std::string& v = s[static_cast<std::size_t>(verb)];
        if ((singular_present.contains(v) && plural) || (plural_present.contains(v) && !plural))
            return "verb '" + v + "' does not agree with the subject";
        if (!past.contains(v))
            for (int i = subject + 1; i < verb; ++i)
                if (is_noun(s[static_cast<std::size_t>(i)]) && plural_nouns.contains(s[static_cast<std::size_t>(i)]) != plural) distractor = true;
        for (std::size_t i = 0; i + 1 < s.size(); ++i) {
            if (s[i] == "it" && (plural || s[i + 1] != "was")) return "'it' for a plural subject, or not 'it was'";
            if (s[i] == "they" && (!plural || s[i + 1] != "were")) return "'they' for a singular subject, or not 'they were'";
            // a determiner's number reaches its noun across the adjectives
            if (singular_det.contains(s[i]) || plural_det.contains(s[i])) {
                std::size_t n = i + 1;
                while (n < s.size() && !is_noun(s[n])) ++n;
                if (n == s.size() || plural_nouns.contains(s[n]) != plural_det.contains(s[i]))
                    return "determiner '" + s[i] + "' does not agree with its noun";
            }
        }
        return "";
    }
};

}  // namespace

TEST_CASE("next_token_probs is a distribution after every prefix sampling reaches", "[data][grammar]") {
    const Grammar& g = toy_grammar();
    Generator gen(1);
    for (int n = 0; n < 1000; ++n) {
        const std::vector<std::int64_t> s = g.sample_sentence(gen);
        for (std::size_t k = 0; k <= s.size(); ++k) {
            const std::vector<std::int64_t> prefix(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(k));
            const std::vector<double> p = g.next_token_probs(prefix);
            REQUIRE(p.size() == static_cast<std::size_t>(g.vocab().size()));
            REQUIRE(sum(p) == Approx(1.0).margin(1e-12));
            const std::int64_t next = k < s.size() ? s[k] : Vocab::kEos;
            REQUIRE(p[static_cast<std::size_t>(next)] > 0);  // what was sampled was possible
            for (std::int64_t special : {Vocab::kPad, Vocab::kBos, Vocab::kMask}) REQUIRE(p[static_cast<std::size_t>(special)] == 0);
        }
    }
}

TEST_CASE("a hand-written grammar gets the probabilities its weights define", "[data][grammar]") {
    GrammarBuilder b;
    const auto start = b.state("start"), middle = b.state("middle");
    b.emit(start, 3, WordClass{"x or y", {"x", "y"}}, middle);  // 3/4, shared by two words
    b.end(start, 1);                                              // 1/4
    b.emit(middle, 1, WordClass{"z", {"z"}}, start);              // back to the start: unbounded sentences
    CHECK_THROWS_WITH(b.build(start), Catch::Contains("cycle") && Catch::Contains("start"));

    GrammarBuilder ok;
    const auto s0 = ok.state("start"), s1 = ok.state("after x or y"), s2 = ok.state("after z");
    ok.emit(s0, 3, WordClass{"x or y", {"x", "y"}}, s1);
    ok.end(s0, 1);
    ok.emit(s1, 1, WordClass{"z", {"z"}}, s2);
    ok.end(s1, 1);
    ok.end(s2, 1);
    const Grammar g = ok.build(s0);
    const Vocab& v = g.vocab();
    CHECK(v.size() == 4 + 3);
    const std::vector<double> p0 = g.next_token_probs(std::vector<std::int64_t>{});
    CHECK(p0[static_cast<std::size_t>(v.id("x"))] == Approx(3.0 / 8));
    CHECK(p0[static_cast<std::size_t>(v.id("y"))] == Approx(3.0 / 8));
    CHECK(p0[Vocab::kEos] == Approx(1.0 / 4));
    const std::vector<std::int64_t> xz{v.id("x"), v.id("z")};
    CHECK(g.sentence_log_prob(xz) == Approx(std::log(3.0 / 8 * 1.0 / 2 * 1.0)));
    CHECK(g.max_words() == 2);
    // at most one word: P(len 0) = 1/4, P(len 1) = 3/4 · 1/2
    CHECK(g.fit_prob(g.start(), 1) == Approx(1.0 / 4 + 3.0 / 8));
    const std::vector<double> p1 = g.next_token_probs(std::vector<std::int64_t>{}, 1);
    CHECK(p1[Vocab::kEos] == Approx((1.0 / 4) / (5.0 / 8)));
    CHECK(p1[static_cast<std::size_t>(v.id("x"))] == Approx((3.0 / 16) / (5.0 / 8)));
}

TEST_CASE("the builder refuses automata that are not deterministic, reachable and finite", "[data][grammar][errors]") {
    const WordClass ab{"a or b", {"a", "b"}}, bc{"b or c", {"b", "c"}};
    GrammarBuilder twice;
    const auto s = twice.state("start"), t = twice.state("t"), u = twice.state("u");
    twice.emit(s, 1, ab, t);
    twice.emit(s, 1, bc, u);  // 'b' out of one state twice: which state comes after "b"?
    twice.end(t, 1);
    twice.end(u, 1);
    CHECK_THROWS_WITH(twice.build(s), Catch::Contains("'b'") && Catch::Contains("deterministic"));

    GrammarBuilder unreachable;
    const auto s2 = unreachable.state("start");
    unreachable.end(unreachable.state("island"), 1);
    unreachable.end(s2, 1);
    CHECK_THROWS_WITH(unreachable.build(s2), Catch::Contains("'island'") && Catch::Contains("unreachable"));

    GrammarBuilder dead;
    const auto s3 = dead.state("start");
    dead.emit(s3, 1, ab, dead.state("dead end"));
    dead.end(s3, 1);
    CHECK_THROWS_WITH(dead.build(s3), Catch::Contains("'dead end'") && Catch::Contains("never ends"));

    GrammarBuilder negative;
    const auto s4 = negative.state("start");
    negative.end(s4, -1);
    CHECK_THROWS_AS(negative.build(s4), ValueError);
}

TEST_CASE("sampling is deterministic per seed and depends on it", "[data][grammar]") {
    const Grammar& g = toy_grammar();
    Generator a(42), b(42), c(43);
    std::vector<std::vector<std::int64_t>> from_a, from_b, from_c;
    for (int i = 0; i < 50; ++i) {
        from_a.push_back(g.sample_sentence(a));
        from_b.push_back(g.sample_sentence(b));
        from_c.push_back(g.sample_sentence(c));
    }
    CHECK(from_a == from_b);
    CHECK(from_a != from_c);
}

TEST_CASE("every sampled sentence is probable, short enough, and agrees", "[data][grammar][agreement]") {
    const Grammar& g = toy_grammar();
    const Agreement agreement;
    Generator gen(7);
    int with_distractor = 0;
    for (int n = 0; n < 2000; ++n) {
        const std::vector<std::int64_t> s = g.sample_sentence(gen);
        REQUIRE(std::isfinite(g.sentence_log_prob(s)));
        REQUIRE(static_cast<std::int64_t>(s.size()) <= g.max_words());
        std::vector<std::string> text;
        for (std::int64_t id : s) text.push_back(g.vocab().word(id));
        bool distractor = false;
        INFO(WordTokenizer(g.vocab()).decode(s));
        REQUIRE(agreement.check(text, distractor) == "");
        with_distractor += distractor;
    }
    // The case attention is for must actually occur: a nearer noun of the other number.
    CHECK(with_distractor > 50);
    // ... and the checker can fail: it rejects what the grammar rejects.
    bool unused = false;
    CHECK(agreement.check({"the", "cat", "on", "the", "mats", "sleep"}, unused) != "");
    CHECK(agreement.check({"the", "cats", "saw", "the", "dog", "because", "it", "was", "tired"}, unused) != "");
    CHECK(g.sentence_log_prob(words("the cat on the mats sleep")) == -INFINITY);
    CHECK(g.sentence_log_prob(words("the cats saw the dog because it was tired")) == -INFINITY);
    CHECK(std::isfinite(g.sentence_log_prob(words("the cat on the mats sleeps"))));
    CHECK(std::isfinite(g.sentence_log_prob(words("the cats saw the dog because they were tired"))));
}

TEST_CASE("empirical next-token frequencies match next_token_probs", "[data][grammar][sampling]") {
    const Grammar& g = toy_grammar();
    Generator gen(2024);
    const int N = 300000;
    const std::vector<std::vector<std::int64_t>> prefixes{{}, words("the"), words("the cat"), words("the cats")};
    std::vector<std::map<std::int64_t, int>> counts(prefixes.size());
    std::vector<int> hits(prefixes.size(), 0);
    // Also per automaton state: the prefixes that lead to one state share one
    // next-token distribution, so every frequently visited state gets its own test —
    // "after the subject's prepositional phrase (plural subject)" among them.
    std::map<int, std::map<std::int64_t, int>> by_state;
    for (int n = 0; n < N; ++n) {
        std::vector<std::int64_t> s = g.sample_sentence(gen);
        s.push_back(Vocab::kEos);
        int state = g.start();
        for (std::int64_t t : s) {
            ++by_state[state][t];
            state = g.step(state, t);
        }
        for (std::size_t i = 0; i < prefixes.size(); ++i) {
            const auto& p = prefixes[i];
            if (s.size() > p.size() && std::equal(p.begin(), p.end(), s.begin())) {
                ++counts[i][s[p.size()]];
                ++hits[i];
            }
        }
    }
    for (std::size_t i = 0; i < prefixes.size(); ++i) {
        INFO("prefix '" << WordTokenizer(g.vocab()).decode(prefixes[i]) << "', " << hits[i] << " samples");
        REQUIRE(hits[i] > 1000);
        const auto [stat, dof] = chi_square(counts[i], g.next_token_probs(prefixes[i]), hits[i]);
        CHECK(dof > 0);
        CHECK(stat < chi_square_limit(dof));
    }
    int states_tested = 0;
    for (const auto& [state, next] : by_state) {
        int visits = 0;
        for (const auto& [token, c] : next) visits += c;
        if (visits < 2000) continue;
        INFO("state '" << g.state_name(state) << "', " << visits << " visits");
        const std::span<const double> p = g.probs(state);
        const auto [stat, dof] = chi_square(next, std::vector<double>(p.begin(), p.end()), visits);
        CHECK(stat < chi_square_limit(std::max(dof, 1)));
        ++states_tested;
    }
    CHECK(states_tested > 30);
}

TEST_CASE("conditioning on a length limit matches enumeration and sampling", "[data][grammar][packing]") {
    const Grammar& g = toy_grammar();
    // P(next | prefix, at most k words) by brute force: weight each next token by the
    // chance, enumerated through next_token_probs, that the sentence then ends in time.
    std::function<double(std::vector<std::int64_t>&, std::int64_t)> ends_within = [&](std::vector<std::int64_t>& prefix,
                                                                                    std::int64_t more) {
        const std::vector<double> p = g.next_token_probs(prefix);
        double total = p[Vocab::kEos];
        if (more > 0)
            for (std::int64_t w = Vocab::kFirstWord; w < g.vocab().size(); ++w)
                if (p[static_cast<std::size_t>(w)] > 0) {
                    prefix.push_back(w);
                    total += p[static_cast<std::size_t>(w)] * ends_within(prefix, more - 1);
                    prefix.pop_back();
                }
        return total;
    };
    for (const std::string text : {"the cat", "the cats near the", "the cat sat on the", "my dog saw", "these"}) {
        std::vector<std::int64_t> prefix = words(text);
        for (std::int64_t extra = 1; extra <= 3; ++extra) {
            const std::int64_t k = static_cast<std::int64_t>(prefix.size()) + extra;
            if (g.fit_prob(g.state_after(prefix), extra) == 0) continue;
            const std::vector<double> fast = g.next_token_probs(prefix, k), plain = g.next_token_probs(prefix);
            std::vector<double> slow(plain.size(), 0.0);
            double z = 0;
            for (std::size_t t = 0; t < plain.size(); ++t) {
                if (plain[t] == 0) continue;
                double fits = 1.0;
                if (static_cast<std::int64_t>(t) != Vocab::kEos) {
                    prefix.push_back(static_cast<std::int64_t>(t));
                    fits = ends_within(prefix, extra - 1);
                    prefix.pop_back();
                }
                slow[t] = plain[t] * fits;
                z += slow[t];
            }
            INFO("prefix '" << text << "', at most " << k << " words");
            for (std::size_t t = 0; t < slow.size(); ++t) REQUIRE(fast[t] == Approx(slow[t] / z).margin(1e-12));
        }
    }
    // fit_prob(start, k) is the length distribution's CDF: compare with sampled lengths.
    Generator gen(5);
    const int N = 50000;
    std::vector<int> at_most(static_cast<std::size_t>(g.max_words()) + 1, 0);
    for (int n = 0; n < N; ++n) {
        const std::vector<std::int64_t> s = g.sample_sentence(gen);
        for (std::size_t k = s.size(); k < at_most.size(); ++k) ++at_most[k];
        const std::vector<std::int64_t> short_one = g.sample_sentence(gen, 5);
        REQUIRE(short_one.size() <= 5);
        REQUIRE(std::isfinite(g.sentence_log_prob(short_one)));
    }
    for (std::int64_t k = 0; k <= g.max_words(); ++k) {
        const double p = g.fit_prob(g.start(), k), sigma = std::sqrt(p * (1 - p) / N);
        CHECK(std::abs(at_most[static_cast<std::size_t>(k)] / double(N) - p) <= 5 * sigma + 1e-12);
    }
    CHECK(g.fit_prob(g.start(), g.max_words()) == 1.0);
}

TEST_CASE("every line of toy_sequences.txt is a sentence of the grammar", "[data][grammar][toy_sequences]") {
    const Grammar& g = toy_grammar();
    const auto sentences = load_toy_sequences(g.vocab());
    REQUIRE(sentences.size() >= 6);
    REQUIRE(sentences.size() <= 12);
    CHECK(WordTokenizer(g.vocab()).decode(sentences[0]) == "the cat sat on the mat");
    for (const auto& s : sentences) {
        INFO(WordTokenizer(g.vocab()).decode(s));
        CHECK(s.size() >= 4);
        CHECK(s.size() <= 14);
        CHECK(std::isfinite(g.sentence_log_prob(s)));
    }
}

TEST_CASE("grammar bad input: the offending word, position and expectation are named", "[data][grammar][errors]") {
    const Grammar& g = toy_grammar();
    CHECK_THROWS_WITH(g.next_token_probs(words("the sat")),
                      Catch::Contains("'sat'") && Catch::Contains("position 1") && Catch::Contains("follow 'the'") &&
                          Catch::Contains("singular noun"));
    CHECK_THROWS_WITH(g.next_token_probs(words("cat")), Catch::Contains("'cat'") && Catch::Contains("start a sentence"));
    CHECK_THROWS_AS(g.next_token_probs(words("the cat on the mats sleep")), ValueError);
    CHECK_THROWS_WITH(g.next_token_probs(std::vector<std::int64_t>{Vocab::kBos}), Catch::Contains("<bos>") && Catch::Contains("not a word"));
    CHECK_THROWS_WITH(g.sentence_log_prob(std::vector<std::int64_t>{999}), Catch::Contains("999"));
    CHECK_THROWS_WITH(g.next_token_probs(words("the cat sat on the"), 5), Catch::Contains("at most 5 words"));
    Generator gen(0);
    CHECK_THROWS_WITH(g.sample_sentence(gen, 2), Catch::Contains("at most 2 words"));  // the shortest has three
    CHECK_THROWS_WITH(g.vocab().id("kangaroo"), Catch::Contains("'kangaroo'"));
}
