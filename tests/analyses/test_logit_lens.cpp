// test_logit_lens.cpp — the logit lens on models whose answer is known.
#include <catch2/catch.hpp>
#include <cmath>

#include "analyses/logit_lens.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;
using namespace attnlab::lab;

TEST_CASE("logit lens: its last layer is the model's prediction", "[analyses][logit_lens]") {
    nn::Transformer m({.vocab_size = 11, .d_model = 16, .n_heads = 2, .n_layers = 3, .context = 8}, 4);
    const std::vector<std::int64_t> ids{1, 5, 2, 9, 3};
    const LogitLens lens = logit_lens(m, ids);
    REQUIRE(lens.probs.size() == 4);  // embedding + 3 blocks
    const Tensor direct = softmax(m.forward(from_vector(ids, Shape{1, 5})), -1).select(0, 0);  // [T, V]
    CHECK(max(abs(lens.probs.back() - direct)).item() < 1e-6);
    CHECK(lens.probs[1].shape() == Shape{5, 11});
    CHECK_THROWS_WITH(logit_lens(m, std::vector<std::int64_t>(9, 1)), Catch::Contains("logit_lens: 9 tokens"));
}

TEST_CASE("logit lens: layers that are identities predict the same at every layer", "[analyses][logit_lens]") {
    nn::Transformer m({.vocab_size = 11, .d_model = 16, .n_heads = 2, .n_layers = 2, .context = 8}, 4);
    for (auto& p : m.named_parameters())  // each branch adds exactly zero: x + 0 + 0
        if (p.name.find("attn.w_o") != std::string::npos || p.name.find("mlp.fc2") != std::string::npos)
            fill_(p.tensor.detach(), 0.0);
    const LogitLens lens = logit_lens(m, {3, 1, 4, 1, 5});
    for (std::size_t l = 1; l < lens.probs.size(); ++l) {
        CHECK(max(abs(lens.probs[l] - lens.probs[0])).item() == 0);
        CHECK(lens.top[l] == lens.top[0]);
        CHECK(lens.final_token_prob[l] == lens.final_token_prob[0]);
    }
}

TEST_CASE("KL divergence", "[analyses][logit_lens]") {
    CHECK(kl_divergence({0.5, 0.5}, {0.5, 0.5}) == 0);
    CHECK(kl_divergence({1, 0}, {0.5, 0.5}) == Approx(std::log(2.0)));
    CHECK(std::isinf(kl_divergence({0.5, 0.5}, {1, 0})));
    CHECK_THROWS_WITH(kl_divergence({1}, {0.5, 0.5}), Catch::Contains("kl_divergence"));
}
