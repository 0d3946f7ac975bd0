// test_patching.cpp — activation patching on its definitions (patching nothing restores 0,
// everything 1, the last layer's residual stream at the last position exactly 1) and on a
// hand-built two-layer attention-only transformer whose route is known: layer 1 head 1 copies
// the subject (position 1) into every later position's subspace S1; layer 2 head 0 reads S1 at
// position 2 and writes it into S2 at the last position, which alone the unembedding reads.
// Layer 1 head 0 and layer 2 head 1 move tokens that are the same in both inputs.
#include <catch2/catch.hpp>

#include "analyses/patching.hpp"
#include "data/grammar.hpp"
#include "nn/transformer.hpp"
#include "tensor/ops.hpp"
#include "tests/support/hand_built.hpp"

using namespace attnlab;
using namespace attnlab::lab;
using attnlab::test::set;

namespace {

// Residual stream: token one-hot [0, 8), position [8, 16), S1 [16, 24), S2 [24, 32).
constexpr std::int64_t kV = 8, kT = 8, kS1 = 16, kS2 = 24, kD = 32, kDk = 16;
constexpr double kSharp = 12;  // q and k entries: scores of 12² / √16 = 36 make the softmax one-hot

// Head h of `layer` attends from every query to the key at position `key`, and its value copies
// the 8 dimensions from `from` into the 8 from `to`.
void mover(nn::Transformer& m, int layer, std::int64_t h, std::int64_t key, std::int64_t from, std::int64_t to) {
    const std::string b = "blocks." + std::to_string(layer) + ".attn.";
    for (std::int64_t i = 0; i < kT; ++i) set(m, b + "w_q.weight", h * kDk, kV + i, kSharp);
    set(m, b + "w_k.weight", h * kDk, kV + key, kSharp);
    for (std::int64_t t = 0; t < kV; ++t) {
        set(m, b + "w_v.weight", h * kDk + t, from + t, 1);
        set(m, b + "w_o.weight", to + t, h * kDk + t, 1);
    }
}

std::unique_ptr<nn::Transformer> subject_route() {
    nn::TransformerConfig c{.vocab_size = kV, .d_model = kD, .n_heads = 2, .n_layers = 2, .context = kT};
    c.attention_only = true;
    auto m = std::make_unique<nn::Transformer>(c, 1);
    attnlab::test::zero_weights(*m);
    for (std::int64_t t = 0; t < kV; ++t) set(*m, "tok_emb.weight", t, t, 1), set(*m, "head.weight", t, kS2 + t, 1);
    for (std::int64_t i = 0; i < kT; ++i) set(*m, "pos_emb.weight", i, kV + i, 1);
    attnlab::test::identity_norm(*m, "blocks.0.ln1", 2, kD);  // token + position
    attnlab::test::identity_norm(*m, "blocks.1.ln1", 4, kD);  // + the first token and the subject in S1
    mover(*m, 0, 0, 0, 0, kS1);    // L1 H1: the first token, the same in both inputs
    mover(*m, 0, 1, 1, 0, kS1);    // L1 H2: the subject
    mover(*m, 1, 0, 2, kS1, kS2);  // L2 H1: position 2's S1 (the subject) to the last position
    mover(*m, 1, 1, 3, 0, kS2);    // L2 H2: position 3's token, the same in both inputs
    return m;
}

// Clean subject 1, corrupted 2; the answer is the subject itself.
PatchPair subject_pair() { return {{7, 1, 5, 6, 4, 3, 0, 6}, {7, 2, 5, 6, 4, 3, 0, 6}, 1, 2}; }

std::unique_ptr<nn::Transformer> random_model() {
    return std::make_unique<nn::Transformer>(
        nn::TransformerConfig{.vocab_size = 11, .d_model = 16, .n_heads = 2, .n_layers = 3, .context = 8}, 5);
}

}  // namespace

TEST_CASE("patching: nothing restores 0, everything 1, the last layer's last position exactly 1", "[analyses][patching]") {
    auto m = random_model();
    const std::vector<PatchPair> pairs{{{1, 4, 5, 6, 7}, {1, 8, 5, 6, 7}, 9, 10}, {{1, 3, 5, 2, 7}, {1, 6, 5, 2, 7}, 10, 9}};
    const Tensor clean = from_vector<std::int64_t>({1, 4, 5, 6, 7, 1, 3, 5, 2, 7}, {2, 5}),
                 corrupted = from_vector<std::int64_t>({1, 8, 5, 6, 7, 1, 6, 5, 2, 7}, {2, 5});
    const std::vector<std::int64_t> answer{9, 10}, wrong{10, 9};
    const Activations source = capture(*m, clean);
    const double c = logit_differences(source.logits, answer, wrong)[0];
    const double k = logit_differences(capture(*m, corrupted).logits, answer, wrong)[0];
    REQUIRE(c != k);
    const auto restored = [&](const std::vector<Patch>& patches) {
        return fraction_restored(logit_differences(run_patched(*m, corrupted, source, patches), answer, wrong)[0], c, k);
    };
    CHECK(restored({}) == 0.0);
    std::vector<Patch> everything;
    for (std::int64_t l = 0; l < 3; ++l)
        for (std::int64_t t = 0; t < 5; ++t) {
            everything.push_back({Site::residual, l, t});
            for (std::int64_t h = 0; h < 2; ++h) everything.push_back({Site::head, l, t, h});
        }
    CHECK(restored(everything) == 1.0);
    CHECK(restored({{Site::residual, 2, 4}}) == 1.0);
    CHECK(restored({{Site::residual, 2, 3}}) == 0.0);  // the last block's earlier positions reach no logit of the last
    // The hooks are gone after each run: the model computes the corrupted logits again.
    CHECK(max(abs(m->forward(corrupted) - capture(*m, corrupted).logits)).item() == 0.0);
    for (const auto& b : m->blocks) CHECK((!b->output_hook && !b->attn.heads_hook));

    const PatchingResult r = activation_patching(*m, pairs);
    REQUIRE(r.residual.shape() == Shape{3, 5});
    REQUIRE(r.heads.shape() == Shape{3, 2});
    CHECK(r.residual.at({2, 4}) == 1.0);
    CHECK(r.clean[0] == c);
    CHECK(r.corrupted[0] == k);
}

TEST_CASE("patching finds the head that carries the subject to the last position", "[analyses][patching]") {
    auto m = subject_route();
    const PatchingResult r = activation_patching(*m, {subject_pair()});
    CHECK(r.clean_mean > 0.5);
    CHECK(r.corrupted_mean < -0.5);
    // Heads at the last position: only layer 2 head 1 moves the subject there.
    CHECK(r.heads.at({1, 0}) == Approx(1).margin(1e-4));
    for (auto [l, h] : {std::pair{0, 0}, {0, 1}, {1, 1}}) CHECK(r.heads.at({l, h}) == Approx(0).margin(1e-4));
    // The residual stream: after layer 1 the subject is needed at position 2 (where layer 2 reads it)
    // and nowhere else, not even at its own position; after layer 2, at the last position.
    for (std::int64_t t = 0; t < kT; ++t) {
        CAPTURE(t);
        CHECK(r.residual.at({0, t}) == Approx(t == 2 ? 1 : 0).margin(1e-4));
        CHECK(r.residual.at({1, t}) == Approx(t == kT - 1 ? 1 : 0).margin(1e-4));
    }
}

TEST_CASE("patching refuses what it cannot measure", "[analyses][patching]") {
    auto m = random_model();
    PatchPair p = subject_pair();
    p.corrupted.pop_back();
    CHECK_THROWS_WITH(activation_patching(*m, {p}), Catch::Contains("same length"));
    CHECK_THROWS_WITH(activation_patching(*m, {}), Catch::Contains("no pairs"));
    const PatchPair same{{1, 2, 3}, {1, 2, 3}, 4, 5};
    CHECK_THROWS_WITH(activation_patching(*m, {same}), Catch::Contains("same logit difference"));
    const PatchPair out{{1, 2, 3}, {1, 6, 3}, 4, 99};
    CHECK_THROWS_WITH(activation_patching(*m, {out}), Catch::Contains("vocabulary of 11"));
    const Tensor ids = from_vector<std::int64_t>({1, 2, 3}, {1, 3});
    CHECK_THROWS_WITH(run_patched(*m, ids, capture(*m, ids), {{Site::head, 0, 2, 7}}), Catch::Contains("head 7"));
}

TEST_CASE("agreement pairs flip the subject's number and read the verb's two forms", "[analyses][patching][grammar]") {
    const data::Vocab& v = data::toy_grammar().vocab();
    auto ids = [&](const std::string& text) {
        std::vector<std::int64_t> out;
        std::size_t s = 0;
        while (s < text.size()) {
            const std::size_t e = std::min(text.find(' ', s), text.size());
            out.push_back(v.id(text.substr(s, e - s)));
            s = e + 1;
        }
        return out;
    };
    const AgreementPair a = agreement_pair(ids("the cat on the mats sleeps because it was tired"));
    std::vector<std::int64_t> clean{data::Vocab::kBos}, corrupted{data::Vocab::kBos};
    for (std::int64_t w : ids("the cat on the mats")) clean.push_back(w);
    for (std::int64_t w : ids("the cats on the mats")) corrupted.push_back(w);
    CHECK(a.pair.clean == clean);
    CHECK(a.pair.corrupted == corrupted);
    CHECK(a.pair.answer == v.id("sleeps"));
    CHECK(a.pair.wrong == v.id("sleep"));
    CHECK(a.subject == 2);
    CHECK(a.distractor == 5);
    CHECK(agreement_pair(ids("my mice chase the dog")).distractor == -1);
    CHECK(agreement_pair(ids("my mice chase the dog")).pair.wrong == v.id("chases"));
    CHECK_THROWS_WITH(agreement_pair(ids("the cat sat on the mat")), Catch::Contains("'sat' does not agree"));
    CHECK_THROWS_WITH(agreement_pair(ids("this cat sleeps")), Catch::Contains("not a sentence of the grammar"));
    CHECK_THROWS_WITH(agreement_pair(ids("on the mat")), Catch::Contains("no subject"));
}

TEST_CASE("other_number pairs the words that agree and nothing else", "[data][grammar]") {
    const data::Vocab& v = data::toy_grammar().vocab();
    for (auto [one, many] : {std::pair{"cat", "cats"}, {"mouse", "mice"}, {"child", "children"}, {"sleeps", "sleep"},
                             {"watches", "watch"}, {"it", "they"}, {"was", "were"}}) {
        CHECK(data::other_number(v.id(one)) == v.id(many));
        CHECK(data::other_number(v.id(many)) == v.id(one));
    }
    for (const char* w : {"the", "sat", "didn't", "on", "big"}) CHECK(data::other_number(v.id(w)) == -1);
    CHECK(data::other_number(data::Vocab::kBos) == -1);
    CHECK(data::other_number(v.size()) == -1);
}
