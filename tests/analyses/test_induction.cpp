// test_induction.cpp — the previous-token and induction scores on a hand-built two-layer
// attention-only transformer whose circuit is known: layer 1 head 0 attends to i − 1 and
// copies that token into a subspace of its own; layer 2 head 0 matches the current token
// against that subspace, so it attends to the position after the token's previous occurrence.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "analyses/induction.hpp"
#include "nn/transformer.hpp"
#include "tensor/ops.hpp"
#include "tests/support/hand_built.hpp"

using namespace attnlab;
using namespace attnlab::lab;
using attnlab::test::identity_norm;
using attnlab::test::set;

namespace {

constexpr std::int64_t kV = 8, kT = 8;  // residual stream: token one-hot [0, 8), position [8, 16), previous token [16, 24)
constexpr double kSharp = 12;           // q and k entries: scores of 12² / √12 ≈ 42 make the softmax one-hot

std::unique_ptr<nn::Transformer> induction_circuit() {
    nn::TransformerConfig c{.vocab_size = kV, .d_model = 3 * kV, .n_heads = 2, .n_layers = 2, .context = kT};
    c.attention_only = true;
    auto m = std::make_unique<nn::Transformer>(c, 1);
    attnlab::test::zero_weights(*m);
    for (std::int64_t t = 0; t < kV; ++t) set(*m, "tok_emb.weight", t, t, 1);
    for (std::int64_t i = 0; i < kT; ++i) set(*m, "pos_emb.weight", i, kV + i, 1);
    identity_norm(*m, "blocks.0.ln1", 2, 3 * kV);  // token + position
    identity_norm(*m, "blocks.1.ln1", 3, 3 * kV);  // + the previous token
    // Layer 1, head 0 (q/k/v columns 0..11): query i's position meets key j's position + 1.
    for (std::int64_t i = 0; i < kT; ++i) set(*m, "blocks.0.attn.w_q.weight", i, kV + i, kSharp);
    for (std::int64_t j = 0; j + 1 < kT; ++j) set(*m, "blocks.0.attn.w_k.weight", j + 1, kV + j, kSharp);
    for (std::int64_t t = 0; t < kV; ++t) {
        set(*m, "blocks.0.attn.w_v.weight", t, t, 1);       // copies the token it reads ...
        set(*m, "blocks.0.attn.w_o.weight", 2 * kV + t, t, 1);  // ... into the previous-token subspace
        // Layer 2, head 0: query = the current token, key = the previous token written above.
        set(*m, "blocks.1.attn.w_q.weight", t, t, kSharp);
        set(*m, "blocks.1.attn.w_k.weight", t, 2 * kV + t, kSharp);
    }
    return m;
}

std::vector<Tensor> layer_weights(nn::Transformer& m, const Tensor& ids) {
    m.trace().enabled = true;
    m.trace().clear();
    m.forward(ids);
    return m.trace().layers;
}

}  // namespace

TEST_CASE("a hand-built induction circuit scores 1 on both measures, in the right heads", "[analyses][induction]") {
    auto m = induction_circuit();
    // 7 opens the row and never comes back, so only the repeat 1 2 3 4 | 1 2 3 has an earlier occurrence.
    const Tensor ids = from_vector<std::int64_t>({7, 1, 2, 3, 4, 1, 2, 3}, {1, kT});
    const std::vector<Tensor> w = layer_weights(*m, ids);
    REQUIRE(w.size() == 2);
    const std::vector<double> prev1 = previous_token_scores(w[0]), ind2 = induction_scores(w[1], ids);
    CHECK(prev1[0] == Approx(1).margin(1e-4));                  // L1 H0: the previous-token head
    CHECK(prev1[1] == Approx(uniform_causal_score(kT)).margin(1e-4));  // L1 H1: all zero, uniform
    CHECK(ind2[0] == Approx(1).margin(1e-4));                   // L2 H0: the induction head
    CHECK(ind2[1] == Approx((1.0 / 6 + 1.0 / 7 + 1.0 / 8) / 3).margin(1e-4));  // L2 H1: all zero, uniform
    // The previous-token head itself looks at i − 1, not at the copied token's successor.
    CHECK(induction_scores(w[0], ids)[0] == Approx(0).margin(1e-4));

    SECTION("switching the previous-token head off undoes the induction head") {
        m->blocks[0]->attn.set_head_mask({false, true});
        const std::vector<Tensor> off = layer_weights(*m, ids);
        // Nothing in the previous-token subspace: layer 2 head 0 sees equal scores, uniform over 6, 7, 8 keys.
        CHECK(induction_scores(off[1], ids)[0] == Approx((1.0 / 6 + 1.0 / 7 + 1.0 / 8) / 3).margin(1e-4));
    }
}

TEST_CASE("induction scores: only the chosen queries with an earlier occurrence count", "[analyses][induction]") {
    // One head, T 4, ids 5 6 5 6: queries 2 (5 at 0 -> key 1) and 3 (6 at 1 -> key 2).
    const Tensor early = from_vector<std::int64_t>({0, 1, 0, 0}, {1, 4});  // query 1
    Tensor w = zeros({1, 1, 4, 4});
    fill_(w.narrow(2, 2, 1).narrow(3, 1, 1), 1.0);     // query 2 -> key 1: right
    fill_(w.narrow(2, 3, 1).narrow(3, 0, 1), 1.0);     // query 3 -> key 0: wrong
    fill_(w.narrow(2, 0, 1).narrow(3, 0, 1), 1.0);
    fill_(w.narrow(2, 1, 1).narrow(3, 1, 1), 1.0);
    const Tensor ids = from_vector<std::int64_t>({5, 6, 5, 6}, {1, 4});
    CHECK(induction_scores(w, ids)[0] == Approx(0.5));
    CHECK(induction_scores(w, ids, from_vector<std::int64_t>({0, 0, 1, 0}, {1, 4}))[0] == Approx(1));
    INFO("mask " << to_string(early) << " ids " << to_string(ids));
    const std::vector<double> none = induction_scores(w, ids, early);
    CHECK(none[0] == 0);  // query 1: no earlier 6, none qualifies
    CHECK(previous_token_scores(w)[0] == Approx(1.0 / 3));  // only query 2 looks at i − 1
    CHECK(uniform_causal_score(3) == Approx((0.5 + 1.0 / 3) / 2));
    CHECK_THROWS_WITH(induction_scores(w, from_vector<std::int64_t>({5, 6, 5}, {1, 3})), Catch::Contains("induction_scores: ids"));
    CHECK_THROWS_WITH(previous_token_scores(zeros({1, 4, 4})), Catch::Contains("[B, H, T, T]"));
}

TEST_CASE("head_scores: every head of the hand-built circuit, from one traced forward pass", "[analyses][induction]") {
    auto m = induction_circuit();
    const Tensor ids = from_vector<std::int64_t>({7, 1, 2, 3, 4, 1, 2, 3}, {1, kT});
    const HeadScores s = head_scores(*m, ids);
    REQUIRE(s.previous.size() == 2);
    REQUIRE(s.previous[0].size() == 2);
    CHECK(s.previous[0][0] == Approx(1).margin(1e-4));
    CHECK(s.induction[1][0] == Approx(1).margin(1e-4));
    CHECK(s.induction[1][1] == Approx((1.0 / 6 + 1.0 / 7 + 1.0 / 8) / 3).margin(1e-4));
    CHECK_FALSE(m->trace().enabled);  // left as it was found
}

TEST_CASE("repeated random rows: a prefix, n tokens of the range, the same n again", "[analyses][induction]") {
    Generator gen(3);
    const RepeatedRows r = repeated_random_rows(5, 6, 4, 10, {1}, gen);
    REQUIRE(r.ids.shape() == Shape{5, 13});
    const std::vector<std::int64_t> ids = r.ids.to_vector<std::int64_t>(), rep = r.repeat.to_vector<std::int64_t>();
    std::set<std::int64_t> seen;
    for (std::int64_t b = 0; b < 5; ++b) {
        CHECK(ids[static_cast<std::size_t>(b * 13)] == 1);
        for (std::int64_t i = 1; i <= 6; ++i) {
            const std::int64_t x = ids[static_cast<std::size_t>(b * 13 + i)];
            CHECK((x >= 4 && x < 10));
            CHECK(ids[static_cast<std::size_t>(b * 13 + i + 6)] == x);
            CHECK(rep[static_cast<std::size_t>(b * 13 + i)] == 0);
            CHECK(rep[static_cast<std::size_t>(b * 13 + i + 6)] == 1);
            seen.insert(x);
        }
    }
    CHECK(seen.size() == 6);  // 30 draws from 6 ids reach every one
    CHECK_THROWS_WITH(repeated_random_rows(1, 3, 5, 5, {}, gen), Catch::Contains("repeated_random_rows"));
}
