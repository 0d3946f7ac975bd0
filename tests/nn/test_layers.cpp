// test_layers.cpp — Module bookkeeping and the basic layers, with gradchecks.
#include <catch2/catch.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "autograd/node.hpp"
#include "tests/support/gradcheck_helpers.hpp"
#include "nn/layers.hpp"
#include "tensor/ops.hpp"
#include "tensor/allocator.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "tests/support/thread_count.hpp"

using namespace attnlab;
using attnlab::testing::check_gradients;
using namespace attnlab::nn;
using attnlab::testing::IsCloseTo;

namespace {
Generator gen(11);
Tensor input(const Shape& s) { return attnlab::testing::grad_input(gen, s); }
std::vector<Tensor> with_params(std::vector<Tensor> xs, const Module& m) {
    for (auto& p : m.parameters()) xs.push_back(p);
    return xs;
}
}  // namespace

TEST_CASE("named parameters come in a stable, dotted order", "[nn][module]") {
    MLP mlp(4, 16);
    std::vector<std::string> names;
    for (auto& p : mlp.named_parameters()) names.push_back(p.name);
    CHECK(names == std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"});
    CHECK(mlp.parameter_count() == 4 * 16 + 16 + 16 * 4 + 4);
    CHECK(mlp.fc1.weight.shape() == Shape{16, 4});  // [out, in], as PyTorch
    mlp.eval();
    CHECK_FALSE(mlp.fc2.is_training());
    mlp.to(kFloat64);
    CHECK(mlp.named_parameters()[2].tensor.dtype() == kFloat64);
    CHECK(mlp.fc2.weight.dtype() == kFloat64);  // the member handle sees the conversion too
}

TEST_CASE("Linear follows PyTorch's init bound and formula", "[nn][layers]") {
    Linear lin(100, 50);
    const double bound = 1.0 / std::sqrt(100.0);
    CHECK(max(abs(lin.weight)).item() <= bound);
    CHECK(max(abs(lin.weight)).item() > 0.9 * bound);  // uniform over the whole range, not a narrower one
    Tensor x = randn({3, 100});
    CHECK_THAT(lin.forward(x), IsCloseTo(matmul(x, lin.weight.mT()) + lin.bias, 1e-6));
    CHECK_THROWS_WITH(lin.forward(zeros({3, 99})), Catch::Contains("[3, 99]") && Catch::Contains("100"));
}

TEST_CASE("LayerNorm normalises the last dim", "[nn][layers]") {
    LayerNorm ln(8);
    Tensor y = ln.forward(randn({4, 8}) * 3.0 + 2.0);
    CHECK_THAT(y.mean(-1), IsCloseTo(zeros({4}), 1e-5));
    CHECK_THAT(var(y, -1, false, 0), IsCloseTo(ones({4}), 1e-3));  // 1 − eps/var
}

TEST_CASE("Dropout zeroes about p of the entries in train mode only", "[nn][layers]") {
    Dropout drop(0.25, 3);
    Tensor y = drop.forward(ones({10000}));
    const double kept = gt(y, zeros({})).sum().item() / 10000.0;
    CHECK(kept == Approx(0.75).margin(0.02));
    CHECK(y.sum().item() / 10000.0 == Approx(1.0).margin(0.03));  // expectation preserved
    drop.eval();
    CHECK_THAT(drop.forward(ones({5})), IsCloseTo(ones({5})));
    CHECK_THROWS_AS(Dropout(1.0), ValueError);
}

TEST_CASE("gradcheck: Linear, Embedding, LayerNorm, MLP", "[nn][layers][gradcheck]") {
    Linear lin(5, 3);
    lin.to(kFloat64);
    check_gradients([&](const std::vector<Tensor>& x) { return lin.forward(x[0]); }, with_params({input({2, 4, 5})}, lin));

    Embedding emb(6, 4);
    emb.to(kFloat64);
    Tensor ids = from_vector<std::int64_t>({1, 5, 1, 0}, {2, 2});
    check_gradients([&](const std::vector<Tensor>&) { return emb.forward(ids); }, with_params({}, emb));

    LayerNorm ln(6);
    ln.to(kFloat64);
    fill_(ln.weight.detach(), 1.3);  // off the init so weight and bias gradients differ from trivial
    check_gradients([&](const std::vector<Tensor>& x) { return ln.forward(x[0]); }, with_params({input({3, 6})}, ln));

    MLP mlp(4, 8);
    mlp.to(kFloat64);
    check_gradients([&](const std::vector<Tensor>& x) { return mlp.forward(x[0]); }, with_params({input({3, 4})}, mlp));
}

TEST_CASE("fused layer_norm equals the composed reference, forward and backward", "[nn][layers][layernorm]") {
    Generator g(8);
    Tensor x = uniform({3, 5, 16}, -2, 2, kFloat64, g), w = uniform({16}, 0.5, 1.5, kFloat64, g), b = uniform({16}, -1, 1, kFloat64, g);
    Tensor r = randn({3, 5, 16}, kFloat64, g);
    std::vector<Tensor> fused{x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()};
    std::vector<Tensor> ref{x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()};
    Tensor yf = layer_norm(fused[0], fused[1], fused[2]), yr = layer_norm_reference(ref[0], ref[1], ref[2]);
    CHECK_THAT(yf, IsCloseTo(yr, 1e-12));
    (yf * r).sum().backward();
    (yr * r).sum().backward();
    for (int i = 0; i < 3; ++i) {
        INFO("input " << i);
        CHECK_THAT(fused[static_cast<std::size_t>(i)].grad(), IsCloseTo(ref[static_cast<std::size_t>(i)].grad(), 1e-12));
    }
    check_gradients([](const std::vector<Tensor>& v) { return layer_norm(v[0], v[1], v[2]); },
                    {input({4, 6}), input({6}), input({6})});
    CHECK_THROWS_WITH(layer_norm(zeros({2, 5}), ones({4}), zeros({4})), Catch::Contains("[2, 5]") && Catch::Contains("[4]"));
}

// float32 at a width that is no multiple of the vector length (the row loops' vector body and
// tail both run), with weight and bias given as strided views: layer_norm must hold their
// contiguous copies for the whole op: a pointer into a temporary copy reads freed memory, and
// this case fails.
TEST_CASE("fused layer_norm in float32 with strided weight and bias equals the reference", "[nn][layers][layernorm]") {
    Generator g(9);
    const std::int64_t d = 37;
    Tensor x = uniform({4, 3, d}, -2, 2, kFloat32, g), r = randn({4, 3, d}, kFloat32, g);
    Tensor w2 = uniform({d, 2}, 0.5, 1.5, kFloat32, g), b2 = uniform({d, 2}, -1, 1, kFloat32, g);
    Tensor w = w2.select(1, 1), b = b2.select(1, 0);  // stride 2: not contiguous
    REQUIRE_FALSE(w.is_contiguous());
    std::vector<Tensor> fused{x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()};
    Tensor yf = layer_norm(x, w, b), yr = layer_norm_reference(x, w, b);
    CHECK_THAT(yf, IsCloseTo(yr, 1e-5));
    Tensor yg = layer_norm(fused[0], fused[1], fused[2]);
    std::vector<Tensor> ref{x.clone().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()};
    (yg * r).sum().backward();
    (layer_norm_reference(ref[0], ref[1], ref[2]) * r).sum().backward();
    for (std::size_t i = 0; i < 3; ++i) {
        INFO("input " << i);
        CHECK_THAT(fused[i].grad(), IsCloseTo(ref[i].grad(), 2e-4));
    }
}

// layer_norm works on a block of rows at a time (forward: mean of each, then variance of
// each, then the outputs, 8 rows to a block; backward: the sums of 4 float rows side by
// side); every row must come out as it would alone, its output and its dx. Row counts
// around both blocks, widths with and without a vector tail, float32 and float64, bit for bit.
TEST_CASE("fused layer_norm gives each row the bits it gets alone, whatever block it falls in", "[nn][layers][layernorm]") {
    Generator g(10);
    // float32 -> float64 is exact, so equal doubles bit for bit mean equal floats
    auto bits = [](const Tensor& t) {
        std::vector<std::uint64_t> out;
        for (const double v : t.to(kFloat64).to_vector<double>()) out.push_back(std::bit_cast<std::uint64_t>(v));
        return out;
    };
    for (DType dtype : {kFloat32, kFloat64})
        for (std::int64_t d : {64, 37})
            for (std::int64_t rows : {1, 3, 4, 5, 7, 8, 9, 17}) {
                const Tensor x = uniform({rows, d}, -3, 3, dtype, g), gy = uniform({rows, d}, -1, 1, dtype, g);
                const Tensor w = uniform({d}, 0.5, 1.5, dtype, g), b = uniform({d}, -1, 1, dtype, g);
                Tensor xg = x.clone().requires_grad_();
                const Tensor y = layer_norm(xg, w, b);
                y.backward(gy);
                const std::vector<std::uint64_t> y_bits = bits(y.detach()), dx_bits = bits(xg.grad());
                for (std::int64_t r = 0; r < rows; ++r) {
                    INFO(dtype_name(dtype) << " d = " << d << ", rows = " << rows << ", row " << r);
                    Tensor xr = x.narrow(0, r, 1).clone().requires_grad_();
                    const Tensor yr = layer_norm(xr, w, b);
                    yr.backward(gy.narrow(0, r, 1).contiguous());
                    const std::vector<std::uint64_t> y_alone = bits(yr.detach()), dx_alone = bits(xr.grad());
                    for (std::int64_t j = 0; j < d; ++j) {
                        CHECK(y_alone[static_cast<std::size_t>(j)] == y_bits[static_cast<std::size_t>(r * d + j)]);
                        CHECK(dx_alone[static_cast<std::size_t>(j)] == dx_bits[static_cast<std::size_t>(r * d + j)]);
                    }
                }
            }
}

TEST_CASE("fused layer_norm: the same bits on 1 and 2 threads, forward and backward", "[nn][layers][layernorm]") {
    // [1200, 128]: W7's rows and more, enough that two threads split the rows (and dw's columns)
    Generator g(13);
    const Tensor x0 = uniform({12, 100, 128}, -3, 3, kFloat32, g), w0 = uniform({128}, 0.5, 1.5, kFloat32, g),
                 b0 = uniform({128}, -1, 1, kFloat32, g), gy = uniform({12, 100, 128}, -1, 1, kFloat32, g);
    auto run = [&](int threads) {
        attnlab::testing::ThreadCount t(threads);
        Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
        Tensor y = layer_norm(x, w, b);
        y.backward(gy);
        return std::vector<Tensor>{y.detach(), x.grad(), w.grad(), b.grad()};
    };
    const std::vector<Tensor> one = run(1), two = run(2);
    for (std::size_t i = 0; i < one.size(); ++i) {
        INFO("y, dx, dw, db: " << i);
        CHECK(attnlab::testing::bit_identical(one[i], two[i]));
    }
    CHECK_THAT(one[2], IsCloseTo(sum(gy * ((x0 - x0.mean(-1, true)) / sqrt(var(x0, -1, true, 0) + 1e-5)), {0, 1}), 1e-3, 1e-4));
}

TEST_CASE("fused layer_norm in inference saves nothing for backward, with the bits of the recorded op", "[nn][layers][layernorm]") {
    Generator g(12);
    const Tensor x = uniform({6, 32}, -3, 3, kFloat32, g);
    Tensor w = uniform({32}, 0.5, 1.5, kFloat32, g).requires_grad_(), b = uniform({32}, -1, 1, kFloat32, g).requires_grad_();
    const Tensor recorded = layer_norm(x, w, b);
    NoGradGuard no_grad;
    Tensor inferred;
    // The output alone (6 × 32 floats); recording also keeps each row's mean and 1/σ.
    const double bytes = peak_extra_storage_bytes([&] { inferred = layer_norm(x, w, b); });
    CHECK(bytes == 6 * 32 * sizeof(float));
    CHECK(attnlab::testing::bit_identical(inferred, recorded.detach()));
}

TEST_CASE("Linear in inference adds its bias inside the product, with the bits of the recorded graph", "[nn][layers]") {
    Linear lin(16, 24);
    const Tensor x = randn({2, 5, 16});
    const Tensor recorded = lin.forward(x);  // the parameters require grad: the fused op with its backward
    REQUIRE(recorded.requires_grad());
    REQUIRE(recorded.grad_fn_name() == std::string("linear"));
    NoGradGuard no_grad;
    const Tensor inferred = lin.forward(x);  // gemm's column bias
    CHECK_FALSE(inferred.requires_grad());
    CHECK(attnlab::testing::bit_identical(inferred, recorded.detach()));
    CHECK_FALSE(attnlab::testing::bit_identical(inferred, matmul(x, lin.weight.mT())));  // the bias is there
    // x as a transposed view (one gemm per batch element, then the bias added): the same bits
    // with the built-in gemm, which sums each element alike however the rows are grouped.
    const Tensor xt = x.transpose(0, 1).contiguous().transpose(0, 1);
    REQUIRE_FALSE(xt.is_contiguous());
#ifdef ATTNLAB_OPENBLAS
    // OpenBLAS orders its sums its own way for each shape (CI's openblas suite saw one
    // product of 10 rows and two of 5 differ in the last bits), so there only the values.
    CHECK_THAT(lin.forward(xt), attnlab::testing::IsCloseTo(inferred, 1e-5, 1e-5));
#else
    CHECK(attnlab::testing::bit_identical(lin.forward(xt), inferred));
#endif
    CHECK_THROWS_WITH(linear(x, lin.weight, zeros({23})), Catch::Contains("linear") && Catch::Contains("[23]"));
    // A weight that is itself a strided view ([24, 16] read from a [16, 24] buffer): gemm
    // reads Wᵀ through its strides, the same bits as the product and the sum as two ops.
    const Tensor w_view = randn({16, 24}).mT(), b = randn({24});
    CHECK(attnlab::testing::bit_identical(linear(x, w_view, b), matmul(x, w_view.mT()) + b));
}

// LayerNorm sums a float row as lane_sum does (layer_norm.cpp), 8 interleaved double
// partial sums added up in lane order at the end: the mean, then the squares about it.
// Written out here one element at a time, the forward must give the same bits, for d a
// power of two (64: the mean as a product by 1/d) and not (37, with a tail of 5). Each sum
// of squares is written as one expression `s += (x − m)·(x − m)`, as layer_norm.cpp writes
// it, so that a compiler that fuses such an expression into one multiply-add (GCC at -O2,
// clang at any -O) fuses both alike, and one that does not (GCC at -O1: make asan) neither.
TEST_CASE("fused layer_norm's float forward sums each row in lane_sum's order, bit for bit", "[nn][layers][layernorm]") {
    for (const std::int64_t d : {64, 37}) {
        Generator g(3);
        const Tensor x = uniform({9, d}, -3, 3, kFloat32, g), w = uniform({d}, 0.5, 1.5, kFloat32, g),
                     b = uniform({d}, -1, 1, kFloat32, g);
        const std::vector<float> xs = x.to_vector<float>(), ws = w.to_vector<float>(), bs = b.to_vector<float>();
        std::vector<float> want;
        for (std::int64_t r = 0; r < 9; ++r) {
            const float* row = xs.data() + r * d;
            const std::int64_t whole = d / 8 * 8;  // the lanes' part; the rest is the tail
            double lane[8] = {}, s = 0;
            for (std::int64_t j = 0; j < whole; ++j) lane[j % 8] += static_cast<double>(row[j]);
            for (std::int64_t j = whole; j < d; ++j) s += static_cast<double>(row[j]);
            for (int l = 0; l < 8; ++l) s += lane[l];
            const double m = s / static_cast<double>(d);
            double sq[8] = {}, ss = 0;
            for (std::int64_t j = 0; j < whole; ++j) sq[j % 8] += (row[j] - m) * (row[j] - m);
            for (std::int64_t j = whole; j < d; ++j) ss += (row[j] - m) * (row[j] - m);
            for (int l = 0; l < 8; ++l) ss += sq[l];
            const double inv = 1.0 / std::sqrt(ss / static_cast<double>(d) + 1e-5);
            for (std::int64_t j = 0; j < d; ++j)
                want.push_back(static_cast<float>((row[j] - m) * inv) * ws[static_cast<std::size_t>(j)] + bs[static_cast<std::size_t>(j)]);
        }
        INFO("d = " << d);
        CHECK(attnlab::testing::bit_identical(layer_norm(x, w, b), from_vector(want, {9, d})));
    }
}
