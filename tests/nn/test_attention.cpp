// test_attention.cpp — scaled dot-product attention, masks, SelfAttention, MultiHeadAttention.
#include <catch2/catch.hpp>
#include <cmath>

#include "tests/support/gradcheck_helpers.hpp"
#include "autograd/node.hpp"
#include "nn/attention.hpp"
#include "nn/transformer.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using attnlab::testing::check_gradients;
using namespace attnlab::nn;
using attnlab::testing::bit_identical;
using attnlab::testing::IsCloseTo;

namespace {
Generator gen(17);
Tensor input(const Shape& s) { return attnlab::testing::grad_input(gen, s); }
std::string fixture(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/" + name + ".npy"; }
}  // namespace

TEST_CASE("the course's worked examples", "[nn][attention]") {
    SECTION("one query, three keys, unscaled") {
        Tensor q = tensor({{1.0, 0.0}});
        Tensor k = tensor({{1.0, 0.0}, {0.0, 1.0}, {0.7, 0.7}});
        Tensor v = tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
        AttentionResult r = scaled_dot_product_attention(q, k, v, Mask(), 1.0);
        CHECK_THAT(r.weights, IsCloseTo(tensor({{0.474, 0.174, 0.351}}), 5e-4));
        // The tutorial prints [2.751, 3.750] from its rounded weights; exactly it is [2.754, 3.754].
        CHECK_THAT(r.output, IsCloseTo(tensor({{2.754, 3.754}}), 5e-4));
    }
    SECTION("Q 3×2, K 4×2, V 4×2, scaled, every row") {
        // The course's matrices. With c = e^(1/√2): QK^T / √2 has rows [1,0,1,0], [0,1,1,0] and
        // [1,1,2,0] (each / √2), so by hand the weights are [c,1,c,1]/(2c+2), [1,c,c,1]/(2c+2)
        // and [c,c,c²,1]/(c+1)², and the outputs (weights · V, whose second column is the
        // first + 1) are (6c+10)/(2c+2), 4 and (5c²+4c+7)/(c+1)² in the first column.
        Tensor q = tensor({{1, 0}, {0, 1}, {1, 1}});
        Tensor k = tensor({{1, 0}, {0, 1}, {1, 1}, {0, 0}});
        Tensor v = tensor({{1, 2}, {3, 4}, {5, 6}, {7, 8}});
        AttentionResult r = scaled_dot_product_attention(q, k, v);
        const double c = std::exp(1 / std::sqrt(2.0)), n01 = 2 * c + 2, n2 = (c + 1) * (c + 1);
        CHECK_THAT(r.weights, IsCloseTo(tensor({{c / n01, 1 / n01, c / n01, 1 / n01},
                                                {1 / n01, c / n01, c / n01, 1 / n01},
                                                {c / n2, c / n2, c * c / n2, 1 / n2}}), 1e-6));
        const double o0 = (6 * c + 10) / n01, o2 = (5 * c * c + 4 * c + 7) / n2;
        CHECK_THAT(r.output, IsCloseTo(tensor({{o0, o0 + 1}, {4, 5}, {o2, o2 + 1}}), 1e-5));
        // The same numbers to three decimals, as phase 1 prints them. The course's approximate row 0,
        // [0.31, 0.17, 0.31, 0.20], is off: the scores make it [a, b, a, b].
        CHECK_THAT(r.weights, IsCloseTo(tensor({{0.335, 0.165, 0.335, 0.165}, {0.165, 0.335, 0.335, 0.165},
                                                {0.221, 0.221, 0.449, 0.109}}), 6e-4));
        CHECK_THAT(r.output, IsCloseTo(tensor({{3.660, 4.660}, {4.0, 5.0}, {3.891, 4.891}}), 6e-4));
    }
}

TEST_CASE("masks: builders, polarity and combination", "[nn][attention][mask]") {
    CHECK_THAT(Mask::causal(3).allowed(), IsCloseTo(tensor({{1, 0, 0}, {1, 1, 0}, {1, 1, 1}})));
    // offset-aware: 1 new query at position 3 of 4 sees every key
    CHECK_THAT(Mask::causal(1, 4).allowed(), IsCloseTo(tensor({{1, 1, 1, 1}})));
    CHECK_THAT(Mask::causal(2, 4).allowed(), IsCloseTo(tensor({{1, 1, 1, 0}, {1, 1, 1, 1}})));
    CHECK_THAT(Mask::local(4, 4, 1, 0).allowed(), IsCloseTo(tensor({{1, 1, 0, 0}, {1, 1, 1, 0}, {0, 1, 1, 1}, {0, 0, 1, 1}})));
    CHECK_THAT(Mask::strided(4, 4, 2, 0).allowed(), IsCloseTo(tensor({{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 1, 0}, {0, 1, 0, 1}})));
    Mask pad = Mask::padding({2, 3}, 3);
    CHECK(pad.allowed().shape() == Shape{2, 1, 3});
    Mask both = Mask::causal(3) & pad;
    CHECK(both.allowed().shape() == Shape{2, 3, 3});
    CHECK_THAT(both.allowed().select(0, 0), IsCloseTo(tensor({{1, 0, 0}, {1, 1, 0}, {1, 1, 0}})));
    CHECK(std::isinf(Mask::causal(2).additive().at({0, 1})));
    CHECK_THAT(Mask::from_additive(Mask::causal(3).additive()).allowed(), IsCloseTo(Mask::causal(3).allowed()));
    CHECK_THROWS_WITH(Mask::from_additive(tensor({{0, -1e9}})), Catch::Contains("-1000000000") && Catch::Contains("-inf"));
    CHECK_THROWS_AS(Mask::padding({4}, 3), ValueError);
    CHECK_THROWS_AS(Mask::causal(3).apply(zeros({2, 4, 4})), ShapeError);
}

TEST_CASE("causal attention never leaks the future", "[nn][attention][mask][causal]") {
    MultiHeadAttention mha(16, 4);
    Tensor x = randn({1, 6, 16});
    Tensor y = mha.forward(x, Mask::causal(6)).output;
    for (std::int64_t i = 0; i < 6; ++i) {
        Tensor changed = x.clone();
        if (i + 1 < 6) copy_(changed.narrow(1, i + 1, 6 - i - 1), randn({1, 6 - i - 1, 16}));
        Tensor y2 = mha.forward(changed, Mask::causal(6)).output;
        INFO("position " << i);
        CHECK(bit_identical(y.narrow(1, 0, i + 1), y2.narrow(1, 0, i + 1)));  // every output ≤ i, to the bit
    }
    AttentionResult r = mha.forward(x, Mask::causal(6));
    CHECK(triu(r.weights, 1).sum().item() == 0.0);  // upper triangle exactly zero in every head
}

TEST_CASE("fully masked rows and padding", "[nn][attention][mask]") {
    Tensor q = randn({2, 3, 4}), k = randn({2, 3, 4}), v = randn({2, 3, 4});
    // sequence 0 has length 0: all its keys are padding; sequence 1 has length 2
    Mask pad = Mask::padding({0, 2}, 3);
    AttentionResult r = scaled_dot_product_attention(q, k, v, pad);
    CHECK_THAT(r.output.select(0, 0), IsCloseTo(zeros({3, 4})));
    CHECK_THAT(r.weights.select(0, 0), IsCloseTo(zeros({3, 3})));
    CHECK_THAT(r.weights.select(0, 1).narrow(1, 2, 1), IsCloseTo(zeros({3, 1})));  // padded key: zero weight
    CHECK_THAT(r.weights.select(0, 1).sum(-1), IsCloseTo(ones({3}), 1e-6));
    Tensor qq = q.detach().clone().requires_grad_();
    scaled_dot_product_attention(qq, k, v, pad).output.sum().backward();
    CHECK_THAT(qq.grad().select(0, 0), IsCloseTo(zeros({3, 4})));  // no gradient through a fully masked row
}

TEST_CASE("gradcheck: attention with each mask, SelfAttention, MHA and cross-attention", "[nn][attention][gradcheck]") {
    for (const Mask& m : {Mask(), Mask::causal(4), Mask::local(4, 4, 1, 0), Mask::strided(4, 4, 2, 0),
                          Mask::padding({3, 1}, 4), Mask::causal(4) & Mask::padding({0, 2}, 4)}) {
        check_gradients([&](const std::vector<Tensor>& x) { return scaled_dot_product_attention(x[0], x[1], x[2], m).output; },
              {input({2, 4, 3}), input({2, 4, 3}), input({2, 4, 5})});
    }
    SelfAttention sa(6, 4);
    sa.to(kFloat64);
    std::vector<Tensor> xs{input({2, 5, 6})};
    for (auto& p : sa.parameters()) xs.push_back(p);
    check_gradients([&](const std::vector<Tensor>& x) { return sa.forward(x[0], Mask::causal(5)).output; }, xs);

    MultiHeadAttention cross(8, 2, 5, 3);
    cross.to(kFloat64);
    xs = {input({2, 3, 8}), input({2, 4, 5}), input({2, 4, 3})};
    for (auto& p : cross.parameters()) xs.push_back(p);
    check_gradients([&](const std::vector<Tensor>& x) { return cross.forward(x[0], x[1], x[2]).output; }, xs);
}

TEST_CASE("MultiHeadAttention: shapes, parameter count, head mask", "[nn][attention][mha]") {
    MultiHeadAttention mha(64, 8);
    CHECK(mha.parameter_count() == 16640);  // 4·d² + 4·d for d = 64: W_Q, W_K, W_V, W_O and their biases
    CHECK(MultiHeadAttention(64, 4).parameter_count() == 16640);
    AttentionResult r = mha.forward(randn({2, 5, 64}), randn({2, 7, 64}), randn({2, 7, 64}));
    CHECK(r.output.shape() == Shape{2, 5, 64});
    CHECK(r.weights.shape() == Shape{2, 8, 5, 7});
    CHECK(SelfAttention(64).parameter_count() == 3 * 64 * 64);  // seed: single head has 3·d²
    CHECK_THROWS_WITH(MultiHeadAttention(64, 5), Catch::Contains("divisible"));
    CHECK_THROWS_AS(mha.forward(randn({2, 5, 64}), randn({3, 7, 64}), randn({3, 7, 64})), ShapeError);

    // Switching every head off leaves only W_O's bias; switching one off changes the output.
    Tensor x = randn({1, 4, 64});
    Tensor full_out = mha.forward(x).output;
    mha.set_head_mask({true, true, false, true, true, true, true, true});
    CHECK_FALSE(bit_identical(mha.forward(x).output, full_out));
    mha.set_head_mask(std::vector<bool>(8, false));
    CHECK_THAT(mha.forward(x).output.select(0, 0).select(0, 0), IsCloseTo(mha.w_o->bias, 1e-6));
}

TEST_CASE("KV-cached attention equals full causal attention", "[nn][attention][kvcache]") {
    MultiHeadAttention mha(16, 4);
    Tensor x = randn({2, 6, 16});
    Tensor full_out = mha.forward(x, Mask::causal(6)).output;
    KVCache cache;
    for (std::int64_t t = 0; t < 6; ++t) {
        Tensor xt = x.narrow(1, t, 1);
        Tensor yt = mha.forward(xt, Mask::causal(1, t + 1), &cache).output;
        INFO("step " << t);
        CHECK_THAT(yt, IsCloseTo(full_out.narrow(1, t, 1), 1e-6));
    }
    CHECK(cache.length() == 6);
}

TEST_CASE("MultiHeadAttention matches PyTorch: outputs, weights, every gradient", "[nn][attention][mha][pytorch]") {
    for (auto [name, d, h, causal] : {std::tuple{"mha_causal", 64, 8, true}, std::tuple{"mha_cross", 16, 4, false}}) {
        INFO("fixture " << name);
        const std::string n = name;
        Tensor xq = load_npy(fixture(n + ".x_q")).requires_grad_();
        Tensor xkv = causal ? xq : load_npy(fixture(n + ".x_kv")).requires_grad_();
        MultiHeadAttention mha(d, h, xkv.size(-1), xkv.size(-1));
        for (auto& p : mha.named_parameters()) copy_(p.tensor.detach(), load_npy(fixture(n + ".param." + p.name)));
        AttentionResult r = causal ? mha.forward(xq, Mask::causal(xq.size(1))) : mha.forward(xq, xkv, xkv);
        CHECK_THAT(r.output, IsCloseTo(load_npy(fixture(n + ".out")), 1e-5, 1e-5));
        CHECK_THAT(r.weights, IsCloseTo(load_npy(fixture(n + ".weights")), 1e-5, 1e-5));
        ((r.output * load_npy(fixture(n + ".r"))).sum() + (r.weights * load_npy(fixture(n + ".s"))).sum()).backward();
        CHECK_THAT(xq.grad(), IsCloseTo(load_npy(fixture(n + ".x_q.grad")), 1e-5, 1e-5));
        if (!causal) CHECK_THAT(xkv.grad(), IsCloseTo(load_npy(fixture(n + ".x_kv.grad")), 1e-5, 1e-5));
        for (auto& p : mha.named_parameters()) {
            INFO("parameter " << p.name);
            CHECK_THAT(p.tensor.grad(), IsCloseTo(load_npy(fixture(n + ".grad." + p.name)), 1e-5, 1e-5));
        }
    }
}

TEST_CASE("the attention trace records every layer's weights", "[nn][attention][trace]") {
    AttentionTrace trace;
    MultiHeadAttention a(8, 2), b(8, 2);
    a.set_trace(&trace, 0);
    b.set_trace(&trace, 1);
    Tensor x = randn({1, 3, 8});
    b.forward(a.forward(x).output);
    CHECK(trace.layers.empty());  // off by default
    trace.enabled = true;
    AttentionResult rb = b.forward(a.forward(x).output);
    REQUIRE(trace.layers.size() == 2);
    CHECK(trace.layers[1].shape() == Shape{1, 2, 3, 3});
    CHECK(bit_identical(trace.layers[1], rb.weights));
}

TEST_CASE("MultiHeadAttention takes the fused path unless someone asks for the weights", "[nn][attention][mha][flash]") {
    Generator g(21);
    MultiHeadAttention mha(16, 4, 0, 0, g);
    CHECK(mha.last_path().path == AttentionPath::none);
    Tensor x = randn({2, 9, 16}, kFloat32, g).requires_grad_();
    const Mask mask = Mask::causal(9) & Mask::padding({9, 5}, 9);

    AttentionResult composed = mha.forward(x, mask);  // forward returns the weights
    CHECK(mha.last_path().path == AttentionPath::composed);
    CHECK_THAT(mha.last_path().reason, Catch::Contains("returns the weights"));
    REQUIRE(composed.weights.defined());
    composed.output.sum().backward();
    const Tensor dx_composed = x.grad(), dwq_composed = mha.w_q.weight.grad();

    x.zero_grad(), mha.zero_grad();
    const Tensor fused = mha.forward_output(x, mask);
    CHECK(mha.last_path().path == AttentionPath::fused);
    CHECK(std::string(attention_path_name(mha.last_path().path)) == "fused");
    CHECK_THAT(fused, IsCloseTo(composed.output, 1e-6, 1e-5));
    fused.sum().backward();
    CHECK_THAT(x.grad(), IsCloseTo(dx_composed, 1e-6, 1e-5));
    CHECK_THAT(mha.w_q.weight.grad(), IsCloseTo(dwq_composed, 1e-6, 1e-5));

    SECTION("an enabled trace asks for the weights too") {
        AttentionTrace trace;
        mha.set_trace(&trace, 0);
        mha.forward_output(x, mask);
        CHECK(mha.last_path().path == AttentionPath::fused);
        CHECK_THAT(mha.last_path().reason, Catch::Contains("nobody asked"));
        trace.enabled = true;
        mha.forward_output(x, mask);
        CHECK(mha.last_path().path == AttentionPath::composed);
        CHECK_THAT(mha.last_path().reason, Catch::Contains("trace"));
        CHECK(trace.layers.at(0).defined());
    }
}

TEST_CASE("a Transformer trains on the fused path and traces on the composed one", "[nn][attention][flash]") {
    TransformerConfig c;
    c.vocab_size = 11, c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.context = 8;
    Transformer model(c, 3);
    Tensor ids = from_vector(std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}, {1, 8});
    const Tensor fused = model.forward(ids);
    for (const auto& b : model.blocks) CHECK(b->attn.last_path().path == AttentionPath::fused);
    model.trace().enabled = true;
    const Tensor traced = model.forward(ids);
    for (const auto& b : model.blocks) CHECK(b->attn.last_path().path == AttentionPath::composed);
    CHECK_THAT(fused, IsCloseTo(traced, 1e-5, 1e-5));
    // phase 2 calls a block's layer directly and reads its weights
    model.trace().enabled = false;
    CHECK(model.blocks[0]->attn.forward(randn({1, 4, 16})).weights.defined());
    CHECK(model.blocks[0]->attn.last_path().path == AttentionPath::composed);
}

namespace {
// The ops named `name` in the graph that produced t (each node once).
int count_ops(const Tensor& t, const std::string& name) {
    std::vector<Node*> todo, seen;
    if (t.impl()->grad_fn) todo.push_back(t.impl()->grad_fn.get());
    int count = 0;
    while (!todo.empty()) {
        Node* n = todo.back();
        todo.pop_back();
        if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
        seen.push_back(n);
        count += name == n->name;
        for (const Tensor& in : n->inputs)
            if (in.defined() && in.impl()->grad_fn) todo.push_back(in.impl()->grad_fn.get());
    }
    return count;
}
}  // namespace

TEST_CASE("attention dropout: off in eval mode, one weighted sum in training", "[nn][attention][mha][dropout]") {
    Generator init(3), drops(4);
    MultiHeadAttention mha(16, 2, 0, 0, init);
    const Tensor x = randn({2, 5, 16}, kFloat32, init);
    mha.eval();
    const Tensor plain = mha.forward(x).output;
    mha.dropout = 0.5, mha.dropout_gen = &drops;
    CHECK(bit_identical(mha.forward(x).output, plain));         // eval mode never drops
    CHECK_THAT(mha.forward_output(x), IsCloseTo(plain, 1e-5));  // the fused path: eval mode, no dropout either

    mha.train();
    const AttentionResult dropped = mha.forward(x);
    CHECK_FALSE(bit_identical(dropped.output, plain));  // training does drop
    mha.dropout = 0;
    const AttentionResult kept = mha.forward(x);
    CHECK(bit_identical(kept.output, plain));
    // The output's graph: four projections (W_Q, W_K, W_V, W_O: each one "linear" op, the
    // product and its bias fused), q kᵀ and one weighted sum of the values, with dropout as
    // without. (An unused second sum would not be in the graph: the code computes only the
    // weights before dropping them, nn::attention_weights.)
    CHECK(count_ops(kept.output, "linear") == 4);
    CHECK(count_ops(kept.output, "matmul") == 2);
    CHECK(count_ops(dropped.output, "matmul") == count_ops(kept.output, "matmul"));
    CHECK(bit_identical(dropped.weights, kept.weights));  // the weights returned are the undropped ones

    // The bias-free single head: no W_O at all, 3·d² parameters.
    MultiHeadAttention head(16, 1, 0, 0, init, true);
    CHECK_FALSE(head.w_o.has_value());
    CHECK(head.parameter_count() == 3 * 16 * 16);
}
