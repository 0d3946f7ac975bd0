// test_head_roles.cpp — the toy grammar's gold pairs (data/grammar.hpp) and the per-head
// scores built on them (lab/head_roles.hpp), on sentences and attention made by hand.
#include <catch2/catch.hpp>

#include "data/grammar.hpp"
#include "lab/head_roles.hpp"
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
    // the seed's toy sentence: "sat" -> "cat", "sat" -> "mat" (via "on"), each "the" -> its noun
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
