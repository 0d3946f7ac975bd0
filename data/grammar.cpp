// grammar.cpp — see grammar.hpp. The builder's checks, the compiled tables, and the
// few walks (prefix, sentence, sampling) that every other part of data/ is made of.
#include "data/grammar.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <unordered_set>

#include "tensor/error.hpp"

namespace attnlab::data {

// ---- GrammarBuilder -------------------------------------------------------------------

GrammarBuilder::State GrammarBuilder::state(std::string name) {
    state_names_.push_back(std::move(name));
    return static_cast<State>(state_names_.size() - 1);
}

void GrammarBuilder::emit(State from, double weight, const WordClass& words, State to) {
    int index = -1;
    for (std::size_t i = 0; i < classes_.size(); ++i)
        if (classes_[i].name == words.name) {
            if (classes_[i].words != words.words)
                throw ValueError("GrammarBuilder: two different word classes are both named '" + words.name + "'");
            index = static_cast<int>(i);
        }
    if (index < 0) {
        if (words.words.empty()) throw ValueError("GrammarBuilder: word class '" + words.name + "' is empty");
        classes_.push_back(words);
        index = static_cast<int>(classes_.size() - 1);
    }
    moves_.push_back({from, weight, index, to});
}

void GrammarBuilder::end(State from, double weight) { moves_.push_back({from, weight, -1, -1}); }

Grammar GrammarBuilder::build(State start) const {
    const int S = static_cast<int>(state_names_.size());
    auto name = [&](State s) { return "'" + state_names_[static_cast<std::size_t>(s)] + "'"; };
    auto check_state = [&](State s) {
        if (s < 0 || s >= S) throw ValueError("GrammarBuilder: state " + std::to_string(s) + " was never created");
    };
    check_state(start);

    // The vocabulary: every word of every class, in the order the rules introduced them.
    std::vector<std::string> words;
    std::unordered_set<std::string> seen;
    for (const WordClass& c : classes_)
        for (const std::string& w : c.words)
            if (seen.insert(w).second) words.push_back(w);

    Grammar g;
    g.vocab_ = Vocab(words);
    g.V_ = static_cast<std::size_t>(g.vocab_.size());
    g.start_ = start;
    g.state_names_ = state_names_;
    g.expects_.assign(static_cast<std::size_t>(S), "");
    g.probs_.assign(static_cast<std::size_t>(S) * g.V_, 0.0);
    g.next_.assign(static_cast<std::size_t>(S) * g.V_, -1);
    g.moves_.assign(static_cast<std::size_t>(S), {});

    std::vector<double> total(static_cast<std::size_t>(S), 0.0);
    for (const Move& m : moves_) {
        check_state(m.from);
        if (m.word_class >= 0) check_state(m.to);
        if (!(m.weight > 0) || !std::isfinite(m.weight))
            throw ValueError("GrammarBuilder: a move out of " + name(m.from) + " has weight " +
                             std::to_string(m.weight) + "; weights must be positive and finite");
        total[static_cast<std::size_t>(m.from)] += m.weight;
    }

    // Each move spreads its probability evenly over its words. A token reached by two
    // moves out of one state would make the state after it ambiguous: refuse that.
    for (const Move& m : moves_) {
        const auto s = static_cast<std::size_t>(m.from);
        const double p = m.weight / total[s];
        auto set = [&](std::int64_t token, double prob, int next) {
            const std::size_t at = s * g.V_ + static_cast<std::size_t>(token);
            if (g.next_[at] != -1)
                throw ValueError("GrammarBuilder: state " + name(m.from) + " emits '" + g.vocab_.word(token) +
                                 "' by two moves; the automaton must be deterministic");
            g.probs_[at] = prob;
            g.next_[at] = next;
        };
        std::string& expects = g.expects_[s];
        expects += (expects.empty() ? "" : ", ");
        if (m.word_class < 0) {
            set(Vocab::kEos, p, start);
            expects += "end of sentence";
        } else {
            const WordClass& c = classes_[static_cast<std::size_t>(m.word_class)];
            for (const std::string& w : c.words) set(g.vocab_.id(w), p / static_cast<double>(c.words.size()), m.to);
            expects += c.name;
        }
    }
    for (int s = 0; s < S; ++s)
        for (std::size_t t = 0; t < g.V_; ++t) {
            const std::size_t at = static_cast<std::size_t>(s) * g.V_ + t;
            if (g.next_[at] != -1) g.moves_[static_cast<std::size_t>(s)].push_back({static_cast<std::int64_t>(t), g.next_[at], g.probs_[at]});
        }

    // Every state must be reachable (else the rules have a typo) ...
    std::vector<char> reached(static_cast<std::size_t>(S), 0);
    std::vector<int> todo{start};
    reached[static_cast<std::size_t>(start)] = 1;
    while (!todo.empty()) {
        const int s = todo.back();
        todo.pop_back();
        for (const Grammar::Move& m : g.moves_[static_cast<std::size_t>(s)]) {
            char& r = reached[static_cast<std::size_t>(m.next)];
            if (!r) {
                r = 1;
                todo.push_back(m.next);
            }
        }
    }
    for (int s = 0; s < S; ++s)
        if (!reached[static_cast<std::size_t>(s)]) throw ValueError("GrammarBuilder: state " + name(s) + " is unreachable from the start");

    // ... and lead to the end of the sentence along every path, with no cycle — so that
    // sentences have a longest length and every table below is finite.
    g.longest_.assign(static_cast<std::size_t>(S), -1);
    std::vector<char> on_path(static_cast<std::size_t>(S), 0);
    std::function<std::int64_t(int)> longest = [&](int s) -> std::int64_t {
        const auto i = static_cast<std::size_t>(s);
        if (g.longest_[i] >= 0) return g.longest_[i];
        if (on_path[i]) throw ValueError("GrammarBuilder: a cycle through state " + name(s) + " makes sentences unbounded");
        if (g.moves_[i].empty()) throw ValueError("GrammarBuilder: state " + name(s) + " has no moves, so a sentence there never ends");
        on_path[i] = 1;
        std::int64_t best = 0;
        for (const Grammar::Move& m : g.moves_[i])
            if (m.token != Vocab::kEos) best = std::max(best, 1 + longest(m.next));
        on_path[i] = 0;
        return g.longest_[i] = best;
    };
    for (int s = 0; s < S; ++s) longest(s);

    // fit_[b][s] = P(the sentence ends within b more words | s), by recursion on b:
    // end now, or emit a word and end within b - 1 more. Budgets at or past a state's
    // longest continuation are exactly 1 and are not stored (fit_prob answers them).
    const std::int64_t max_budget = g.max_words();
    g.fit_.assign(static_cast<std::size_t>(max_budget * S), 0.0);
    for (std::int64_t b = 0; b < max_budget; ++b)
        for (int s = 0; s < S; ++s) {
            double f = 0;
            for (const Grammar::Move& m : g.moves_[static_cast<std::size_t>(s)])
                f += m.token == Vocab::kEos ? m.prob : (b > 0 ? m.prob * g.fit_prob(m.next, b - 1) : 0.0);
            g.fit_[static_cast<std::size_t>(b * S + s)] = f;
        }
    return g;
}

// ---- Grammar: single moves ---------------------------------------------------------------

int Grammar::step(int state, std::int64_t token) const {
    if (token < 0 || token >= static_cast<std::int64_t>(V_)) return -1;
    return next_[static_cast<std::size_t>(state) * V_ + static_cast<std::size_t>(token)];
}

double Grammar::fit_prob(int state, std::int64_t budget) const {
    if (budget < 0) return 0.0;
    if (budget >= longest_[static_cast<std::size_t>(state)]) return 1.0;
    return fit_[static_cast<std::size_t>(budget * num_states() + state)];
}

// ---- Grammar: prefixes and sentences -------------------------------------------------------

std::string Grammar::describe_failure(std::span<const std::int64_t> prefix, std::size_t pos, int state) const {
    const std::string here = pos == 0 ? "cannot start a sentence" : "cannot follow '" + vocab_.word(prefix[pos - 1]) + "'";
    return "Grammar: '" + vocab_.word(prefix[pos]) + "' (position " + std::to_string(pos) + ") " + here +
           "; there the grammar expects: " + expects_[static_cast<std::size_t>(state)];
}

int Grammar::state_after(std::span<const std::int64_t> prefix) const {
    int s = start_;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (!vocab_.is_word(prefix[i]))
            throw ValueError("Grammar: token id " + std::to_string(prefix[i]) + " at position " + std::to_string(i) +
                             (prefix[i] >= 0 && prefix[i] < vocab_.size() ? " ('" + vocab_.word(prefix[i]) + "')" : "") +
                             " is not a word; prefixes and sentences hold words only");
        const int next = step(s, prefix[i]);
        if (next < 0) throw ValueError(describe_failure(prefix, i, s));
        s = next;
    }
    return s;
}

std::vector<double> Grammar::next_token_probs(std::span<const std::int64_t> prefix, std::int64_t max_words) const {
    const int s = state_after(prefix);
    const std::span<const double> row = probs(s);
    if (max_words < 0) return {row.begin(), row.end()};

    // Conditioning on "at most max_words words" reweights each move by the chance that
    // the sentence still fits after it: P(w | s, fits) = P(w | s) · fit(next, b − 1) / fit(s, b).
    const std::int64_t budget = max_words - static_cast<std::int64_t>(prefix.size());
    const double z = fit_prob(s, budget);
    if (z == 0)
        throw ValueError("Grammar::next_token_probs: no sentence that starts with these " + std::to_string(prefix.size()) +
                         " words has at most " + std::to_string(max_words) + " words");
    std::vector<double> p(V_, 0.0);
    for (const Move& m : moves_[static_cast<std::size_t>(s)])
        p[static_cast<std::size_t>(m.token)] = m.prob * (m.token == Vocab::kEos ? 1.0 : fit_prob(m.next, budget - 1)) / z;
    return p;
}

double Grammar::sentence_log_prob(std::span<const std::int64_t> words) const {
    int s = start_;
    double logp = 0;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (!vocab_.is_word(words[i]))
            throw ValueError("Grammar::sentence_log_prob: token id " + std::to_string(words[i]) + " at position " +
                             std::to_string(i) + " is not a word");
        const int next = step(s, words[i]);
        if (next < 0) return -std::numeric_limits<double>::infinity();
        logp += std::log(probs(s)[static_cast<std::size_t>(words[i])]);
        s = next;
    }
    return logp + std::log(probs(s)[Vocab::kEos]);  // log 0 = -inf if the sentence cannot end here
}

std::vector<std::int64_t> Grammar::sample_sentence(Generator& gen, std::int64_t max_words) const {
    if (max_words >= 0 && fit_prob(start_, max_words) == 0)
        throw ValueError("Grammar::sample_sentence: no sentence has at most " + std::to_string(max_words) + " words");
    std::vector<std::int64_t> words;
    int s = start_;
    for (;;) {
        // Inverse-CDF draw over the state's moves, each weighted by its probability and,
        // under a length limit, by the chance the sentence still fits after it.
        const std::int64_t budget = max_words < 0 ? -1 : max_words - static_cast<std::int64_t>(words.size());
        const bool limited = budget >= 0 && budget < longest_[static_cast<std::size_t>(s)];
        auto weight = [&](const Move& m) {
            return !limited || m.token == Vocab::kEos ? m.prob : m.prob * fit_prob(m.next, budget - 1);
        };
        const auto& moves = moves_[static_cast<std::size_t>(s)];
        double total = 0;
        for (const Move& m : moves) total += weight(m);
        double u = gen.uniform() * total;
        const Move* pick = nullptr;
        for (const Move& m : moves) {
            const double w = weight(m);
            if (w == 0) continue;
            pick = &m;  // the last move with weight catches u == total after rounding
            if (u < w) break;
            u -= w;
        }
        if (pick->token == Vocab::kEos) return words;
        words.push_back(pick->token);
        s = pick->next;
    }
}

}  // namespace attnlab::data
