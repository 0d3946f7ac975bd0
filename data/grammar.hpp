// grammar.hpp — a probabilistic grammar whose every next-token probability is exact.
//
// A Grammar is a finite automaton over words with a probability on each move, built
// so that it is *deterministic*: the state after any prefix is a function of that
// prefix alone (a word never has two moves out of one state). That one property buys
// the whole data module its point. Because the state is known, P(next word | prefix)
// is not estimated but read off a table, and so is the Bayes-optimal loss — the
// lowest cross-entropy any model, of any size, can reach on text from this grammar
// (data/lm_batches.hpp). A training curve can then be compared with a true floor
// instead of with zero.
//
// The language itself — its words, states and probabilities — is written out as
// rules in data/toy_grammar.cpp; toy_grammar() returns it. Its vocabulary was made to
// cover the seed documents' example sentences (rather than dropping the sentences that
// used other words), so every one of them is in data/toy_sequences.txt.
//
// Conventions. A *sentence* is a sequence of word ids (no special tokens); it ends
// with an implicit <eos>, whose probability is part of the sentence's probability.
// Every sentence has at most max_words() words: the automaton has no cycles, so the
// tables below (including the length tables used to pack rows) are finite.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "data/vocab.hpp"
#include "tensor/rng.hpp"

namespace attnlab::data {

class Grammar;

// A set of interchangeable words, emitted by one move (each word equally likely).
struct WordClass {
    std::string name;  // shown in error messages: "expected one of: adjective, singular noun"
    std::vector<std::string> words;
};

// Writes a grammar down state by state. Weights are relative: each state's outgoing
// weights are normalised to probabilities by build().
class GrammarBuilder {
public:
    using State = int;
    State state(std::string name);  // a new state; the name appears in errors and in debugging
    // From `from`, with relative weight `weight`: emit one word of `words` and go to `to`.
    void emit(State from, double weight, const WordClass& words, State to);
    // From `from`, with relative weight `weight`: end the sentence (emit <eos>).
    void end(State from, double weight);
    // Checks the automaton — deterministic, every state reachable and able to end,
    // no cycles, positive weights — and compiles it into tables. Throws ValueError
    // naming the state at fault.
    Grammar build(State start) const;

private:
    struct Move {
        State from;
        double weight;
        int word_class;  // index into classes_, or -1 for <eos>
        State to;
    };
    std::vector<std::string> state_names_;
    std::vector<WordClass> classes_;
    std::vector<Move> moves_;
};

class Grammar {
public:
    const Vocab& vocab() const { return vocab_; }
    int num_states() const { return static_cast<int>(state_names_.size()); }
    int start() const { return start_; }
    const std::string& state_name(int state) const { return state_names_[static_cast<std::size_t>(state)]; }
    std::int64_t max_words() const { return longest_[static_cast<std::size_t>(start_)]; }

    // ---- the automaton, one move at a time (the tables every other function reads) ----
    struct Move {
        std::int64_t token;
        int next;     // the state after the token (start() after <eos>)
        double prob;  // P(token | state), > 0
    };
    // The tokens that can follow `state`, with their probabilities: the nonzero
    // entries of probs(state), in token order.
    std::span<const Move> moves(int state) const { return moves_[static_cast<std::size_t>(state)]; }
    // P(token | state) for every token id, <eos> included; specials other than <eos> are 0.
    std::span<const double> probs(int state) const {
        return {probs_.data() + static_cast<std::size_t>(state) * V_, V_};
    }
    // The state after emitting `token` from `state`; -1 if the token cannot follow.
    // After <eos> the automaton is back at start(): sentences are independent, so a
    // stream of sentences separated by <eos> is walked with the same tables.
    int step(int state, std::int64_t token) const;
    // P(the sentence ends within `budget` more words | state): the chance that what is
    // left of it, <eos> included, fits in budget + 1 tokens. Exactly 1 once budget
    // reaches the longest continuation. Packing rows needs it (data/packing.hpp).
    double fit_prob(int state, std::int64_t budget) const;

    // ---- whole prefixes and sentences ---------------------------------------------------
    // The state after a prefix of words. Throws ValueError naming the first word (and
    // its position) that the grammar cannot emit there, and what it expected instead.
    int state_after(std::span<const std::int64_t> prefix) const;
    // Exact P(next token | prefix) over the whole vocabulary (size vocab().size()).
    // With max_words >= 0 the sentence is also conditioned to have at most max_words
    // words — how a sentence near the end of a packed row is distributed.
    std::vector<double> next_token_probs(std::span<const std::int64_t> prefix, std::int64_t max_words = -1) const;
    // log P(words, then <eos>); -inf for a sequence of words the grammar cannot emit.
    // Ids that are not words (specials, out of range) throw ValueError.
    double sentence_log_prob(std::span<const std::int64_t> words) const;
    // A sentence drawn from the grammar (words only), optionally conditioned to have at
    // most max_words words. Uses only `gen`, so one seed gives one sentence everywhere.
    std::vector<std::int64_t> sample_sentence(Generator& gen, std::int64_t max_words = -1) const;

private:
    friend class GrammarBuilder;
    std::string describe_failure(std::span<const std::int64_t> prefix, std::size_t pos, int state) const;

    Vocab vocab_;
    std::size_t V_ = 0;
    int start_ = 0;
    std::vector<std::string> state_names_;
    std::vector<std::string> expects_;  // per state: the word classes it can emit, for errors
    std::vector<double> probs_;         // [state][token]
    std::vector<int> next_;             // [state][token]; -1 where probs_ is 0
    std::vector<std::vector<Move>> moves_;  // per state, the nonzero entries of the rows above
    std::vector<std::int64_t> longest_;     // per state: most words before <eos>
    std::vector<double> fit_;               // [budget][state] for budget < max_words()
};

// The toy language of attnlab (data/toy_grammar.cpp): ~100 words, subject–verb and
// subject–pronoun agreement across intervening nouns. Built once, on first use.
const Grammar& toy_grammar();

// The toy language's dependencies in a sequence of its words, as gold pairs for measuring
// what attention heads do (analyses/head_roles.hpp). Positions index `words` (no specials).
// The pairs are read off the word classes of data/toy_grammar.cpp, the same ones the rules
// emit, so every sentence the grammar generates gets exactly its dependencies:
//   determiner_noun     every determiner -> the noun that ends its noun phrase
//   subject_verb        the subject (first noun) <- its verb (the first verb, or "didn't")
//   verb_object         the verb -> the first noun after it (object, or via a preposition)
//   pronoun_antecedent  "it" / "they" -> the subject it agrees with
// `from` is the word the course's patterns put first ("the" -> "cat"; "sat" -> "cat"); `to` the other.
// Words the language does not have (a model's generated text may hold anything) are skipped.
enum class Relation { determiner_noun, subject_verb, verb_object, pronoun_antecedent };
const char* relation_name(Relation r);  // "determiner->noun", "verb->subject", "verb->object", "pronoun->antecedent"
struct GoldPair {
    Relation relation;
    std::int64_t from, to;
};
std::vector<GoldPair> toy_gold_pairs(std::span<const std::int64_t> words);

// What the toy language's nouns mean, for semantic heads (analyses/head_roles.hpp: attention from a
// noun to related nouns). Every noun, in both numbers ("cat" and "cats"), is in one class; other
// words, specials and ids outside the vocabulary are `none`. The rules never read it: the
// grammar picks nouns uniformly within their number, so a sentence's nouns are related only
// by chance, and what the language generates is the same with or without this table.
enum class NounClass { none, animal, person, household_object, place };
const char* noun_class_name(NounClass c);  // "animal", "person", "household object", "place", "none"
NounClass noun_class(std::int64_t word);

// The same word in the other number, for the words that agree with the subject: a noun
// ("cat" <-> "cats", "mouse" <-> "mice"), a present-tense verb ("sleeps" <-> "sleep"), the
// pronoun ("it" <-> "they") and its copula ("was" <-> "were"). -1 for every other word (past
// tenses and "didn't" do not agree), a special or an id outside the vocabulary. Activation
// patching builds its corrupted sentences with it (analyses/patching.hpp).
std::int64_t other_number(std::int64_t word);

}  // namespace attnlab::data
