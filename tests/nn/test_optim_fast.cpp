// test_optim_fast.cpp — the optimizer's fast paths (nn/optim_fast.cpp) against the plain loops
// of reference mode, on parameters large enough to be cut into several segments and shared
// by two threads: the same bits on 1 and 2 threads, and the reference's numbers within
// rounding.
#include <catch2/catch.hpp>

#include <cmath>

#include "nn/optim.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/rng.hpp"
#include "tests/support/reference_mode.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "tests/support/thread_count.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::bit_identical;
using attnlab::testing::ReferenceMode;
using attnlab::testing::ThreadCount;

namespace {

// Parameters of 40,000, 17 and 70,000 elements: several 16K-element segments each, with
// tails that end mid-vector; their gradients drawn from `seed`, scaled so the norm is ~`norm`.
std::vector<Tensor> parameters_with_grads(std::uint64_t seed, double norm) {
    Generator gen(seed);
    std::vector<Tensor> ps;
    for (const std::int64_t n : {40000, 17, 70000}) {
        Tensor p = uniform({n}, -1, 1, kFloat32, gen).requires_grad_();
        p.set_grad(randn({n}, kFloat32, gen) * (norm / std::sqrt(110017.0)));
        ps.push_back(p);
    }
    return ps;
}

}  // namespace

TEST_CASE("clip_grad_norm's fast path: the same bits on 1 and 2 threads, the reference's norm within rounding",
          "[nn][optim][fused]") {
    for (const double norm : {5.0, 0.5}) {  // clipped, and left alone
        INFO("gradient norm about " << norm);
        std::vector<Tensor> one = parameters_with_grads(7, norm), two = parameters_with_grads(7, norm),
                            ref = parameters_with_grads(7, norm);
        double n1, n2, nr;
        {
            ThreadCount t(1);
            n1 = clip_grad_norm(one, 1.0);
        }
        {
            ThreadCount t(2);
            n2 = clip_grad_norm(two, 1.0);
        }
        {
            ReferenceMode on(true);
            nr = clip_grad_norm(ref, 1.0);
        }
        CHECK(n1 == n2);
        CHECK(n1 == Approx(nr).epsilon(1e-13));
        CHECK(n1 == Approx(norm).epsilon(0.05));
        for (std::size_t i = 0; i < one.size(); ++i) {
            CHECK(bit_identical(one[i].grad(), two[i].grad()));
            CHECK(max(abs(one[i].grad() - ref[i].grad())).item() <= 1e-7 * max(abs(ref[i].grad())).item());
        }
        if (norm > 1) CHECK(clip_grad_norm(one, 1e9) == Approx(1.0).epsilon(1e-6));  // the clip left norm 1
    }
}

TEST_CASE("AdamW's fast path over many parameters: the same bits on 1 and 2 threads and as the plain loop",
          "[nn][optim][fused]") {
    auto run = [](int threads, bool reference) {
        std::vector<Tensor> ps = parameters_with_grads(11, 1.0);
        std::vector<NamedParameter> named;
        for (std::size_t i = 0; i < ps.size(); ++i) named.push_back({"p" + std::to_string(i), ps[i]});
        AdamW opt(named, 0.01, 0.9, 0.95, 1e-8, 0.1);
        ThreadCount t(threads);
        ReferenceMode on(reference);
        Generator gen(3);
        for (int step = 0; step < 3; ++step) {
            for (Tensor& p : ps) p.set_grad(randn(p.shape(), kFloat32, gen));
            opt.step();
        }
        return ps;
    };
    const std::vector<Tensor> one = run(1, false), two = run(2, false), plain = run(1, true);
    for (std::size_t i = 0; i < one.size(); ++i) {
        INFO("parameter " << i);
        CHECK(bit_identical(one[i], two[i]));
        CHECK(max(abs(one[i] - plain[i])).item() <= 1e-6);
    }
}
