// test_attention_gradients.cpp — dL/dA from the attention trace (analyses/attention_gradients)
// against central differences, and the zeros it must have.
#include <catch2/catch.hpp>
#include <cmath>

#include "analyses/attention_gradients.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

namespace {
nn::Transformer tiny_model() {
    nn::TransformerConfig c;
    c.vocab_size = 11, c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.context = 8;
    return nn::Transformer(c, 5);
}
}  // namespace

TEST_CASE("dL/dA equals central differences on the largest entry of every head", "[lab][attention_gradients]") {
    nn::Transformer model = tiny_model();
    const std::vector<std::int64_t> ids{1, 4, 7, 2, 9, 3};
    const lab::AttentionGradients g = lab::attention_gradients(model, ids);
    REQUIRE(g.grads.size() == 2);
    CHECK(g.grads[0].shape() == Shape{2, 6, 6});
    const auto entries = lab::check_by_central_differences(model, ids, g);
    REQUIRE(entries.size() == 4);  // 2 layers x 2 heads
    for (const lab::GradientCheckEntry& e : entries) {
        INFO("layer " << e.layer << " head " << e.head << " (" << e.query << ", " << e.key << ")");
        CHECK(std::abs(e.autograd) > 1e-4);  // a real gradient, not a zero matched by a zero
        // float32 forward, eps 1e-3: the difference quotient carries ~1e-4 of rounding
        CHECK(e.central == Approx(e.autograd).epsilon(0.02));
    }
}

TEST_CASE("dL/dA is zero where the mask blocks a pair and on the last query, which no loss term reads",
          "[lab][attention_gradients]") {
    nn::Transformer model = tiny_model();
    const lab::AttentionGradients g = lab::attention_gradients(model, {1, 4, 7, 2, 9, 3});
    for (const Tensor& dA : g.grads) {
        CHECK(max(abs(dA.select(1, 5))).item() == 0.0);       // query 5 predicts nothing
        CHECK(max(abs(dA.select(1, 1).select(1, 3))).item() == 0.0);  // query 1 cannot see key 3
        CHECK(max(abs(dA)).item() > 0.0);
    }
    // rows of the gradient-weighted attention are shares: each sums to 1 or is empty
    for (const Tensor& w : g.weighted)
        for (double s : sum(w, 1).to_vector<double>()) CHECK((std::abs(s - 1) < 1e-5 || s == 0.0));
    CHECK_THROWS_WITH(lab::attention_gradients(model, {1}), Catch::Contains("attention_gradients") && Catch::Contains("1"));
}
