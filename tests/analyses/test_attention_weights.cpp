// test_attention_weights.cpp — a model's attention weights on a text equal the formula
// softmax(q kᵀ / √d_k + mask) computed here by hand, and reading them leaves the model as it was.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "analyses/attention_weights.hpp"
#include "autograd/node.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

namespace {

nn::TransformerConfig tiny() {
    return {.vocab_size = 9, .d_model = 8, .n_heads = 2, .n_layers = 2, .context = 8, .causal = true};
}

// Layer 0's weights by hand: x = tok_emb[ids] + pos_emb, h = ln1(x), q = h W_Qᵀ + b_Q, k likewise;
// head hd reads columns [hd·d_k, (hd + 1)·d_k). Causal: key j > query i gets weight exactly 0.
std::vector<std::vector<std::vector<double>>> by_hand(nn::Transformer& m, const std::vector<std::int64_t>& ids) {
    NoGradGuard no_grad;
    const std::int64_t T = static_cast<std::int64_t>(ids.size()), H = m.config().n_heads, dk = m.config().d_model / H;
    const Tensor x = m.tok_emb.forward(from_vector(ids, {T})) + m.pos_emb->forward(arange(T));  // [T, d_model]
    const Tensor h = m.blocks[0]->ln1.forward(x);
    const Tensor q = m.blocks[0]->attn.w_q.forward(h).to(kFloat64), k = m.blocks[0]->attn.w_k.forward(h).to(kFloat64);
    std::vector<std::vector<std::vector<double>>> w(H, std::vector<std::vector<double>>(T, std::vector<double>(T, 0.0)));
    for (std::int64_t hd = 0; hd < H; ++hd)
        for (std::int64_t i = 0; i < T; ++i) {
            std::vector<double> s(T, -std::numeric_limits<double>::infinity());
            double top = s[0];
            for (std::int64_t j = 0; j <= i; ++j) {  // causal: keys 0 .. i
                double dot = 0;
                for (std::int64_t c = hd * dk; c < (hd + 1) * dk; ++c) dot += q.at({i, c}) * k.at({j, c});
                s[j] = dot / std::sqrt(static_cast<double>(dk)), top = std::max(top, s[j]);
            }
            double sum = 0;
            for (std::int64_t j = 0; j <= i; ++j) sum += std::exp(s[j] - top);
            for (std::int64_t j = 0; j <= i; ++j) w[hd][i][j] = std::exp(s[j] - top) / sum;
        }
    return w;
}

}  // namespace

TEST_CASE("attention_weights: layer 0 is softmax(q kᵀ / √d_k + causal mask), rows sum to 1", "[analyses][attention_weights]") {
    nn::Transformer m(tiny(), 11);
    {  // sharper queries, so that the weights are far from uniform and a wrong formula shows
        NoGradGuard no_grad;
        for (nn::Linear* w : {&m.blocks[0]->attn.w_q, &m.blocks[0]->attn.w_k}) copy_(w->weight, w->weight * 30.0);
    }
    const std::vector<std::int64_t> ids{3, 1, 4, 1, 5, 8};
    const std::vector<Tensor> layers = lab::attention_weights(m, ids);
    REQUIRE(layers.size() == 2);
    REQUIRE(layers[0].shape() == Shape{2, 6, 6});  // [H, T, T]
    CHECK_FALSE(layers[0].requires_grad());
    const auto expected = by_hand(m, ids);
    double worst = 0;
    for (std::int64_t hd = 0; hd < 2; ++hd)
        for (std::int64_t i = 0; i < 6; ++i) {
            double row = 0;
            for (std::int64_t j = 0; j < 6; ++j) {
                const double got = layers[0].at({hd, i, j});
                worst = std::max(worst, std::abs(got - expected[hd][i][j]));
                if (j > i) CHECK(got == 0.0);  // above the diagonal: exactly 0, not small
                row += got;
            }
            CHECK(row == Approx(1).margin(1e-6));
        }
    INFO("largest difference from the hand computation: " << worst);
    CHECK(worst < 1e-6);
    // Far from uniform (1/6 in the last row): a formula that lost the scores would not pass the check above.
    CHECK(max(abs(layers[0].select(1, 5) - 1.0 / 6)).item() > 0.05);
}

TEST_CASE("traced_forward: the model's trace, mode and logits are as they were", "[analyses][attention_weights]") {
    nn::Transformer m(tiny(), 12);
    const Tensor ids = from_vector<std::int64_t>({2, 7, 1, 8, 2, 8, 1, 8}, {2, 4});
    Tensor plain;
    {
        NoGradGuard no_grad;
        m.eval();
        plain = m.forward(ids);  // [2, 4, V]: the fused path, trace off
    }

    SECTION("a trace that was off stays off and empty; train mode stays on") {
        m.train();
        const lab::TracedForward r = lab::traced_forward(m, ids);
        CHECK_FALSE(m.trace().enabled);
        CHECK(m.trace().layers.empty());
        CHECK(m.is_training());
        REQUIRE(r.layers.size() == 2);
        CHECK(r.layers[1].shape() == Shape{2, 2, 4, 4});  // [B, H, T, T]
        CHECK(max(abs(r.logits - plain)).item() < 1e-5);   // the same function by either kernel
    }
    SECTION("a trace that was on keeps what it held") {
        m.eval();
        m.trace().enabled = true;
        {
            NoGradGuard no_grad;
            m.forward(ids.narrow(0, 0, 1));
        }
        const Tensor held = m.trace().layers.at(0);  // [1, H, 4, 4]
        lab::traced_forward(m, ids);
        CHECK(m.trace().enabled);
        CHECK_FALSE(m.is_training());
        REQUIRE(m.trace().layers.size() == 2);
        CHECK(m.trace().layers[0].const_data_ptr<float>() == held.const_data_ptr<float>());  // the same tensor, not a recomputed one
    }
    SECTION("a forward that throws still puts the trace back") {
        const Tensor too_long = zeros({1, 9}, kInt64);  // context 8
        CHECK_THROWS_WITH(lab::traced_forward(m, too_long), Catch::Contains("context"));
        CHECK_FALSE(m.trace().enabled);
    }
}
