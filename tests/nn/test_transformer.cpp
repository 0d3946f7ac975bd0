// test_transformer.cpp — the toy transformer: names, shapes, gradients, causality, KV cache.
#include <catch2/catch.hpp>
#include <cmath>

#include "nn/transformer.hpp"
#include "tensor/ops.hpp"
#include "tests/support/gradcheck_helpers.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::bit_identical;
using attnlab::testing::IsCloseTo;

static TransformerConfig small_config(bool causal) {
    TransformerConfig c;
    c.vocab_size = 11, c.d_model = 16, c.n_heads = 4, c.n_layers = 2, c.context = 12, c.causal = causal;
    return c;
}

TEST_CASE("parameter names follow the checkpoint layout", "[nn][transformer]") {
    Transformer m(small_config(true));
    std::vector<std::string> names;
    for (auto& p : m.named_parameters()) names.push_back(p.name);
    REQUIRE(names.size() == 2 + 2 * 16 + 3);
    CHECK(names[0] == "tok_emb.weight");
    CHECK(names[1] == "pos_emb.weight");
    CHECK(names[2] == "blocks.0.ln1.weight");
    CHECK(names[4] == "blocks.0.attn.w_q.weight");
    CHECK(names[12] == "blocks.0.ln2.weight");
    CHECK(names[14] == "blocks.0.mlp.fc1.weight");
    CHECK(names.back() == "head.weight");
    CHECK(m.blocks[1]->mlp.fc1.weight.shape() == Shape{64, 16});
    CHECK(m.head.weight.shape() == Shape{11, 16});
    CHECK_FALSE(m.head.bias.defined());
    // same seed, same weights; another seed, others
    Transformer again(small_config(true)), other(small_config(true), 1);
    CHECK(bit_identical(m.blocks[0]->attn.w_q.weight, again.blocks[0]->attn.w_q.weight));
    CHECK_FALSE(bit_identical(m.blocks[0]->attn.w_q.weight, other.blocks[0]->attn.w_q.weight));
}

TEST_CASE("forward shapes and errors", "[nn][transformer]") {
    Transformer m(small_config(true));
    Tensor ids = randint(0, 11, {3, 7});
    CHECK(m.forward(ids).shape() == Shape{3, 7, 11});
    CHECK_THROWS_WITH(m.forward(randint(0, 11, {1, 13})), Catch::Contains("context of 12"));
    CHECK_THROWS_AS(m.forward(randint(0, 11, {7})), ShapeError);
    CHECK_THROWS_AS(m.forward(from_vector<std::int64_t>({11}, {1, 1})), ValueError);  // id past the vocabulary
}

TEST_CASE("TinyGPT is causal: later tokens never change earlier logits", "[nn][transformer][causal]") {
    Transformer m(small_config(true));
    Tensor ids = randint(0, 11, {1, 8});
    Tensor logits = m.forward(ids);
    for (std::int64_t i = 0; i < 7; ++i) {
        Tensor changed = ids.clone();
        copy_(changed.narrow(1, i + 1, 7 - i), randint(0, 11, {1, 7 - i}));
        INFO("position " << i);
        CHECK(bit_identical(m.forward(changed).narrow(1, 0, i + 1), logits.narrow(1, 0, i + 1)));
    }
    Transformer enc(small_config(false));  // the bidirectional twin does look ahead
    Tensor changed = ids.clone();
    fill_(changed.narrow(1, 7, 1), (ids.at({0, 7}) + 1 > 10) ? 0.0 : ids.at({0, 7}) + 1);
    CHECK_FALSE(bit_identical(enc.forward(changed).narrow(1, 0, 1), enc.forward(ids).narrow(1, 0, 1)));
}

TEST_CASE("KV-cached decoding gives the logits of the full forward", "[nn][transformer][kvcache]") {
    Transformer m(small_config(true));
    Tensor ids = randint(0, 11, {2, 9});
    Tensor full_logits = m.forward(ids);
    auto caches = m.make_caches();
    Tensor first = m.forward(ids.narrow(1, 0, 3), Mask(), &caches);  // prompt of 3, then one at a time
    CHECK_THAT(first, IsCloseTo(full_logits.narrow(1, 0, 3), 1e-5));
    for (std::int64_t t = 3; t < 9; ++t) {
        INFO("step " << t);
        CHECK_THAT(m.forward(ids.narrow(1, t, 1), Mask(), &caches), IsCloseTo(full_logits.narrow(1, t, 1), 1e-5));
    }
}

TEST_CASE("custom masks restrict what TinyGPT sees", "[nn][transformer][mask]") {
    TransformerConfig c = small_config(true);
    c.window = 2;
    Transformer local(c);
    CHECK_THAT(local.attention_mask(4, 4).allowed(), IsCloseTo(tensor({{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {0, 1, 1, 1}})));
    c.window = 0, c.stride = 2;
    Transformer strided(c);
    CHECK_THAT(strided.attention_mask(4, 4).allowed(), IsCloseTo(tensor({{1, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 1, 0}, {0, 1, 0, 1}})));
    strided.trace().enabled = true;
    strided.forward(randint(0, 11, {1, 4}));
    REQUIRE(strided.trace().layers.size() == 2);
    CHECK(strided.trace().layers[1].at({0, 0, 2, 1}) == 0.0);  // (2 − 1) is odd: blocked
}

TEST_CASE("gradcheck: a TinyGPT block", "[nn][transformer][gradcheck]") {
    Generator gen(5);
    TransformerConfig c;
    c.d_model = 8, c.n_heads = 2;
    Block block(c, gen);
    block.to(kFloat64);
    std::vector<Tensor> xs{attnlab::testing::grad_input(gen, {2, 4, 8})};
    for (auto& p : block.parameters()) xs.push_back(p);
    attnlab::testing::check_gradients([&](const std::vector<Tensor>& x) { return block.forward(x[0], Mask::causal(4)); }, xs);
}

// ---- the position scheme and the attention normalizer -----------------------------------

static TransformerConfig knobs(bool causal, PositionScheme positions, Normalizer normalizer) {
    TransformerConfig c = small_config(causal);
    c.positions = positions, c.normalizer = normalizer;
    return c;
}

TEST_CASE("sinusoidal positions: tok_emb + the encoding, no pos_emb parameter", "[nn][transformer][positions]") {
    Transformer m(knobs(true, PositionScheme::sinusoidal, Normalizer::softmax()), 3);
    for (const auto& p : m.named_parameters()) CHECK(p.name != "pos_emb.weight");
    CHECK_FALSE(m.pos_emb.has_value());
    const Tensor ids = randint(0, 11, {2, 7});
    // The forward by hand: rows of tok_emb plus PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...).
    std::vector<float> pe(7 * 16);
    for (int pos = 0; pos < 7; ++pos)
        for (int i = 0; 2 * i < 16; ++i) {
            const double angle = pos / std::pow(10000.0, 2.0 * i / 16.0);
            pe[static_cast<std::size_t>(pos * 16 + 2 * i)] = static_cast<float>(std::sin(angle));
            pe[static_cast<std::size_t>(pos * 16 + 2 * i + 1)] = static_cast<float>(std::cos(angle));
        }
    Tensor x = m.tok_emb.forward(ids) + from_vector(pe, {7, 16});
    const Mask mask = m.attention_mask(7, 7);
    for (auto& b : m.blocks) x = b->forward(x, mask);
    CHECK_THAT(m.forward(ids), IsCloseTo(m.head.forward(m.ln_f.forward(x)), 1e-6));
    // With a cache the new token sits at its absolute position: rows 4..6 of the encoding.
    CHECK(bit_identical(m.position_vectors(4, 3), from_vector(pe, {7, 16}).narrow(0, 4, 3)));
    // An odd width has no (sin, cos) pairs.
    TransformerConfig odd = knobs(true, PositionScheme::sinusoidal, Normalizer::softmax());
    odd.d_model = 15, odd.n_heads = 5;
    CHECK_THROWS_WITH(Transformer(odd), Catch::Contains("sinusoidal positions need an even d_model") && Catch::Contains("15"));
}

TEST_CASE("no positions: a bidirectional model is permutation equivariant", "[nn][transformer][positions]") {
    Transformer m(knobs(false, PositionScheme::none, Normalizer::softmax()), 4);
    CHECK_FALSE(m.pos_emb.has_value());
    CHECK_FALSE(m.position_vectors(0, 5).defined());
    const std::vector<std::int64_t> ids{3, 7, 1, 9, 4, 2}, perm{4, 0, 5, 2, 1, 3};
    std::vector<std::int64_t> shuffled;
    for (std::int64_t i : perm) shuffled.push_back(ids[static_cast<std::size_t>(i)]);
    const Tensor logits = m.forward(from_vector(ids, {1, 6})), shuffled_logits = m.forward(from_vector(shuffled, {1, 6}));
    // Row t of the shuffled run is the original's row perm[t] (up to the order of the sums over keys).
    for (std::size_t t = 0; t < perm.size(); ++t) {
        INFO("position " << t);
        CHECK_THAT(shuffled_logits.select(1, static_cast<std::int64_t>(t)), IsCloseTo(logits.select(1, perm[t]), 1e-5));
    }
    // The same shuffle moves a learned-positions model's logits otherwise: the test can tell.
    Transformer learned(knobs(false, PositionScheme::learned, Normalizer::softmax()), 4);
    const Tensor a = learned.forward(from_vector(ids, {1, 6})), b = learned.forward(from_vector(shuffled, {1, 6}));
    CHECK(max(abs(b.select(1, 0) - a.select(1, perm[0]))).item() > 1e-3);
}

TEST_CASE("sparsemax attention: rows on the simplex with exact zeros, gradients through the model", "[nn][transformer][sparsemax]") {
    TransformerConfig c = knobs(true, PositionScheme::learned, Normalizer::sparsemax());
    Transformer m(c, 5);
    // Scale the weights up so that the scores spread and sparsemax leaves keys out.
    for (auto& p : m.named_parameters()) copy_(p.tensor.detach(), p.tensor.detach() * 25.0);
    m.trace().enabled = true;
    m.forward(randint(0, 11, {2, 10}));
    std::int64_t zeros_unmasked = 0;
    for (const Tensor& w : m.trace().layers) {
        CHECK_THAT(sum(w, -1), IsCloseTo(ones({2, 4, 10}), 1e-5));
        for (std::int64_t i = 0; i < 10; ++i)
            for (std::int64_t j = 0; j <= i; ++j)
                for (std::int64_t h = 0; h < 4; ++h) zeros_unmasked += w.at({0, h, i, j}) == 0.0;
    }
    CHECK(zeros_unmasked > 0);  // softmax would give every visible key some weight
    // The fused kernel is softmax only: even forward_output takes the composed path.
    m.trace().enabled = false;
    m.forward(randint(0, 11, {1, 4}));
    CHECK(m.blocks[0]->attn.last_path().path == AttentionPath::composed);
    Transformer soft(small_config(true));
    soft.forward(randint(0, 11, {1, 4}));
    CHECK(soft.blocks[0]->attn.last_path().path == AttentionPath::fused);

    // gradcheck through the whole model in float64 (the sinusoids follow the weights' dtype), on a
    // few parameters: tok_emb, layer 0's W_Q, layer 1's W_K.
    Transformer g(knobs(true, PositionScheme::sinusoidal, Normalizer::sparsemax()), 6);
    g.to(kFloat64);
    const Tensor ids = randint(0, 11, {1, 6});
    std::vector<Tensor> xs{g.tok_emb.weight, g.blocks[0]->attn.w_q.weight, g.blocks[1]->attn.w_k.weight};
    attnlab::testing::check_gradients([&](const std::vector<Tensor>&) { return g.forward(ids); }, xs);
}

TEST_CASE("KV-cached decoding equals recomputation for every position scheme and normalizer", "[nn][transformer][kvcache][positions]") {
    for (PositionScheme p : {PositionScheme::learned, PositionScheme::sinusoidal, PositionScheme::none})
        for (Normalizer n : {Normalizer::softmax(), Normalizer::sparsemax()}) {
            INFO(position_scheme_name(p) << " " << n.name());
            Transformer m(knobs(true, p, n), 7);
            const Tensor ids = randint(0, 11, {2, 9});
            const Tensor full = m.forward(ids);
            auto caches = m.make_caches();
            CHECK_THAT(m.forward(ids.narrow(1, 0, 3), Mask(), &caches), IsCloseTo(full.narrow(1, 0, 3), 1e-5));
            for (std::int64_t t = 3; t < 9; ++t)
                CHECK_THAT(m.forward(ids.narrow(1, t, 1), Mask(), &caches), IsCloseTo(full.narrow(1, t, 1), 1e-5));
        }
}
