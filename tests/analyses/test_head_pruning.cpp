// test_head_pruning.cpp — the ablations `tinygpt heads` and phase 4 share, on models and
// patterns whose answers are worked out by hand: head pruning (analyses/head_pruning.hpp),
// attention distance (analyses/attention_distance.hpp), the causality check with replacement
// ids from any first token (analyses/causality.hpp), and a held-out evaluation further
// restricted by a mask (training/held_out.hpp).
#include <catch2/catch.hpp>
#include <cmath>

#include "analyses/attention_distance.hpp"
#include "analyses/causality.hpp"
#include "analyses/head_pruning.hpp"
#include "autograd/node.hpp"
#include "tensor/ops.hpp"
#include "training/held_out.hpp"

using namespace attnlab;

namespace {

// d_model 2, two heads of d_k 1, one layer, vocabulary 2; every weight 0 but these:
//   W_V bias [1, 1]        each head's value is 1 whatever it attends to: its output is 1
//   W_O [[2, -1],          the residual becomes [u, -u] with u = 2·(head 1) − 1·(head 2),
//        [-2, 1]]          a head switched off contributing 0
//   ln_f weight [1, 1], head = identity
// The MLP is all zeros (GELU(0) = 0), so ln_f reads [u, -u] -> [s, -s], s = u / √(u² + ε),
// and the logits are [s, -s]. With target 0, loss(s) = ln(1 + e^(−2s)):
//   all on: u = 1;  head 1 off: u = −1, loss(−s) − loss(s) = 2s;  head 2 off: u = 2 (s barely moves);
//   both off: u = 0, logits [0, 0], loss ln 2.
std::unique_ptr<nn::Transformer> two_heads() {
    nn::TransformerConfig c;
    c.vocab_size = 2, c.d_model = 2, c.n_heads = 2, c.n_layers = 1, c.context = 1, c.causal = true;
    auto m = std::make_unique<nn::Transformer>(c, 0);
    NoGradGuard no_grad;
    for (auto& p : m->named_parameters()) copy_(p.tensor, zeros_like(p.tensor));
    copy_(m->blocks[0]->attn.w_v.bias, tensor({1.0, 1.0}));
    copy_(m->blocks[0]->attn.w_o->weight, tensor({{2.0, -1.0}, {-2.0, 1.0}}));
    copy_(m->ln_f.weight, tensor({1.0, 1.0}));
    copy_(m->head.weight, tensor({{1.0, 0.0}, {0.0, 1.0}}));
    return m;
}

double s_of(double u) { return u / std::sqrt(u * u + 1e-5); }        // LayerNorm of [u, -u], first entry
double loss_of(double s) { return std::log1p(std::exp(-2 * s)); }  // cross-entropy of logits [s, -s], target 0

}  // namespace

TEST_CASE("switching off a head changes the held-out loss by the amount worked out by hand", "[analyses][pruning]") {
    const std::unique_ptr<nn::Transformer> model = two_heads();
    nn::Transformer& m = *model;
    const std::vector<lab::Batch> held{{from_vector(std::vector<std::int64_t>{0}, {1, 1}),
                                        from_vector(std::vector<std::int64_t>{0}, {1, 1}), nn::Mask(), {}}};
    const lab::HeldOutLoss loss = [&](nn::Transformer& any) { return lab::evaluate_batches(any, held).loss; };
    const double base = loss(m);
    CHECK(base == Approx(loss_of(s_of(1))).margin(1e-6));

    const std::vector<double> alone = lab::pruning_losses(m, loss);
    REQUIRE(alone.size() == 2);
    CHECK(alone[0] - base == Approx(2 * s_of(1)).margin(1e-5));  // head 1 off: the sign flips, +2 nats
    CHECK(alone[1] - base == Approx(loss_of(s_of(2)) - loss_of(s_of(1))).margin(1e-5));  // head 2 off: about 0
    CHECK(lab::cumulative_pruning_losses(m, {1, 0}, loss)[1] == Approx(std::log(2.0)).margin(1e-6));  // both off
    CHECK(loss(m) == base);  // every head back on

    const lab::PruningToMinimum r = lab::prune_to_minimum(m, 0.05, loss);
    CHECK(r.order == std::vector<std::size_t>{1, 0});  // head 2 matters least
    REQUIRE(r.losses.size() == 2);
    CHECK(r.losses[1] == Approx(std::log(2.0)).margin(1e-6));
    CHECK(r.fewest_heads == 1);                                      // head 1 alone keeps the loss
    CHECK(lab::prune_to_minimum(m, 1.0, loss).fewest_heads == 0);    // ln 2 − loss(1) = 0.57 < 1
    CHECK(lab::head_names(m) == std::vector<std::string>{"L1 H1", "L1 H2"});

    const lab::Table t = lab::pruning_table(r, lab::head_names(m));
    REQUIRE(t.json().size() == 3);  // all on, then one row per head switched off
    CHECK(t.json().as_array()[1].at("switched_off").as_string() == "L1 H2");
    CHECK(t.json().as_array()[2].at("increase").as_double() == Approx(std::log(2.0) - base).margin(1e-6));
}

TEST_CASE("attention distance of known patterns, and of uniform attention under the model's mask", "[analyses][distance]") {
    nn::TransformerConfig c;
    c.vocab_size = 4, c.d_model = 4, c.n_heads = 2, c.n_layers = 1, c.context = 4, c.causal = true;
    const nn::Transformer causal(c, 0);
    // Head 1 attends to the previous token (query 0 to itself); head 2 spreads evenly over keys <= i.
    const Tensor prev3 = tensor({{1, 0, 0}, {1, 0, 0}, {0, 1, 0}}), even3 = tensor({{1, 0, 0}, {0.5, 0.5, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}});
    const Tensor prev2 = tensor({{1, 0}, {1, 0}}), even2 = tensor({{1, 0}, {0.5, 0.5}});
    // Distances per query: head 1 [0, 1, 1] and [0, 1]; head 2 [0, 0.5, 1] and [0, 0.5]: over 5 queries.
    const lab::AttentionDistance d = lab::attention_distance(causal, {{stack({prev3, even3}, 0)}, {stack({prev2, even2}, 0)}});
    CHECK(d.queries == 5);
    CHECK(d.per_head.at({0, 0}) == Approx(3.0 / 5).margin(1e-9));
    CHECK(d.per_head.at({0, 1}) == Approx(2.0 / 5).margin(1e-6));
    CHECK(d.uniform == Approx(2.0 / 5).margin(1e-6));  // uniform causal attention is head 2
    CHECK(d.layer_mean(0) == Approx(0.5).margin(1e-6));
    // Measured one sequence at a time and combined: the same means, weighted by 3 and 2 queries.
    const lab::AttentionDistance parts = lab::combine({lab::attention_distance(causal, {{stack({prev3, even3}, 0)}}),
                                                       lab::attention_distance(causal, {{stack({prev2, even2}, 0)}})});
    CHECK(parts.queries == 5);
    CHECK(parts.per_head.at({0, 0}) == Approx(3.0 / 5).margin(1e-9));
    CHECK(parts.per_head.at({0, 1}) == Approx(2.0 / 5).margin(1e-6));
    CHECK(parts.uniform == Approx(2.0 / 5).margin(1e-6));
    // Without the causal mask uniform attention reaches both sides: T = 3 gives (1 + 2/3 + 1) per 3 queries.
    c.causal = false;
    const lab::AttentionDistance open = lab::attention_distance(nn::Transformer(c, 0), {{stack({prev3, even3}, 0)}});
    CHECK(open.uniform == Approx(8.0 / 9).margin(1e-6));
}

TEST_CASE("the causality check draws replacements from any first token and refuses a vocabulary too small", "[analyses][causal]") {
    nn::TransformerConfig c;
    c.vocab_size = 3, c.d_model = 8, c.n_heads = 2, c.n_layers = 1, c.context = 6, c.causal = true;
    nn::Transformer gpt(c, 1);
    const std::vector<std::int64_t> ids{0, 1, 2, 0, 1, 2};
    for (const lab::CausalityRow& r : lab::check_causality(gpt, ids, 0)) {  // a character model's ids: every one of them
        INFO("i = " << r.i);
        CHECK(r.prefix_changed == 0.0);
        CHECK(r.prefix_shuffled == 0.0);
        CHECK(r.after_changed > 0.0);
    }
    CHECK_THROWS_WITH(lab::check_causality(gpt, ids, 2), Catch::Contains("fewer than 2 tokens"));
    auto open = lab::with_mask(gpt, false);
    CHECK(lab::check_causality(*open, ids, 0)[0].prefix_changed > 0.0);  // the same weights without the mask leak
}

TEST_CASE("a held-out evaluation restricted by a mask reads fewer keys with the same weights", "[analyses][masks]") {
    nn::TransformerConfig c;
    c.vocab_size = 5, c.d_model = 8, c.n_heads = 2, c.n_layers = 1, c.context = 6, c.causal = true;
    nn::Transformer gpt(c, 2);
    const Tensor ids = from_vector(std::vector<std::int64_t>{1, 2, 3, 4, 1, 2}, {1, 6});
    const std::vector<lab::Batch> held{{ids, from_vector(std::vector<std::int64_t>{2, 3, 4, 1, 2, 3}, {1, 6}), nn::Mask(), {}}};
    const double own = lab::evaluate_batches(gpt, held).loss;
    // A window of 1 at evaluation is the model built with that window (the same weights, copied).
    const double local = lab::evaluate_batches(gpt, held, nn::Mask::local(6, 6, 1, 0)).loss;
    CHECK(local != own);
    CHECK(local == lab::evaluate_batches(*lab::with_mask(gpt, true, 1), held).loss);
    CHECK(lab::evaluate_batches(*lab::with_mask(gpt, true, 6), held).loss == own);  // a window as wide as the context
    CHECK(lab::evaluate_batches(gpt, held, nn::Mask::causal(6)).loss == own);  // its own mask again: nothing changes
}
