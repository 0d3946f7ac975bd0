// test_head_roles.cpp — the toy grammar's gold pairs (data/grammar.hpp) and the per-head
// scores built on them (analyses/head_roles.hpp), on sentences and attention made by hand.
#include <catch2/catch.hpp>

#include "data/grammar.hpp"
#include "analyses/head_roles.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

namespace {
std::vector<std::int64_t> ids_of(std::initializer_list<const char*> words) {
    std::vector<std::int64_t> out;
    for (const char* w : words) out.push_back(data::toy_grammar().vocab().id(w));
    return out;
}
bool has(const std::vector<data::GoldPair>& g, data::Relation r, std::int64_t from, std::int64_t to) {
    for (const data::GoldPair& p : g)
        if (p.relation == r && p.from == from && p.to == to) return true;
    return false;
}
}  // namespace

TEST_CASE("gold pairs: agreement across a prepositional phrase, determiners, pronouns", "[lab][head_roles]") {
    using data::Relation;
    // 0 the 1 cats 2 near 3 the 4 dog 5 sleep 6 because 7 they 8 were 9 hungry
    const auto g = data::toy_gold_pairs(ids_of({"the", "cats", "near", "the", "dog", "sleep", "because", "they", "were", "hungry"}));
    CHECK(g.size() == 4);
    CHECK(has(g, Relation::determiner_noun, 0, 1));
    CHECK(has(g, Relation::determiner_noun, 3, 4));
    CHECK(has(g, Relation::subject_verb, 5, 1));  // the verb agrees with "cats", not with the nearer "dog"
    CHECK(has(g, Relation::pronoun_antecedent, 7, 1));
    // the course's toy sentence: "sat" -> "cat", "sat" -> "mat" (via "on"), each "the" -> its noun
    const auto toy = data::toy_gold_pairs(ids_of({"the", "cat", "sat", "on", "the", "mat"}));
    CHECK(toy.size() == 4);
    CHECK(has(toy, Relation::subject_verb, 2, 1));
    CHECK(has(toy, Relation::verb_object, 2, 5));
    CHECK(has(toy, Relation::determiner_noun, 4, 5));
    CHECK(std::string(data::relation_name(Relation::subject_verb)) == "verb->subject");
}

TEST_CASE("head role scores: a head on the gold key scores 1, a uniform head scores uniform", "[lab][head_roles]") {
    const std::vector<std::int64_t> words = ids_of({"the", "cat", "sat", "on", "the", "mat"});
    const std::int64_t T = 8;  // <bos> 6 words <eos>
    std::vector<double> v(2 * T * T, 0.0);  // head 0: every query on key 2 ("cat"); head 1: uniform
    for (std::int64_t q = 0; q < T; ++q) {
        v[static_cast<std::size_t>(q * T + 2)] = 1.0;
        for (std::int64_t k = 0; k < T; ++k) v[static_cast<std::size_t>((T + q) * T + k)] = 1.0 / T;
    }
    const Tensor w = from_vector(v, {2, T, T}, kFloat32);
    std::vector<lab::HeadRoleScore> s;
    lab::accumulate_head_roles({w}, data::toy_gold_pairs(words), false, s);
    lab::finish_head_roles(s);
    auto score = [&](const std::string& rel, std::int64_t h) {
        for (const auto& x : s)
            if (x.relation == rel && x.head == h) return x;
        FAIL("no score for " << rel);
        return lab::HeadRoleScore{};
    };
    CHECK(score("verb->subject", 0).weight == 1.0);  // "sat" (position 3) -> "cat" (position 2)
    CHECK(score("verb->subject", 0).pairs == 1);
    CHECK(score("verb->object", 0).weight == 0.0);
    CHECK(score("verb->subject", 1).weight == Approx(1.0 / T));
    CHECK(score("verb->subject", 1).uniform == Approx(1.0 / T));
    CHECK(score("determiner->noun", 1).pairs == 2);
    CHECK(score("previous token", 0).weight == Approx(1.0 / (T - 1)));  // only query 3 has key 2 before it

    std::vector<lab::HeadRoleScore> c;  // causal: a determiner cannot see its noun; read it from the noun
    lab::accumulate_head_roles({w}, data::toy_gold_pairs(words), true, c);
    lab::finish_head_roles(c);
    bool reversed = false;
    for (const auto& x : c) reversed = reversed || x.relation == "noun->determiner";
    CHECK(reversed);
    for (const auto& x : c) CHECK(x.relation != "determiner->noun");
}

TEST_CASE("noun classes: every noun of the toy language has one meaning, in both numbers", "[lab][head_roles][semantic]") {
    using data::NounClass;
    const data::Vocab& v = data::toy_grammar().vocab();
    CHECK(data::noun_class(v.id("cat")) == NounClass::animal);
    CHECK(data::noun_class(v.id("mice")) == data::noun_class(v.id("mouse")));
    CHECK(data::noun_class(v.id("rugs")) == NounClass::household_object);
    CHECK(data::noun_class(v.id("children")) == NounClass::person);
    CHECK(data::noun_class(v.id("street")) == NounClass::place);
    CHECK(data::noun_class(v.id("the")) == NounClass::none);
    CHECK(data::noun_class(v.id("sleeps")) == NounClass::none);
    CHECK(data::noun_class(-1) == NounClass::none);
    CHECK(data::noun_class(v.size()) == NounClass::none);
    std::int64_t nouns = 0;
    for (std::int64_t id = 0; id < v.size(); ++id) nouns += data::noun_class(id) != NounClass::none;
    CHECK(nouns == 32);  // 16 singular and 16 plural nouns
    CHECK(std::string(data::noun_class_name(NounClass::household_object)) == "household object");
}

TEST_CASE("semantic head score: attention mass from a noun on related nouns, beside uniform's", "[lab][head_roles][semantic]") {
    // 0 the 1 cat 2 near 3 the 4 mat 5 saw 6 the 7 dog: positions +1 after <bos>, T = 10
    const std::vector<std::int64_t> words = ids_of({"the", "cat", "near", "the", "mat", "saw", "the", "dog"});
    const std::int64_t T = 10;
    // head 0: every query puts all its weight on "cat" (key 2); head 1: uniform over the keys
    // it may see (bidirectional: all T; causal: the q + 1 up to itself)
    auto attention = [&](bool causal) {
        std::vector<double> v(2 * T * T, 0.0);
        for (std::int64_t q = 0; q < T; ++q) {
            v[static_cast<std::size_t>(q * T + 2)] = 1.0;
            for (std::int64_t k = 0; k <= (causal ? q : T - 1); ++k)
                v[static_cast<std::size_t>((T + q) * T + k)] = 1.0 / static_cast<double>(causal ? q + 1 : T);
        }
        return from_vector(v, {2, T, T}, kFloat32);
    };
    auto score = [](const std::vector<lab::HeadRoleScore>& s, const std::string& rel, std::int64_t h) {
        for (const auto& x : s)
            if (x.relation == rel && x.head == h) return x;
        FAIL("no score for " << rel << " head " << h);
        return lab::HeadRoleScore{};
    };
    SECTION("bidirectional: cat (related dog, other mat) and dog (related cat, other mat); mat has no related noun") {
        std::vector<lab::HeadRoleScore> s;
        lab::accumulate_semantic_roles({attention(false)}, words, false, s);
        lab::finish_head_roles(s);
        const lab::HeadRoleScore r0 = score(s, lab::kRelatedNoun, 0), o0 = score(s, lab::kOtherNoun, 0);
        CHECK(r0.pairs == 2);
        CHECK(r0.weight == Approx(0.5));   // dog -> cat: 1; cat -> dog: 0 (cat attends to itself)
        CHECK(r0.uniform == Approx(0.1));  // one related noun of 10 keys
        CHECK(o0.weight == 0.0);
        CHECK(lab::is_semantic_head(r0, o0));
        // a head on nouns of any meaning alike is not semantic: 3.8 times uniform on related nouns, 3.0 times on others
        CHECK_FALSE(lab::is_semantic_head({lab::kRelatedNoun, 0, 0, 0.38, 0.1, 5}, {lab::kOtherNoun, 0, 0, 0.30, 0.1, 5}));
        CHECK(lab::is_semantic_head({lab::kRelatedNoun, 0, 0, 0.38, 0.1, 5}, {lab::kOtherNoun, 0, 0, 0.20, 0.1, 5}));
        const lab::HeadRoleScore r1 = score(s, lab::kRelatedNoun, 1), o1 = score(s, lab::kOtherNoun, 1);
        CHECK(r1.weight == Approx(r1.uniform));  // uniform attention scores exactly chance
        CHECK_FALSE(lab::is_semantic_head(r1, o1));
    }
    SECTION("causal: only dog sees both a related (cat) and an other (mat) noun before it") {
        std::vector<lab::HeadRoleScore> s;
        lab::accumulate_semantic_roles({attention(true)}, words, true, s);
        lab::finish_head_roles(s);
        CHECK(score(s, lab::kRelatedNoun, 0).pairs == 1);
        CHECK(score(s, lab::kRelatedNoun, 0).weight == 1.0);
        CHECK(score(s, lab::kRelatedNoun, 0).uniform == Approx(1.0 / 9));  // dog at position 8 sees 9 keys
        CHECK(score(s, lab::kRelatedNoun, 1).weight == Approx(1.0 / 9));
        CHECK(score(s, lab::kOtherNoun, 1).weight == Approx(1.0 / 9));
        CHECK_FALSE(lab::is_semantic_head(score(s, lab::kRelatedNoun, 1), score(s, lab::kOtherNoun, 1)));
    }
    SECTION("the same word again is not a related noun") {
        std::vector<lab::HeadRoleScore> s;
        lab::accumulate_semantic_roles({attention(true)}, ids_of({"the", "cat", "near", "the", "mat", "saw", "the", "cat"}), true, s);
        CHECK(s.empty());  // the second cat sees the first (the same word) and mat (another class): no related noun
    }
}
