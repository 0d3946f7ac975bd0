// test_phase1_permutation.cpp — phase 1's permutation-equivariance section
// (phases/phase1_permutation.hpp): without pos_emb a bidirectional model's output
// shuffles with its input up to float rounding; with pos_emb it does not.
#include <catch2/catch.hpp>
#include <algorithm>

#include "data/grammar.hpp"
#include "phases/phase1_permutation.hpp"

using namespace attnlab;

namespace {
nn::TransformerConfig encoder() {
    nn::TransformerConfig c;
    c.vocab_size = data::toy_grammar().vocab().size();
    c.d_model = 16, c.n_heads = 1, c.n_layers = 2, c.context = 12, c.causal = false;
    return c;
}
}  // namespace

TEST_CASE("random_permutation is a seeded permutation, never the identity", "[phases][phase1][permutation]") {
    for (std::uint64_t seed : {0u, 1u, 7u}) {
        std::vector<std::int64_t> p = phase1::random_permutation(6, seed);
        CHECK(p == phase1::random_permutation(6, seed));
        CHECK_FALSE(std::is_sorted(p.begin(), p.end()));
        std::sort(p.begin(), p.end());
        CHECK(p == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5});
    }
    CHECK(phase1::random_permutation(2, 0) == std::vector<std::int64_t>{1, 0});  // the only non-identity one
}

TEST_CASE("without positions f(PX) = P f(X) to float rounding; with positions it is not", "[phases][phase1][permutation]") {
    const auto& v = data::toy_grammar().vocab();
    std::vector<std::int64_t> ids;
    for (const char* w : {"the", "cat", "sat", "on", "the", "mat", "because", "it"}) ids.push_back(v.id(w));
    for (std::uint64_t seed : {0u, 1u, 2u}) {
        nn::Transformer model(encoder(), seed);
        model.eval();
        const std::vector<std::int64_t> perm = phase1::random_permutation(8, seed);
        const phase1::PermutationCheck none = phase1::check_permutation(model, ids, perm, false);
        const phase1::PermutationCheck pos = phase1::check_permutation(model, ids, perm, true);
        INFO("seed " << seed);
        CHECK(none.max_diff_logits < 1e-5);  // a few float32 ulps of logits of order 1
        CHECK(none.max_diff_weights < 1e-6);
        CHECK(pos.max_diff_logits > 1e-2);   // positions break the symmetry: not rounding
        CHECK(pos.max_diff_weights > 1e-3);
    }
}

TEST_CASE("a causal model is not permutation equivariant even without positions", "[phases][phase1][permutation]") {
    nn::TransformerConfig c = encoder();
    c.causal = true;  // the mask itself knows the order
    nn::Transformer model(c, 3);
    model.eval();
    const auto& v = data::toy_grammar().vocab();
    const std::vector<std::int64_t> ids{v.id("the"), v.id("cat"), v.id("sat"), v.id("on")};
    CHECK(phase1::check_permutation(model, ids, {3, 2, 1, 0}, false).max_diff_logits > 1e-2);
}
