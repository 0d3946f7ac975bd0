// head_roles.hpp — what each attention head does with the toy grammar's dependencies:
// per head, the mean attention weight a gold pair's query puts on its gold key
// (data/grammar.hpp: toy_gold_pairs), beside the weight uniform attention would give.
//
//   score(layer, head, relation) = mean over the pairs of W[layer][head][query][key]
//
// Sequences are <bos> words <eos> (how the models were trained), so word i sits at
// position i + 1. A pair's query is its `from` word and its key the `to` word (the seed's
// direction: "sat" -> "cat"); where the mask hides that key from that query (a causal
// model, a determiner before its noun) the pair is measured the other way round and its
// relation named so ("noun->determiner"). Also measured: previous-token attention
// (W[i][i−1] over every query after <bos>), the course's "sequential" head.
//
// Semantic heads (related nouns): data/grammar.hpp gives each noun a meaning (animal, person,
// household object, place). A noun query's related nouns are the other nouns of its class it
// may see (a causal model: the earlier ones), its other nouns those of another class; the
// same word again is neither (attending to a copy of oneself is not about meaning). Over the
// noun queries that see at least one of each:
//   "noun->related noun"  weight = mean attention mass on the related nouns,
//                         uniform = mean (related nouns) / (keys the query may see);
//   "noun->other noun"    the same for the nouns of other classes
// (`pairs` counts the noun queries).
// A semantic head puts more than twice uniform's mass on related nouns, and lifts them above
// uniform 1.5 times as much as the other nouns: it prefers related nouns, not nouns in general
// (a head on every noun alike lifts both the same).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "data/grammar.hpp"
#include "nn/transformer.hpp"

namespace attnlab::lab {

struct HeadRoleScore {
    std::string relation;  // "verb->subject", ..., "previous token"
    std::int64_t layer = 0, head = 0;  // from 0
    double weight = 0;    // mean attention on the gold key
    double uniform = 0;   // mean of 1 / (keys the query may see) over the same pairs
    std::int64_t pairs = 0;
};

// One sequence's attention (layers[l]: [H, T, T]) and the gold pairs of its words:
// sums per (relation, layer, head) are accumulated into `into` (weight and uniform summed,
// pairs counted); finish_head_roles turns the sums into means.
void accumulate_head_roles(const std::vector<Tensor>& layers, const std::vector<data::GoldPair>& gold, bool causal,
                           std::vector<HeadRoleScore>& into);
void finish_head_roles(std::vector<HeadRoleScore>& scores);

inline constexpr const char* kRelatedNoun = "noun->related noun";
inline constexpr const char* kOtherNoun = "noun->other noun";
// The two semantic rows of one sequence <bos> words <eos> (layers[l]: [H, T, T]), summed into
// `into` like accumulate_head_roles.
void accumulate_semantic_roles(const std::vector<Tensor>& layers, std::span<const std::int64_t> words, bool causal,
                               std::vector<HeadRoleScore>& into);
// Finished scores of one head: related weight / uniform > 2 and > 1.5 x other weight / uniform.
bool is_semantic_head(const HeadRoleScore& related, const HeadRoleScore& other);

// The model's attention on each sentence (<bos> words <eos>), every relation, every head.
std::vector<HeadRoleScore> measure_head_roles(nn::Transformer& model, const std::vector<std::vector<std::int64_t>>& sentences);

}  // namespace attnlab::lab
