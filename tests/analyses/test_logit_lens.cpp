// test_logit_lens.cpp — the logit lens on models whose answer is known.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "analyses/logit_lens.hpp"
#include "data/packing.hpp"
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

TEST_CASE("exact next tokens: the packed rows' own probabilities, for their first sentence", "[analyses][logit_lens]") {
    const data::Grammar& g = data::toy_grammar();
    Generator gen(5);
    for (const std::int64_t slots : {9, 13, 33}) {  // short rows condition the sentence to fit; long ones do not
        const std::vector<std::int64_t> row = data::pack_row(g, gen, slots);
        const std::vector<double> p = data::packed_token_probs(g, row);
        const auto eos = std::find(row.begin(), row.end(), data::Vocab::kEos);
        const std::vector<std::int64_t> first(row.begin(), eos);  // <bos> and the first sentence's words
        const std::vector<std::vector<double>> exact = exact_next_tokens(g, first, slots - 1);
        REQUIRE(exact.size() == first.size());
        for (std::size_t i = 0; i < first.size(); ++i) {
            INFO("slots " << slots << ", position " << i);
            CHECK(exact[i][static_cast<std::size_t>(row[i + 1])] == Approx(p[i + 1]).epsilon(1e-12));
            CHECK(std::accumulate(exact[i].begin(), exact[i].end(), 0.0) == Approx(1).epsilon(1e-12));
        }
    }
    CHECK_THROWS_WITH(exact_next_tokens(g, {5, 6}, 8), Catch::Contains("exact_next_tokens: the row must open with <bos>"));
}

TEST_CASE("KL to the exact distribution: the last layer's is the model's own", "[analyses][logit_lens]") {
    const data::Grammar& g = data::toy_grammar();
    const auto V = static_cast<std::int64_t>(g.vocab().size());
    nn::Transformer m({.vocab_size = V, .d_model = 16, .n_heads = 2, .n_layers = 2, .context = 12}, 9);
    const std::vector<std::int64_t> row = {data::Vocab::kBos, g.vocab().id("the"), g.vocab().id("cat"), g.vocab().id("sat")};
    const std::vector<std::vector<double>> exact = exact_next_tokens(g, row, 12);
    const LogitLens lens = logit_lens(m, row);
    const std::vector<double> kl = kl_to_exact(lens, exact);
    REQUIRE(kl.size() == 3);
    // The model's own prediction, from its forward pass, against the exact distribution.
    const std::vector<double> own = softmax(m.forward(from_vector(row, Shape{1, 4})), -1).to_vector<double>();
    double expected = 0;
    for (std::size_t t = 0; t < row.size(); ++t)
        expected += kl_divergence(exact[t], std::vector<double>(own.begin() + std::ptrdiff_t(t) * V, own.begin() + std::ptrdiff_t(t + 1) * V));
    CHECK(kl.back() == Approx(expected / 4).epsilon(1e-5));
    CHECK(kl.front() > 0);
    CHECK_THROWS_WITH(kl_to_exact(lens, std::vector<std::vector<double>>(3, exact[0])), Catch::Contains("kl_to_exact: 3 exact"));

    SECTION("identity layers are as far from it at every layer") {
        for (auto& p : m.named_parameters())
            if (p.name.find("attn.w_o") != std::string::npos || p.name.find("mlp.fc2") != std::string::npos)
                fill_(p.tensor.detach(), 0.0);
        const std::vector<double> same = kl_to_exact(logit_lens(m, row), exact);
        CHECK(same[1] == same[0]);
        CHECK(same[2] == same[0]);
    }
}
