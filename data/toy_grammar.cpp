// toy_grammar.cpp — the toy language of attnlab, written out rule by rule.
//
//   sentence    = subject-NP [PP] verb-phrase [because-clause] <eos>
//   NP          = determiner [adjective] [colour] noun
//   PP          = preposition NP
//   verb-phrase = intransitive-verb [PP | adverb]  |  transitive-verb NP
//               | "didn't" bare-verb (...the same continuations)
//   because     = "because" ("it was" | "they were") ["too" | "very"] adjective
//
//   the cat sat on the mat
//   the cats near the dog sleep because they were hungry
//   the animal didn't cross the street because it was too tired
//
// Three dependencies make it worth a transformer's attention:
//   * determiner → noun: "this"/"every" take a singular noun, "these"/"two" a plural
//     one, "the" either — remembered across the adjectives;
//   * subject → present-tense verb: "the cat on the mats sleeps", "the cats near the
//     dog sleep". The nearest noun is a distractor: the verb agrees with the subject,
//     which may be six words back;
//   * subject → pronoun: "... because it was" / "because they were" refers to the
//     subject (the course's "the animal didn't cross the street because it was too
//     tired"), past the object and any prepositional phrases, up to 14 words back.
// Past-tense verbs (sat, saw, ...) and "didn't" do not agree, as in English, so the
// subject's number must be carried across them to reach the pronoun.
//
// The automaton stays deterministic because each state remembers exactly what the
// rest of the sentence depends on: where we are in the sentence, the subject's number
// once it is known, and inside a noun phrase which number the determiner allows and
// which adjectives came. That is 87 states.
//
// The vocabulary was chosen to cover the course's English example sentences ("animal",
// "street", "didn't", "cross", "because", "it", "was", "too", "tired", "comfortable",
// "quick", "brown", "fox", "jumps", "high" are here for them), so all of them are in
// data/toy_sequences.txt, and a test checks the grammar can emit each one. Left out:
// the French "le chat s'est assis sur le tapis", and fragments under four words
// ("the cat sat", which the grammar does emit).
#include "data/grammar.hpp"

#include <algorithm>
#include <array>

namespace attnlab::data {
namespace {

using State = GrammarBuilder::State;

enum Number { kSingular, kPlural };
constexpr std::array<Number, 2> kNumbers{kSingular, kPlural};
const char* number_name(Number n) { return n == kSingular ? "singular" : "plural"; }

// ---- the words -----------------------------------------------------------------------
// The bare form of a verb doubles as its plural present ("they sleep", "didn't sleep"),
// so one class serves both moves. A word belongs to one class only.

const WordClass kThe{"'the'", {"the"}};
const WordClass kPossessive{"possessive", {"my", "his", "her"}};
const WordClass kSingularDet{"singular determiner", {"this", "that", "every"}};
const WordClass kPluralDet{"plural determiner", {"these", "those", "some", "two"}};

const std::array<WordClass, 2> kNoun{
    WordClass{"singular noun", {"cat", "dog", "mat", "animal", "street", "fox", "kitten", "bird", "rug", "chair",
                                "tree", "garden", "box", "house", "mouse", "child"}},
    WordClass{"plural noun", {"cats", "dogs", "mats", "animals", "streets", "foxes", "kittens", "birds", "rugs",
                              "chairs", "trees", "gardens", "boxes", "houses", "mice", "children"}}};

// What each noun means (data/grammar.hpp: noun_class), both numbers of a noun together. The
// rules never read this table. A tree counts as a place: the grammar uses it as one ("under
// the tree", "near the tree"). noun_class checks that every noun above is in exactly one class.
struct NounMeaning {
    NounClass meaning;
    std::vector<std::string> words;
};
const std::array<NounMeaning, 4> kNounMeanings{
    NounMeaning{NounClass::animal, {"cat", "cats", "dog", "dogs", "animal", "animals", "fox", "foxes", "kitten", "kittens",
                                    "bird", "birds", "mouse", "mice"}},
    NounMeaning{NounClass::person, {"child", "children"}},
    NounMeaning{NounClass::household_object, {"mat", "mats", "rug", "rugs", "chair", "chairs", "box", "boxes"}},
    NounMeaning{NounClass::place, {"street", "streets", "garden", "gardens", "house", "houses", "tree", "trees"}}};

// Adjectives come in English order, a quality before a colour ("the quick brown fox",
// never "the brown quick fox"), which also keeps one from repeating.
const WordClass kQuality{"adjective", {"big", "small", "quick", "lazy", "old", "happy", "hungry", "tired", "sleepy",
                                       "comfortable", "furry"}};
const WordClass kColour{"colour", {"brown", "red", "black", "white"}};
const WordClass kPreposition{"preposition", {"on", "under", "near", "in", "behind", "beside"}};

const WordClass kIntransitivePast{"past intransitive verb", {"sat", "slept", "ran", "jumped", "waited"}};
const std::array<WordClass, 2> kIntransitivePresent{
    WordClass{"singular intransitive verb", {"sits", "sleeps", "runs", "jumps", "waits"}},
    WordClass{"plural or bare intransitive verb", {"sit", "sleep", "run", "jump", "wait"}}};
const WordClass kTransitivePast{"past transitive verb", {"saw", "chased", "liked", "crossed", "watched"}};
const std::array<WordClass, 2> kTransitivePresent{
    WordClass{"singular transitive verb", {"sees", "chases", "likes", "crosses", "watches"}},
    WordClass{"plural or bare transitive verb", {"see", "chase", "like", "cross", "watch"}}};
const WordClass kDidnt{"'didn't'", {"didn't"}};
const WordClass kAdverb{"adverb", {"high", "quickly", "again"}};

const WordClass kBecause{"'because'", {"because"}};
const std::array<WordClass, 2> kPronoun{WordClass{"'it'", {"it"}}, WordClass{"'they'", {"they"}}};
const std::array<WordClass, 2> kCopula{WordClass{"'was'", {"was"}}, WordClass{"'were'", {"were"}}};
const WordClass kIntensifier{"intensifier", {"too", "very"}};

// ---- the rules ----------------------------------------------------------------------

// A noun phrase from `from`: determiner [quality] [colour] noun; then `after[number of
// the noun]`. Nine states: which nouns the determiner allows × how far into the
// adjectives we are (none yet, after a quality, after a colour).
void noun_phrase(GrammarBuilder& g, const std::string& role, State from, std::array<State, 2> after) {
    enum Allows { kEither, kOnlySingular, kOnlyPlural };
    const char* allows_name[] = {"either number", "singular only", "plural only"};
    const char* stage_name[] = {"", ", after a quality", ", after a colour"};
    State det[3][3];
    for (int a = 0; a < 3; ++a)
        for (int k = 0; k < 3; ++k)
            det[a][k] = g.state(role + ": after a determiner (" + allows_name[a] + ")" + stage_name[k]);

    g.emit(from, 0.55, kThe, det[kEither][0]);
    g.emit(from, 0.15, kPossessive, det[kEither][0]);
    g.emit(from, 0.15, kSingularDet, det[kOnlySingular][0]);
    g.emit(from, 0.15, kPluralDet, det[kOnlyPlural][0]);
    for (int a = 0; a < 3; ++a)
        for (int k = 0; k < 3; ++k) {
            if (k == 0) g.emit(det[a][k], 0.2, kQuality, det[a][1]);
            if (k < 2) g.emit(det[a][k], 0.1 * (k + 1), kColour, det[a][2]);
            const double noun = k == 0 ? 0.7 : k == 1 ? 0.8 : 1.0;
            if (a == kEither) {
                g.emit(det[a][k], noun / 2, kNoun[kSingular], after[kSingular]);
                g.emit(det[a][k], noun / 2, kNoun[kPlural], after[kPlural]);
            } else {
                const Number n = a == kOnlySingular ? kSingular : kPlural;
                g.emit(det[a][k], noun, kNoun[n], after[n]);
            }
        }
}

// A noun phrase whose own number does not matter afterwards (objects, inside a PP).
void noun_phrase(GrammarBuilder& g, const std::string& role, State from, State after) {
    noun_phrase(g, role, from, {after, after});
}

Grammar build_toy_grammar() {
    // Rules are written in reading order, which is also the order of the vocabulary
    // (a word's id is set by the first rule that can emit it).
    GrammarBuilder g;
    const State start = g.state("sentence start");
    std::array<State, 2> subject{}, subject_with_pp{};
    for (Number n : kNumbers) {
        subject[n] = g.state(std::string("after the subject noun (") + number_name(n) + " subject)");
        subject_with_pp[n] = g.state(std::string("after the subject's prepositional phrase (") + number_name(n) + " subject)");
    }
    noun_phrase(g, "subject", start, subject);

    // After "was"/"were" nothing depends on the subject any more: these states are shared.
    const State copula = g.state("after 'was'/'were'");
    const State intensified = g.state("after 'too'/'very'");
    const State complete = g.state("after the predicate adjective");

    for (Number n : kNumbers) {
        const std::string num = std::string("(") + number_name(n) + " subject)";
        const State subject_pp = g.state("after the subject's preposition " + num);
        const State didnt = g.state("after 'didn't' " + num);
        const State after_intransitive = g.state("after an intransitive verb " + num);
        const State after_transitive = g.state("after a transitive verb " + num);
        const State verb_pp = g.state("after the verb's preposition " + num);
        const State verb_phrase_done = g.state("after the verb phrase " + num);
        const State because = g.state("after 'because' " + num);
        const State pronoun = g.state("after the pronoun " + num);

        // The subject may carry a prepositional phrase, whose noun (of either number)
        // then sits between the subject and its verb.
        g.emit(subject[n], 0.3, kPreposition, subject_pp);
        noun_phrase(g, "subject's PP " + num, subject_pp, subject_with_pp[n]);

        for (State from : {subject[n], subject_with_pp[n]}) {
            const double w = from == subject[n] ? 0.7 : 1.0;  // what is left after the PP move
            g.emit(from, w * 0.25, kIntransitivePresent[n], after_intransitive);
            g.emit(from, w * 0.20, kIntransitivePast, after_intransitive);
            g.emit(from, w * 0.25, kTransitivePresent[n], after_transitive);
            g.emit(from, w * 0.20, kTransitivePast, after_transitive);
            g.emit(from, w * 0.10, kDidnt, didnt);
        }
        g.emit(didnt, 0.5, kIntransitivePresent[kPlural], after_intransitive);  // the bare form
        g.emit(didnt, 0.5, kTransitivePresent[kPlural], after_transitive);

        // Where the sentence may stop, it may instead go on with "because ...".
        auto may_end = [&](State from, double w) {
            g.end(from, w * 0.7);
            g.emit(from, w * 0.3, kBecause, because);
        };
        g.emit(after_intransitive, 0.40, kPreposition, verb_pp);
        g.emit(after_intransitive, 0.15, kAdverb, verb_phrase_done);
        may_end(after_intransitive, 0.45);
        noun_phrase(g, "verb's PP " + num, verb_pp, verb_phrase_done);
        noun_phrase(g, "object " + num, after_transitive, verb_phrase_done);
        may_end(verb_phrase_done, 1.0);

        g.emit(because, 1.0, kPronoun[n], pronoun);
        g.emit(pronoun, 1.0, kCopula[n], copula);
    }
    g.emit(copula, 0.4, kIntensifier, intensified);
    g.emit(copula, 0.6, kQuality, complete);
    g.emit(intensified, 1.0, kQuality, complete);
    g.end(complete, 1.0);
    return g.build(start);
}

bool in(const WordClass& c, const std::string& w) { return std::find(c.words.begin(), c.words.end(), w) != c.words.end(); }
bool in_any(std::initializer_list<const WordClass*> classes, const std::string& w) {
    return std::any_of(classes.begin(), classes.end(), [&](const WordClass* c) { return in(*c, w); });
}

}  // namespace

const char* relation_name(Relation r) {
    switch (r) {
        case Relation::determiner_noun: return "determiner->noun";
        case Relation::subject_verb: return "verb->subject";
        case Relation::verb_object: return "verb->object";
        case Relation::pronoun_antecedent: return "pronoun->antecedent";
    }
    return "?";
}

std::vector<GoldPair> toy_gold_pairs(std::span<const std::int64_t> words) {
    const Vocab& v = toy_grammar().vocab();
    std::vector<GoldPair> pairs;
    std::int64_t determiner = -1, subject = -1, verb = -1;
    bool object_found = false;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(words.size()); ++i) {
        if (words[i] < 0 || words[i] >= v.size()) continue;
        const std::string& w = v.word(words[i]);
        if (in_any({&kThe, &kPossessive, &kSingularDet, &kPluralDet}, w)) {
            determiner = i;
        } else if (in_any({&kNoun[0], &kNoun[1]}, w)) {
            if (determiner >= 0) pairs.push_back({Relation::determiner_noun, determiner, i});
            determiner = -1;
            if (subject < 0) subject = i;
            else if (verb >= 0 && !object_found) pairs.push_back({Relation::verb_object, verb, i}), object_found = true;
        } else if (verb < 0 && subject >= 0 &&
                   in_any({&kIntransitivePast, &kIntransitivePresent[0], &kIntransitivePresent[1], &kTransitivePast,
                           &kTransitivePresent[0], &kTransitivePresent[1], &kDidnt}, w)) {
            verb = i;
            pairs.push_back({Relation::subject_verb, i, subject});
        } else if (subject >= 0 && in_any({&kPronoun[0], &kPronoun[1]}, w)) {
            pairs.push_back({Relation::pronoun_antecedent, i, subject});
        }
    }
    return pairs;
}

const char* noun_class_name(NounClass c) {
    switch (c) {
        case NounClass::none: return "none";
        case NounClass::animal: return "animal";
        case NounClass::person: return "person";
        case NounClass::household_object: return "household object";
        case NounClass::place: return "place";
    }
    return "?";
}

NounClass noun_class(std::int64_t word) {
    static const std::vector<NounClass> table = [] {  // [token id]
        const Vocab& v = toy_grammar().vocab();
        std::vector<NounClass> t(static_cast<std::size_t>(v.size()), NounClass::none);
        for (const NounMeaning& m : kNounMeanings)
            for (const std::string& w : m.words) {
                NounClass& slot = t[static_cast<std::size_t>(v.id(w))];
                if (slot != NounClass::none || !in_any({&kNoun[0], &kNoun[1]}, w))
                    throw ValueError("noun_class: '" + w + "' is not a noun or is in two classes (data/toy_grammar.cpp)");
                slot = m.meaning;
            }
        for (const WordClass& nouns : kNoun)
            for (const std::string& w : nouns.words)
                if (t[static_cast<std::size_t>(v.id(w))] == NounClass::none)
                    throw ValueError("noun_class: the noun '" + w + "' has no class (data/toy_grammar.cpp)");
        return t;
    }();
    return word >= 0 && word < static_cast<std::int64_t>(table.size()) ? table[static_cast<std::size_t>(word)] : NounClass::none;
}

std::int64_t other_number(std::int64_t word) {
    static const std::vector<std::int64_t> table = [] {  // [token id]
        const Vocab& v = toy_grammar().vocab();
        std::vector<std::int64_t> t(static_cast<std::size_t>(v.size()), -1);
        // Each pair of classes lists its words in the same order: "cat" and "cats" share an index.
        for (const auto* pair : {&kNoun, &kIntransitivePresent, &kTransitivePresent, &kPronoun, &kCopula})
            for (std::size_t i = 0; i < (*pair)[0].words.size(); ++i) {
                const std::int64_t one = v.id((*pair)[0].words[i]), many = v.id((*pair)[1].words.at(i));
                t[static_cast<std::size_t>(one)] = many, t[static_cast<std::size_t>(many)] = one;
            }
        return t;
    }();
    return word >= 0 && word < static_cast<std::int64_t>(table.size()) ? table[static_cast<std::size_t>(word)] : -1;
}

const Grammar& toy_grammar() {
    static const Grammar grammar = build_toy_grammar();  // thread-safe one-time initialisation
    return grammar;
}

}  // namespace attnlab::data
