// test_gru.cpp — GRUCell and GRU: PyTorch's equations and layout, the fused kernel
// against the composed reference, gradcheck through a 50-step unroll, padding.
#include <catch2/catch.hpp>

#include "nn/gru.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tests/support/gradcheck_helpers.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::check_gradients;
using attnlab::testing::IsCloseTo;

namespace {
Generator gen(5);
Tensor input(const Shape& s) { return attnlab::testing::grad_input(gen, s); }
Tensor fixture(const std::string& name) {
    return load_npy(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/gru/" + name + ".npy");
}
void load_params(GRUCell& cell, const std::string& prefix) {
    for (auto& p : cell.named_parameters()) copy_(p.tensor.detach(), fixture(prefix + "." + p.name));
}
void check_param_grads(const GRUCell& cell, const std::string& prefix) {
    for (auto& p : cell.named_parameters()) {
        INFO("parameter " << p.name);
        CHECK_THAT(p.tensor.grad(), IsCloseTo(fixture(prefix + "." + p.name + ".grad"), 1e-10, 1e-10));
    }
}
}  // namespace

TEST_CASE("GRUCell matches torch.nn.GRUCell: output and every gradient", "[nn][gru][pytorch]") {
    GRUCell cell(5, 4);
    CHECK(cell.weight_ih.shape() == Shape{12, 5});  // [3h, in], gates stacked (r, z, n)
    CHECK(cell.weight_hh.shape() == Shape{12, 4});
    cell.to(kFloat64);
    load_params(cell, "cell");
    for (bool fused : {false, true}) {
        INFO((fused ? "fused" : "composed"));
        cell.zero_grad();
        Tensor x = fixture("cell.x").requires_grad_(), h = fixture("cell.h").requires_grad_();
        Tensor gx = cell.input_gates(x);
        Tensor out = fused ? cell.step(gx, h) : cell.step_composed(gx, h);
        CHECK_THAT(out, IsCloseTo(fixture("cell.out"), 1e-12));
        (out * fixture("cell.r")).sum().backward();
        CHECK_THAT(x.grad(), IsCloseTo(fixture("cell.x.grad"), 1e-10, 1e-10));
        CHECK_THAT(h.grad(), IsCloseTo(fixture("cell.h.grad"), 1e-10, 1e-10));
        check_param_grads(cell, "cell");
    }
}

TEST_CASE("GRU over a sequence matches torch.nn.GRU(batch_first=True)", "[nn][gru][pytorch]") {
    GRU gru(5, 4);
    gru.to(kFloat64);
    load_params(gru.cell, "seq");
    for (bool fused : {false, true}) {
        INFO((fused ? "fused" : "composed"));
        gru.zero_grad();
        Tensor x = fixture("seq.x").requires_grad_(), h0 = fixture("seq.h0").requires_grad_();
        GRUOutput o = fused ? gru.forward(x, h0) : gru.forward_composed(x, h0);
        CHECK_THAT(o.outputs, IsCloseTo(fixture("seq.out"), 1e-12));
        CHECK_THAT(o.last, IsCloseTo(fixture("seq.h_n"), 1e-12));
        (o.outputs * fixture("seq.r")).sum().backward();
        CHECK_THAT(x.grad(), IsCloseTo(fixture("seq.x.grad"), 1e-10, 1e-10));
        CHECK_THAT(h0.grad(), IsCloseTo(fixture("seq.h0.grad"), 1e-10, 1e-10));
        check_param_grads(gru.cell, "seq");
    }
}

TEST_CASE("gradcheck: GRU cell, composed and fused", "[nn][gru][gradcheck]") {
    GRUCell cell(3, 4, gen);
    cell.to(kFloat64);
    std::vector<Tensor> xs{input({2, 12}), input({2, 4})};
    for (auto& p : cell.parameters()) xs.push_back(p);
    check_gradients([&](const std::vector<Tensor>& x) { return cell.step_composed(x[0], x[1]); }, xs);
    check_gradients([&](const std::vector<Tensor>& x) { return cell.step(x[0], x[1]); }, xs);
}

TEST_CASE("gradcheck: backward through a 50-step unroll", "[nn][gru][gradcheck]") {
    // Small widths keep the finite differences affordable (each is two runs of 50 steps).
    GRU gru(2, 3, gen);
    gru.to(kFloat64);
    std::vector<Tensor> xs{input({2, 50, 2}), input({2, 3})};
    for (auto& p : gru.parameters()) xs.push_back(p);
    // Loss on the last state and on every output, so gradients cross all 50 steps.
    auto loss = [&](bool fused) {
        return [&, fused](const std::vector<Tensor>& x) {
            GRUOutput o = fused ? gru.forward(x[0], x[1]) : gru.forward_composed(x[0], x[1]);
            return cat({o.outputs.reshape({2, 150}), o.last}, 1);
        };
    };
    check_gradients(loss(false), xs);
    check_gradients(loss(true), xs);
    // The gradient does reach step 0: the first input's gradient is not zero.
    Tensor x0 = xs[0].detach().clone().requires_grad_();
    gru.forward(x0, xs[1].detach()).last.sum().backward();
}

TEST_CASE("fused GRU equals the composed reference, with padding", "[nn][gru]") {
    GRU gru(4, 6, gen);
    gru.to(kFloat64);
    const std::vector<std::int64_t> lengths{5, 2, 3};
    std::vector<Tensor> xs{input({3, 5, 4}), input({3, 6})};
    for (auto& p : gru.parameters()) xs.push_back(p);
    GRUOutput a = gru.forward(xs[0], xs[1], lengths), b = gru.forward_composed(xs[0], xs[1], lengths);
    CHECK_THAT(a.outputs, IsCloseTo(b.outputs, 1e-12));
    CHECK_THAT(a.last, IsCloseTo(b.last, 1e-12));
    // Past its length a sequence outputs zeros, and `last` is its state at length − 1.
    CHECK_THAT(a.outputs.select(0, 1).narrow(0, 2, 3), IsCloseTo(zeros({3, 6}, kFloat64)));
    CHECK_THAT(a.last.select(0, 1), IsCloseTo(a.outputs.select(0, 1).select(0, 1), 0));
    // Padding changes nothing: sequence 1 alone, unpadded, gives the same state.
    GRUOutput alone = gru.forward(xs[0].narrow(0, 1, 1).narrow(1, 0, 2), xs[1].narrow(0, 1, 1));
    CHECK_THAT(alone.last, IsCloseTo(a.last.narrow(0, 1, 1), 1e-12));
    for (bool fused : {false, true})
        check_gradients([&, fused](const std::vector<Tensor>& x) {
            GRUOutput o = fused ? gru.forward(x[0], x[1], lengths) : gru.forward_composed(x[0], x[1], lengths);
            return cat({o.outputs.reshape({3, 30}), o.last}, 1);
        }, xs);
    CHECK_THROWS_AS(gru.forward(xs[0], xs[1], {5, 0, 3}), ValueError);
    CHECK_THROWS_AS(gru.forward(xs[0], xs[1], {5, 2}), ShapeError);
    CHECK_THROWS_AS(gru.cell.step(zeros({3, 17}, kFloat64), xs[1]), ShapeError);
}
