// test_transformer.cpp — the toy transformer: names, shapes, gradients, causality, KV cache.
#include <catch2/catch.hpp>

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
