// test_flash_attention.cpp — the fused kernel against the composed formula.
//
// scaled_dot_product_attention (nn/attention.cpp) is the reference: for every mask
// the fused path must give the same output and the same dq, dk, dv (float32 within
// 1e-5 relative), pass float64 gradcheck, and give the same bits at 1 and 2 threads.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "autograd/node.hpp"
#include "nn/attention.hpp"
#include "nn/flash_attention.hpp"
#include "nn/flash_attention_tile.hpp"
#include "tensor/allocator.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/rng.hpp"
#include "tests/support/gradcheck_helpers.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::bit_identical;
using attnlab::testing::IsCloseTo;

namespace {

struct Grads3 {
    Tensor out, dq, dk, dv;
};

// Output and input gradients of `attend` for the upstream gradient g.
template <typename F>
Grads3 run(F attend, const Tensor& q0, const Tensor& k0, const Tensor& v0, const Tensor& g) {
    Tensor q = q0.detach().requires_grad_(), k = k0.detach().requires_grad_(), v = v0.detach().requires_grad_();
    Tensor out = attend(q, k, v);
    (out * g).sum().backward();
    return {out.detach(), q.grad(), k.grad(), v.grad()};
}

// |fused − composed| ≤ 1e-5·|composed| + 1e-6·max(max|composed|, 1): relative, with a floor
// of a millionth of the tensor's scale (at least 1: the inputs are O(1)) for entries that cancel to 0.
void check_same(const Tensor& fused, const Tensor& composed, const char* what) {
    INFO(what);
    const double scale = composed.numel() ? max(abs(composed)).item() : 0.0;
    CHECK_THAT(fused, IsCloseTo(composed, 1e-6 * std::max(scale, 1.0), 1e-5));
}

// The fused path's output and gradients for these inputs, each checked against the composed path's.
Grads3 fused_against_composed(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g, const Mask& mask) {
    Grads3 f = run([&](const Tensor& a, const Tensor& b, const Tensor& c) { return flash_attention(a, b, c, mask); }, q, k, v, g);
    Grads3 c = run([&](const Tensor& a, const Tensor& b, const Tensor& cc) { return scaled_dot_product_attention(a, b, cc, mask).output; },
                   q, k, v, g);
    check_same(f.out, c.out, "output");
    check_same(f.dq, c.dq, "dq");
    check_same(f.dk, c.dk, "dk");
    check_same(f.dv, c.dv, "dv");
    return f;
}

void compare(const Shape& qs, const Shape& ks, std::int64_t d_v, const Mask& mask, std::uint64_t seed) {
    Generator gen(seed);
    Tensor q = randn(qs, kFloat32, gen), k = randn(ks, kFloat32, gen);
    Shape vs = ks;
    vs[vs.size() - 1] = d_v;
    Tensor v = randn(vs, kFloat32, gen);
    Shape os = qs;
    os[os.size() - 1] = d_v;
    Tensor g = randn(os, kFloat32, gen);
    fused_against_composed(q, k, v, g, mask);
}

// Every mask of nn/mask.hpp for Tq queries against Tk keys, batch B.
std::vector<std::pair<std::string, Mask>> masks(std::int64_t B, std::int64_t Tq, std::int64_t Tk) {
    std::vector<std::int64_t> lengths;
    for (std::int64_t b = 0; b < B; ++b) lengths.push_back(b == B - 1 ? 0 : std::max<std::int64_t>(1, Tk - 3 * b));  // the last: all padding
    std::vector<float> rows(static_cast<std::size_t>(Tq * Tk), 1.0f);  // rows 0 and Tq − 1 fully blocked
    for (std::int64_t j = 0; j < Tk; ++j) rows[static_cast<std::size_t>(j)] = rows[static_cast<std::size_t>((Tq - 1) * Tk + j)] = 0.0f;
    return {{"none", Mask()},
            {"causal", Mask::causal(Tq, Tk)},
            {"padding", Mask::padding(lengths, Tk)},
            {"local", Mask::local(Tq, Tk, 5)},
            {"strided", Mask::strided(Tq, Tk, 3)},
            {"causal & padding & local", Mask::causal(Tq, Tk) & Mask::padding(lengths, Tk) & Mask::local(Tq, Tk, 40)},
            {"fully masked rows", Mask::from_allowed(from_vector(rows, {Tq, Tk}))},
            {"additive causal", Mask::from_additive(Mask::causal(Tq, Tk).additive())}};
}

bool all_finite(const Tensor& t) {
    for (float x : t.to_vector<float>())
        if (!std::isfinite(x)) return false;
    return true;
}

}  // namespace

// The tile product cuts C's rows into register tiles whose height depends on how many
// vectors wide the column block is (flash_attention_tile.hpp). Every height, and every
// remainder of rows a height leaves, must give each element the bits it gets when the
// product is taken one row and one vector at a time (the 1 × 1 tile), and the value of
// the sum over k (within float rounding of a float64 sum).
TEST_CASE("flash attention's tile product: every row count and width gives the bits of one row at a time", "[nn][flash]") {
    constexpr std::int64_t L = nn::detail::TileVec<float>::lanes;
    Generator gen(7);
    for (const std::int64_t N : {L, 2 * L, 3 * L, 4 * L, 5 * L, 7 * L})
        for (const std::int64_t K : {1, 5, 16, 33})
            for (std::int64_t M = 1; M <= 41; ++M)
                for (const bool accumulate : {false, true}) {
                    const std::int64_t a_rs = K + 3, b_rs = N + 5, c_rs = N + 2;  // rows with gaps between them
                    const std::vector<float> A = randn({M, a_rs}, kFloat32, gen).to_vector<float>();
                    const std::vector<float> B = randn({K, b_rs}, kFloat32, gen).to_vector<float>();
                    const std::vector<float> C0 = randn({M, c_rs}, kFloat32, gen).to_vector<float>();
                    std::vector<float> C = C0, one_at_a_time = C0;
                    nn::detail::tile_product<float>(M, N, K, A.data(), a_rs, 1, B.data(), b_rs, C.data(), c_rs, accumulate);
                    for (std::int64_t i = 0; i < M; ++i)
                        for (std::int64_t j = 0; j < N; j += L)
                            nn::detail::tile_product<float>(1, L, K, A.data() + i * a_rs, a_rs, 1, B.data() + j, b_rs,
                                                            one_at_a_time.data() + i * c_rs + j, c_rs, accumulate);
                    INFO("M " << M << ", N " << N << ", K " << K << (accumulate ? ", accumulating" : ""));
                    REQUIRE(std::memcmp(C.data(), one_at_a_time.data(), C.size() * sizeof(float)) == 0);
                    double worst = 0;  // |C − exact| in units of Σ_k |a·b| + |old|, the sum's scale
                    for (std::int64_t i = 0; i < M; ++i)
                        for (std::int64_t j = 0; j < N; ++j) {
                            double exact = accumulate ? C0[i * c_rs + j] : 0.0, scale = std::abs(exact);
                            for (std::int64_t k = 0; k < K; ++k) {
                                const double ab = double(A[i * a_rs + k]) * double(B[k * b_rs + j]);
                                exact += ab, scale += std::abs(ab);
                            }
                            worst = std::max(worst, std::abs(C[i * c_rs + j] - exact) / scale);
                        }
                    REQUIRE(worst < 1e-5);
                }
}

TEST_CASE("flash attention equals the composed path: output and dq, dk, dv, every mask", "[nn][flash]") {
    std::uint64_t seed = 1;
    for (std::int64_t T : {1, 2, 7, 63, 64, 65, 127, 513}) {
        for (std::int64_t d_k : {8, 16, 64}) {
            const std::int64_t B = T > 200 ? 1 : 2, H = 2;  // batch · heads > 1 throughout
            const std::int64_t mask_B = T > 200 ? 1 : B;
            for (const auto& [name, mask] : masks(mask_B, T, T)) {
                INFO("T " << T << ", d_k " << d_k << ", mask " << name);
                compare({B, H, T, d_k}, {B, H, T, d_k}, d_k, mask, seed++);
            }
        }
    }
}

TEST_CASE("flash attention with Tq != Tk: cross-attention and cached decoding", "[nn][flash]") {
    std::uint64_t seed = 100;
    for (std::int64_t Tk : {1, 7, 65, 300}) {
        for (std::int64_t Tq : {1, 3, 64, 70}) {
            if (Tq > Tk) continue;  // the offset masks put the queries at the end of the keys
            for (const auto& [name, mask] : masks(2, Tq, Tk)) {
                INFO("Tq " << Tq << ", Tk " << Tk << ", mask " << name);
                compare({2, 3, Tq, 16}, {2, 3, Tk, 16}, 8, mask, seed++);  // d_v ≠ d_k too
            }
        }
    }
    SECTION("cross-attention with more queries than keys, padded keys, 3-d inputs") {
        compare({2, 70, 8}, {2, 5, 8}, 8, Mask::padding({5, 2}, 5), 7);
        compare({2, 70, 8}, {2, 5, 8}, 8, Mask(), 8);
    }
}

TEST_CASE("flash attention: float64 gradcheck with each mask", "[nn][flash][gradcheck]") {
    Generator gen(5);
    const std::int64_t T = 6;
    for (const auto& named : masks(2, T, T)) {
        const auto& mask = named.second;  // a plain reference: clang 14 cannot capture a structured binding
        INFO("mask " << named.first);
        std::vector<Tensor> xs = {attnlab::testing::grad_input(gen, {2, 2, T, 4}), attnlab::testing::grad_input(gen, {2, 2, T, 4}),
                                  attnlab::testing::grad_input(gen, {2, 2, T, 3})};
        attnlab::testing::check_gradients([&](const std::vector<Tensor>& x) { return flash_attention(x[0], x[1], x[2], mask); }, xs);
    }
    SECTION("cached decoding: 2 queries against 9 keys, causal with offset") {
        std::vector<Tensor> xs = {attnlab::testing::grad_input(gen, {1, 2, 2, 4}), attnlab::testing::grad_input(gen, {1, 2, 9, 4}),
                                  attnlab::testing::grad_input(gen, {1, 2, 9, 4})};
        attnlab::testing::check_gradients(
            [&](const std::vector<Tensor>& x) { return flash_attention(x[0], x[1], x[2], Mask::causal(2, 9), 0.7); }, xs);
    }
}

TEST_CASE("flash attention: a fully masked row gives zero output and zero gradient", "[nn][flash][mask]") {
    Generator gen(3);
    Tensor q = randn({1, 1, 3, 4}, kFloat32, gen).requires_grad_(), k = randn({1, 1, 3, 4}, kFloat32, gen).requires_grad_();
    Tensor v = randn({1, 1, 3, 4}, kFloat32, gen).requires_grad_();
    const Mask m = Mask::from_allowed(tensor({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}));  // row 0 sees nothing
    FlashAttentionResult r = flash_attention_with_lse(q, k, v, m);
    CHECK_THAT(r.output.select(2, 0), IsCloseTo(zeros({1, 1, 4}), 0.0));
    CHECK(r.lse.at({0, 0, 0}) == -std::numeric_limits<double>::infinity());
    r.output.sum().backward();
    CHECK_THAT(q.grad().select(2, 0), IsCloseTo(zeros({1, 1, 4}), 0.0));
    CHECK_THAT(k.grad().select(2, 2), IsCloseTo(zeros({1, 1, 4}), 0.0));  // key 2 is visible to nobody
    CHECK_THAT(v.grad().select(2, 2), IsCloseTo(zeros({1, 1, 4}), 0.0));
}

TEST_CASE("flash attention: lse is each row's log-sum-exp of the scaled scores", "[nn][flash]") {
    Generator gen(4);
    Tensor q = randn({2, 70, 8}, kFloat32, gen), k = randn({2, 300, 8}, kFloat32, gen), v = randn({2, 300, 8}, kFloat32, gen);
    FlashAttentionResult r = flash_attention_with_lse(q, k, v, Mask(), 0.5);
    Tensor scores = matmul(q, k.mT()) * 0.5;  // [2, 70, 300]
    Tensor m = max(scores, -1, true).values;
    Tensor lse = (m + log(sum(exp(scores - m), -1, true))).squeeze(-1);
    CHECK_THAT(r.lse, IsCloseTo(lse, 1e-5, 1e-6));
}

TEST_CASE("flash attention writes every element of its output and gradients, whatever memory it is handed", "[nn][flash][mask]") {
    // The kernel does not zero o, dq, dk, dv before adding to them: the first product into
    // each part writes it, and the parts no product reaches (keys nobody reads, rows that see
    // no key, key blocks the mask skips) are zeroed at the end. Fresh tensors come from the
    // allocator's recycled blocks, so fill those with NaN first: an element left unwritten
    // stays NaN.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::uint64_t seed = 40;
    for (const auto& [Tq, Tk] : {std::pair<std::int64_t, std::int64_t>{65, 65}, {70, 600}, {130, 1030}})
        for (const auto& named : masks(2, Tq, Tk)) {
            const Mask& mask = named.second;  // a name the lambdas below can capture (clang 14 cannot capture a binding)
            INFO("Tq " << Tq << ", Tk " << Tk << ", mask " << named.first);
            Generator gen(seed++);
            const Shape qs{2, 2, Tq, 16}, ks{2, 2, Tk, 16};
            Tensor q = randn(qs, kFloat32, gen), k = randn(ks, kFloat32, gen), v = randn(ks, kFloat32, gen);
            Tensor g = randn(qs, kFloat32, gen);
            {
                std::vector<Tensor> poison;  // dropped here: their blocks go back to the cache, NaN inside
                for (int i = 0; i < 8; ++i) poison.push_back(full(qs, nan)), poison.push_back(full(ks, nan));
            }
            const Grads3 f = fused_against_composed(q, k, v, g, mask);
            CHECK(all_finite(f.out));
            CHECK(all_finite(f.dq));
            CHECK(all_finite(f.dk));
            CHECK(all_finite(f.dv));
        }
}

TEST_CASE("flash attention skips the key blocks a mask blocks entirely", "[nn][flash][mask]") {
    // Causal, T 2·kFlashKeyBlock: the second key block lies above the diagonal for the
    // first kFlashKeyBlock queries. Poison it with NaN: the composed path multiplies the
    // NaNs by weight 0 and gets NaN; the fused path never reads the block.
    const std::int64_t T = 2 * kFlashKeyBlock;
    Generator gen(6);
    Tensor q = randn({1, T, 8}, kFloat32, gen), k = randn({1, T, 8}, kFloat32, gen), v = randn({1, T, 8}, kFloat32, gen);
    copy_(v.narrow(1, kFlashKeyBlock, kFlashKeyBlock), full({1, kFlashKeyBlock, 8}, std::nan("")));
    Tensor fused = flash_attention(q, k, v, Mask::causal(T)).narrow(1, 0, kFlashKeyBlock);
    CHECK(all_finite(fused));
    CHECK_FALSE(all_finite(scaled_dot_product_attention(q, k, v, Mask::causal(T)).output.narrow(1, 0, kFlashKeyBlock)));
}

TEST_CASE("flash attention reads causal, local and strided masks as rules, never as a T x T tensor", "[nn][flash][mask]") {
    // T 2048: the mask as a float tensor would be 16 MiB; the call's whole working set
    // (output, lse, kᵀ and one tile of scores per thread) is under 1 MiB, d_k 8.
    const std::int64_t T = 2048;
    const double tensor_bytes = 4.0 * T * T;
    Generator gen(9);
    Tensor q = randn({1, T, 8}, kFloat32, gen), k = randn({1, T, 8}, kFloat32, gen), v = randn({1, T, 8}, kFloat32, gen);
    NoGradGuard no_grad;
    for (const auto& named : std::vector<std::pair<std::string, Mask>>{
             {"causal", Mask::causal(T)},
             {"local", Mask::local(T, T, 100)},
             {"strided", Mask::strided(T, T, 64)},
             {"causal & padding", Mask::causal(T) & Mask::padding({T - 5}, T)}}) {
        const Mask& mask = named.second;  // not a structured binding: clang 14 cannot capture one in a lambda
        INFO("mask " << named.first);
        CHECK(peak_extra_storage_bytes([&] { flash_attention(q, k, v, mask); }) < tensor_bytes / 16);
    }
    // The composed path builds the tensor on first use: a fresh causal mask costs it the 16 MiB.
    const Mask causal = Mask::causal(T);
    CHECK(peak_extra_storage_bytes([&] { causal.allowed(); }) >= tensor_bytes);
}

// A rule mask (causal, local) reaches the kernel as a rule, and a tile on its band's edge runs
// in strips of 16 query rows, each up to its own last key; the same mask as a 0/1 tensor runs
// whole tiles. The strips leave out only terms of weight 0, so both give the same bits.
TEST_CASE("flash attention: a rule mask's strips give the bits of the same mask as a tensor", "[nn][flash][mask]") {
    Generator gen(21);
    for (const auto& [Tq, Tk] : {std::pair<std::int64_t, std::int64_t>{64, 64}, {100, 100}, {130, 130}, {48, 80}, {70, 600}})
        for (const std::int64_t d_k : {16, 32}) {
            Tensor q = randn({2, 3, Tq, d_k}, kFloat32, gen), k = randn({2, 3, Tk, d_k}, kFloat32, gen);
            Tensor v = randn({2, 3, Tk, d_k}, kFloat32, gen), g = randn({2, 3, Tq, d_k}, kFloat32, gen);
            for (const Mask& rule : {Mask::causal(Tq, Tk), Mask::local(Tq, Tk, 20), Mask::causal(Tq, Tk) & Mask::local(Tq, Tk, 7)}) {
                const Mask tensor = Mask::from_allowed(rule.allowed());
                INFO("Tq " << Tq << ", Tk " << Tk << ", d_k " << d_k);
                auto flash = [](const Mask& m) {
                    return [&m](const Tensor& a, const Tensor& b, const Tensor& c) { return flash_attention(a, b, c, m); };
                };
                const Grads3 strips = run(flash(rule), q, k, v, g), whole = run(flash(tensor), q, k, v, g);
                CHECK(bit_identical(strips.out, whole.out));
                CHECK(bit_identical(strips.dq, whole.dq));
                CHECK(bit_identical(strips.dk, whole.dk));
                CHECK(bit_identical(strips.dv, whole.dv));
            }
        }
}

TEST_CASE("flash attention: the same bits at 1 and 2 threads", "[nn][flash][threads]") {
    const int before = num_threads();
    Generator gen(8);
    struct Case {
        Shape q, k;
        Mask mask;
    };
    const std::vector<Case> cases = {{{2, 3, 300, 16}, {2, 3, 300, 16}, Mask::causal(300)},
                                     {{1, 1, 700, 32}, {1, 1, 700, 32}, Mask()},  // one head: many query blocks, one backward task
                                     {{2, 2, 65, 64}, {2, 2, 513, 64}, Mask::padding({400, 513}, 513)}};
    for (const Case& c : cases) {
        Tensor q = randn(c.q, kFloat32, gen), k = randn(c.k, kFloat32, gen), v = randn(c.k, kFloat32, gen);
        Tensor g = randn(c.q, kFloat32, gen);
        auto attend = [&](const Tensor& a, const Tensor& b, const Tensor& cc) { return flash_attention(a, b, cc, c.mask); };
        set_num_threads(1);
        Grads3 one = run(attend, q, k, v, g);
        set_num_threads(2);
        Grads3 two = run(attend, q, k, v, g);
        INFO("q " << c.q.str() << ", k " << c.k.str());
        CHECK(bit_identical(one.out, two.out));
        CHECK(bit_identical(one.dq, two.dq));
        CHECK(bit_identical(one.dk, two.dk));
        CHECK(bit_identical(one.dv, two.dv));
    }
    set_num_threads(before);
}

TEST_CASE("flash attention reads strided q, k, v in place and lays its output and gradients out like them", "[nn][flash][layout]") {
    // MultiHeadAttention's heads: [B, T, H, d_k] seen as [B, H, T, d_k]. The kernel must give
    // the bits it gives on contiguous copies, and an output whose transpose back is contiguous.
    const std::int64_t B = 2, T = 70, H = 3, d = 16;
    Generator gen(21);
    const Tensor q0 = randn({B, T, H, d}, kFloat32, gen), k0 = randn({B, T, H, d}, kFloat32, gen),
                 v0 = randn({B, T, H, d}, kFloat32, gen), g0 = randn({B, T, H, d}, kFloat32, gen);
    const Mask mask = Mask::causal(T);
    struct Out {
        Tensor out, dq, dk, dv;  // dq, dk, dv as [B, H, T, d]
    };
    // split: [B, T, H, d] leaf -> the [B, H, T, d] operand the kernel sees
    auto attend = [&](auto split) {
        Tensor q = q0.detach().requires_grad_(), k = k0.detach().requires_grad_(), v = v0.detach().requires_grad_();
        Tensor out = flash_attention(split(q), split(k), split(v), mask);
        out.backward(split(g0));
        return Out{out.detach(), split(q.grad()), split(k.grad()), split(v.grad())};
    };
    const Out copied = attend([](const Tensor& x) { return x.transpose(1, 2).contiguous(); });
    const Out viewed = attend([](const Tensor& x) { return x.transpose(1, 2); });
    CHECK(copied.out.is_contiguous());
    CHECK(viewed.out.transpose(1, 2).is_contiguous());  // merging the heads back is a view
    CHECK(bit_identical(viewed.out, copied.out));
    CHECK(bit_identical(viewed.dq, copied.dq));
    CHECK(bit_identical(viewed.dk, copied.dk));
    CHECK(bit_identical(viewed.dv, copied.dv));

    SECTION("rows that are not contiguous are copied first; a key and value shared by every head are read in place") {
        Tensor qt = q0.transpose(1, 2).contiguous().transpose(2, 3).contiguous().transpose(2, 3);  // [B, H, T, d], d strided
        REQUIRE(qt.strides()[3] != 1);
        Tensor k1 = k0.narrow(2, 0, 1).transpose(1, 2), v1 = v0.narrow(2, 0, 1).transpose(1, 2);  // [B, 1, T, d]
        Tensor ke = k1.expand({B, H, T, d}), ve = v1.expand({B, H, T, d});                       // stride 0 over heads
        const Tensor ref = flash_attention(qt.contiguous(), ke.contiguous(), ve.contiguous(), mask);
        CHECK(bit_identical(flash_attention(qt, ke, ve, mask), ref));
        // an upstream gradient with stride 0 everywhere (from a sum) reaches the kernel too
        Tensor kl = k1.detach().requires_grad_(), kc = k1.contiguous().detach().requires_grad_();
        flash_attention(qt, kl.expand({B, H, T, d}), ve, mask).sum().backward();
        flash_attention(qt.contiguous(), kc.expand({B, H, T, d}).contiguous(), ve.contiguous(), mask).sum().backward();
        CHECK(bit_identical(kl.grad(), kc.grad()));
    }
}

TEST_CASE("attention scale and shapes: named errors on both paths", "[nn][flash][errors]") {
    Tensor q = randn({1, 2, 4}), k = randn({1, 3, 4}), v = randn({1, 3, 4});
    for (double bad : {std::nan(""), std::numeric_limits<double>::infinity(), -1.0}) {
        INFO("scale " << bad);
        CHECK_THROWS_WITH(flash_attention(q, k, v, Mask(), bad), Catch::Contains("flash_attention") && Catch::Contains("scale"));
        CHECK_THROWS_WITH(scaled_dot_product_attention(q, k, v, Mask(), bad),
                          Catch::Contains("scaled_dot_product_attention") && Catch::Contains("scale"));
    }
    CHECK_THROWS_WITH(flash_attention(q, randn({1, 3, 5}), v), Catch::Contains("flash_attention") && Catch::Contains("[1, 3, 5]"));
    CHECK_THROWS_WITH(flash_attention(q, randn({2, 3, 4}), randn({2, 3, 4})), Catch::Contains("same batch dims"));
    CHECK_THROWS_WITH(flash_attention(q, k, v, Mask::causal(5)), Catch::Contains("mask [5, 5]") && Catch::Contains("[1, 2, 3]"));
    CHECK_THROWS_WITH(flash_attention(q, k, v.to(kFloat64)), Catch::Contains("dtype"));
    CHECK_THROWS_WITH(flash_attention(q, k, v, tensor({{0, 0, -1e9}, {0, 0, 0}})), Catch::Contains("-inf"));
    // 0 is a valid scale: uniform weights over the allowed keys, on both paths
    CHECK_THAT(flash_attention(q, k, v, Mask(), 0.0), IsCloseTo(scaled_dot_product_attention(q, k, v, Mask(), 0.0).output, 1e-6));
}
