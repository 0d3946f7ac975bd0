// head_roles.cpp — see head_roles.hpp.
#include "analyses/head_roles.hpp"

#include <algorithm>

#include "analyses/attention_weights.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {
namespace {

HeadRoleScore& slot(std::vector<HeadRoleScore>& v, const std::string& relation, std::int64_t l, std::int64_t h) {
    for (HeadRoleScore& s : v)
        if (s.relation == relation && s.layer == l && s.head == h) return s;
    return v.emplace_back(HeadRoleScore{relation, l, h, 0, 0, 0});
}

// "determiner->noun" read the other way: "noun->determiner"
std::string reversed(const std::string& name) {
    const auto arrow = name.find("->");
    return name.substr(arrow + 2) + "->" + name.substr(0, arrow);
}

}  // namespace

void accumulate_head_roles(const std::vector<Tensor>& layers, const std::vector<data::GoldPair>& gold, bool causal,
                           std::vector<HeadRoleScore>& into) {
    for (std::int64_t l = 0; l < static_cast<std::int64_t>(layers.size()); ++l) {
        const Tensor& w = layers[static_cast<std::size_t>(l)];  // [H, T, T]
        const std::int64_t H = w.size(0), T = w.size(1);
        const std::vector<float> values = w.contiguous().to_vector<float>();
        auto at = [&](std::int64_t h, std::int64_t q, std::int64_t k) { return values[static_cast<std::size_t>((h * T + q) * T + k)]; };
        auto uniform = [&](std::int64_t q) { return 1.0 / static_cast<double>(causal ? q + 1 : T); };
        for (std::int64_t h = 0; h < H; ++h) {
            for (const data::GoldPair& g : gold) {
                std::int64_t q = g.from + 1, k = g.to + 1;  // +1: <bos> comes first
                std::string name = data::relation_name(g.relation);
                if (causal && k > q) std::swap(q, k), name = reversed(name);
                if (q >= T || k >= T) continue;
                HeadRoleScore& s = slot(into, name, l, h);
                s.weight += at(h, q, k), s.uniform += uniform(q), ++s.pairs;
            }
            HeadRoleScore& s = slot(into, "previous token", l, h);
            for (std::int64_t q = 1; q < T; ++q) s.weight += at(h, q, q - 1), s.uniform += uniform(q), ++s.pairs;
        }
    }
}

void accumulate_semantic_roles(const std::vector<Tensor>& layers, std::span<const std::int64_t> words, bool causal,
                               std::vector<HeadRoleScore>& into) {
    const std::int64_t n = static_cast<std::int64_t>(words.size());
    for (std::int64_t i = 0; i < n; ++i) {
        const data::NounClass meaning = data::noun_class(words[i]);
        if (meaning == data::NounClass::none) continue;
        std::vector<std::int64_t> related, other;  // word positions
        for (std::int64_t j = 0; j < (causal ? i : n); ++j) {
            const data::NounClass m = data::noun_class(words[j]);
            if (j == i || words[j] == words[i] || m == data::NounClass::none) continue;
            (m == meaning ? related : other).push_back(j);
        }
        if (related.empty() || other.empty()) continue;
        const std::int64_t q = i + 1;  // +1: <bos> comes first
        for (std::int64_t l = 0; l < static_cast<std::int64_t>(layers.size()); ++l) {
            const Tensor& w = layers[static_cast<std::size_t>(l)];  // [H, T, T]
            const std::int64_t H = w.size(0), T = w.size(1);
            if (n >= T) continue;  // the words are not all there
            const double keys = static_cast<double>(causal ? q + 1 : T);
            const Tensor row = w.select(1, q).contiguous();  // [H, T]: the noun's weights on every key
            for (std::int64_t h = 0; h < H; ++h)
                for (const auto& [name, nouns] : {std::pair{kRelatedNoun, &related}, std::pair{kOtherNoun, &other}}) {
                    HeadRoleScore& s = slot(into, name, l, h);
                    for (std::int64_t j : *nouns) s.weight += row.at({h, j + 1});
                    s.uniform += static_cast<double>(nouns->size()) / keys, ++s.pairs;
                }
        }
    }
}

bool is_semantic_head(const HeadRoleScore& related, const HeadRoleScore& other) {
    if (related.pairs == 0 || other.pairs == 0) return false;
    const double lift = related.weight / related.uniform;
    return lift > 2 && lift > 1.5 * (other.weight / other.uniform);
}

void finish_head_roles(std::vector<HeadRoleScore>& scores) {
    for (HeadRoleScore& s : scores)
        if (s.pairs > 0) s.weight /= static_cast<double>(s.pairs), s.uniform /= static_cast<double>(s.pairs);
}

std::vector<HeadRoleScore> measure_head_roles(nn::Transformer& model, const std::vector<std::vector<std::int64_t>>& sentences) {
    std::vector<HeadRoleScore> scores;
    for (const auto& words : sentences) {
        std::vector<std::int64_t> ids{data::Vocab::kBos};
        ids.insert(ids.end(), words.begin(), words.end());
        ids.push_back(data::Vocab::kEos);
        const std::vector<Tensor> layers = attention_weights(model, ids);
        accumulate_head_roles(layers, data::toy_gold_pairs(words), model.config().causal, scores);
        accumulate_semantic_roles(layers, words, model.config().causal, scores);
    }
    finish_head_roles(scores);
    return scores;
}

}  // namespace attnlab::lab
