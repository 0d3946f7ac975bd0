// test_packed_weights.cpp — B packed ahead of time (gemm_pack_b) and the cache of
// packed weights behind matmul (tensor/packed_weights.hpp).
//
// Exact comparisons throughout: a packed B must give the very bits of the unpacked
// product, and the cache must never serve a packing of contents that have changed
// since. A stale cache shows up as the old weight's product, far from the new one.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "autograd/node.hpp"
#include "nn/layers.hpp"
#include "nn/optim.hpp"
#include "tensor/gemm.hpp"
#include "tensor/ops.hpp"
#include "tensor/packed_weights.hpp"
#include "tensor/parallel.hpp"
#include "tensor/rng.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using attnlab::testing::bit_identical;

namespace {

struct Threads {
    int saved = num_threads();
    explicit Threads(int n) { set_num_threads(n); }
    ~Threads() { set_num_threads(saved); }
};

// x @ W over a fresh copy of W: a storage the cache has never seen, so packed on the spot.
Tensor uncached(const Tensor& x, const Tensor& w_t) { return matmul(x, w_t.clone()); }

// The product a cached packing gives is the product a fresh operand gives. With the built-in
// GEMM, whose packing this file tests, that holds bit for bit. With BLAS=openblas every
// product goes to OpenBLAS, which packs B itself and picks its kernels by the operands'
// layout and alignment, so a copy of an operand can round differently: equal within float
// rounding, as docs/performance.md says of OpenBLAS's sums.
bool same_product(const Tensor& y, const Tensor& fresh) {
#ifdef ATTNLAB_OPENBLAS
    return max(abs(sub(y, fresh))).item() <= 1e-5 * (1.0 + max(abs(fresh)).item());
#else
    return bit_identical(y, fresh);
#endif
}

}  // namespace

TEMPLATE_TEST_CASE("gemm with a packed B gives the bits of gemm without", "[gemm][packed]", float, double) {
    // K 300 spans two KC slices; N 4200 two NC panels and a part sliver; M 30 several row tiles.
    const int64_t M = GENERATE(1, 30), N = GENERATE(5, 67, 4200), K = GENERATE(3, 300);
    const int threads = GENERATE(1, 2);
    const bool column_major_b = GENERATE(false, true);  // Wᵀ in a Linear's forward
    Threads guard(threads);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<TestType> A(M * K), B(K * N), C0(M * N), C1(M * N);
    for (auto& a : A) a = static_cast<TestType>(u(rng));
    for (auto& b : B) b = static_cast<TestType>(u(rng));
    const int64_t b_rs = column_major_b ? 1 : N, b_cs = column_major_b ? K : 1;
    const PackedB<TestType> packed = gemm_pack_b<TestType>(K, N, B.data(), b_rs, b_cs);
    for (bool accumulate : {false, true}) {
        for (int64_t i = 0; i < M * N; ++i) C0[i] = C1[i] = static_cast<TestType>(i % 7);
        gemm<TestType>(M, N, K, A.data(), K, 1, B.data(), b_rs, b_cs, C0.data(), N, accumulate);
        gemm<TestType>(M, N, K, A.data(), K, 1, B.data(), b_rs, b_cs, &packed, C1.data(), N, accumulate);
        INFO("M=" << M << " N=" << N << " K=" << K << " threads=" << threads << " accumulate=" << accumulate);
        CHECK(std::memcmp(C0.data(), C1.data(), C0.size() * sizeof(TestType)) == 0);
    }
}

TEST_CASE("gemm rejects a packed B of another shape", "[gemm][packed]") {
    std::vector<float> A(6 * 8, 1.f), B(8 * 5, 1.f), C(6 * 5);
    const PackedB<float> packed = gemm_pack_b<float>(8, 4, B.data(), 5, 1);
    CHECK_THROWS_WITH(gemm<float>(6, 5, 8, A.data(), 8, 1, B.data(), 5, 1, &packed, C.data(), 5, false),
                      Catch::Contains("gemm: packed B") && Catch::Contains("N=4"));
}

TEST_CASE("matmul serves a weight's packing from the cache until the weight is written", "[matmul][packed]") {
    NoGradGuard no_grad;
    manual_seed(3);
    const Tensor x = randn({2, 7, 64});
    const Tensor w = randn({48, 64});  // a Linear's weight [out, in]; the product is x @ Wᵀ
    auto expect_fresh = [&](const Tensor& y) { CHECK(same_product(y, uncached(x, w.mT()))); };

    const std::int64_t hits_before = packed_b_hits();
    const Tensor y0 = matmul(x, w.mT());  // first sighting: remembered, packed on the spot
    const Tensor y1 = matmul(x, w.mT());  // second: packed into the cache
    CHECK(packed_b_hits() == hits_before);
    const Tensor y2 = matmul(x, w.mT());  // served from the cache
    CHECK(packed_b_hits() == hits_before + 1);
    expect_fresh(y0);
    CHECK(bit_identical(y1, y0));
    CHECK(bit_identical(y2, y0));

    SECTION("a write through data_ptr") {
        w.data_ptr<float>()[5 * 64 + 3] += 1.0f;  // W[5, 3]: column 5 of every output row moves
        const Tensor y = matmul(x, w.mT());
        CHECK(packed_b_hits() == hits_before + 1);  // not served from the stale packing
        expect_fresh(y);
        CHECK_FALSE(bit_identical(y, y0));
        CHECK(y.at({0, 0, 5}) - y0.at({0, 0, 5}) == Approx(x.at({0, 0, 3})).margin(1e-5));
    }
    SECTION("a read through const_data_ptr keeps the packing; data_ptr, which may write, drops it") {
        CHECK(w.const_data_ptr<float>()[5 * 64 + 3] == static_cast<float>(w.at({5, 3})));
        CHECK(bit_identical(matmul(x, w.mT()), y0));
        CHECK(packed_b_hits() == hits_before + 2);  // still the cached packing
        (void)w.data_ptr<float>();                  // no write, but nothing says so
        CHECK(bit_identical(matmul(x, w.mT()), y0));
        CHECK(packed_b_hits() == hits_before + 2);  // packed afresh, not served
    }
    SECTION("copy_ and fill_") {
        const Tensor other = randn({48, 64});
        copy_(w, other);
        expect_fresh(matmul(x, w.mT()));
        CHECK(same_product(matmul(x, w.mT()), uncached(x, other.mT())));
        fill_(w, 0.5);
        const Tensor y = matmul(x, w.mT());
        expect_fresh(y);
        CHECK(y.at({1, 6, 47}) == Approx(0.5 * x.select(0, 1).select(0, 6).sum().item()).margin(1e-4));
    }
    SECTION("the same storage read with other strides is another operand") {
        const Tensor square = randn({64, 64});
        const Tensor a = matmul(x, square.mT()), b = matmul(x, square.mT()), c = matmul(x, square);
        CHECK(same_product(c, uncached(x, square)));
        CHECK(bit_identical(a, b));
        CHECK_FALSE(bit_identical(a, c));
    }
}

TEST_CASE("an optimizer step invalidates the cached packing of a Linear's weight", "[matmul][packed][optim]") {
    manual_seed(5);
    nn::Linear layer(64, 32, /*bias=*/false);
    nn::AdamW opt(layer.named_parameters(), 1e-2);
    const Tensor x = randn({4, 64});
    for (int step = 0; step < 3; ++step) {
        Tensor before;
        {
            NoGradGuard no_grad;  // generation-style forwards: the cache fills up
            for (int i = 0; i < 3; ++i) before = layer.forward(x);
            CHECK(same_product(before, uncached(x, layer.weight.mT())));
        }
        opt.zero_grad();
        (layer.forward(x) * layer.forward(x)).sum().backward();
        opt.step();
        NoGradGuard no_grad;
        const Tensor after = layer.forward(x);
        CHECK(same_product(after, uncached(x, layer.weight.mT())));
        CHECK_FALSE(bit_identical(after, before));
    }
}
