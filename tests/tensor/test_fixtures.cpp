// test_fixtures.cpp — attnlab against PyTorch, through committed reference arrays.
//
// tools/make_fixtures.py ran each case below in PyTorch and saved the inputs, the
// output and the gradients of L = Σ out ⊙ R. Here the same functions, written with
// attnlab ops, must reproduce them, read with attnlab's own .npy reader.
// Tolerance 1e-5 absolute + 1e-5 relative: both sides compute in float32, and the
// two libraries sum in different orders, so last-bit differences (~1e-7 relative,
// growing with the number of terms) are expected; a wrong formula is off by far more.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using attnlab::testing::IsCloseTo;

namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

std::string fixture(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/" + name + ".npy"; }

void check_against_pytorch(const std::string& name, std::size_t n_inputs, const Fn& f) {
    INFO("fixture case: " << name);
    std::vector<Tensor> xs;
    for (std::size_t i = 0; i < n_inputs; ++i)
        xs.push_back(load_npy(fixture(name + ".in" + std::to_string(i))).requires_grad_());
    Tensor out = f(xs);
    CHECK_THAT(out, IsCloseTo(load_npy(fixture(name + ".out")), 1e-5, 1e-5));
    (out * load_npy(fixture(name + ".r"))).sum().backward();
    for (std::size_t i = 0; i < n_inputs; ++i) {
        INFO("gradient of input " << i);
        CHECK_THAT(xs[i].grad(), IsCloseTo(load_npy(fixture(name + ".grad" + std::to_string(i))), 1e-5, 1e-5));
    }
}

Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal) {
    Tensor scores = matmul(q, k.mT()) / std::sqrt(static_cast<double>(q.size(-1)));
    if (causal) scores = masked_fill(scores, triu(ones({q.size(-2), k.size(-2)}), 1), -INFINITY);
    return matmul(softmax(scores, -1), v);
}

}  // namespace

TEST_CASE("ops and gradients match PyTorch on fixed inputs", "[tensor][fixtures][pytorch]") {
    using V = const std::vector<Tensor>&;
    check_against_pytorch("softmax", 1, [](V x) { return softmax(x[0], -1); });
    check_against_pytorch("log_softmax", 1, [](V x) { return log_softmax(x[0], 1); });
    check_against_pytorch("matmul_batched", 2, [](V x) { return matmul(x[0], x[1]); });
    check_against_pytorch("gelu", 1, [](V x) { return gelu(x[0]); });
    check_against_pytorch("tanh_sigmoid", 1, [](V x) { return tanh(x[0]) * sigmoid(x[0]); });
    check_against_pytorch("var_mean", 1, [](V x) { return var(x[0], 1) + x[0].mean(1); });
    check_against_pytorch("layer_norm", 3, [](V x) {
        Tensor centered = x[0] - x[0].mean(-1, true);
        Tensor normed = centered / sqrt(var(x[0], -1, true, /*correction=*/0) + 1e-5);
        return normed * x[1] + x[2];
    });
    check_against_pytorch("attention", 3, [](V x) { return attention(x[0], x[1], x[2], false); });
    check_against_pytorch("causal_attention", 3, [](V x) { return attention(x[0], x[1], x[2], true); });
}
