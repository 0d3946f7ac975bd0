// test_reversal.cpp — the reversal task's batches: layout, determinism, the held-out split.
#include <catch2/catch.hpp>
#include <set>

#include "data/reversal.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::data;
using attnlab::testing::bit_identical;

TEST_CASE("a reversal batch: padding, teacher-forcing input, targets", "[data][reversal]") {
    ReversalBatch b = make_reversal_batch({{3, 7, 1, 5}, {2, 9}});
    CHECK(b.lengths == std::vector<std::int64_t>{4, 2});
    CHECK(b.src.to_vector<std::int64_t>() == std::vector<std::int64_t>{3, 7, 1, 5, 2, 9, kReversalPad, kReversalPad});
    CHECK(b.tgt_in.to_vector<std::int64_t>() ==
          std::vector<std::int64_t>{kReversalBos, 5, 1, 7, 3, kReversalBos, 9, 2, kReversalPad, kReversalPad});
    CHECK(b.tgt_out.to_vector<std::int64_t>() ==
          std::vector<std::int64_t>{5, 1, 7, 3, kReversalEos, 9, 2, kReversalEos, kReversalIgnore, kReversalIgnore});
    CHECK(to_string({3, kReversalEos}) == "3 <eos>");
    CHECK_THROWS_AS(make_reversal_batch({{3, 10}}), ValueError);
    CHECK_THROWS_AS(make_reversal_batch({{}}), ValueError);
}

TEST_CASE("reversal batches are deterministic and cover the length range", "[data][reversal]") {
    Generator a(42), b(42), c(43);
    ReversalBatch x = sample_reversal_batch(a, 64, {}), y = sample_reversal_batch(b, 64, {}), z = sample_reversal_batch(c, 64, {});
    CHECK(bit_identical(x.src, y.src));
    CHECK(x.lengths == y.lengths);
    CHECK_FALSE(bit_identical(x.src, z.src));
    std::set<std::int64_t> seen(x.lengths.begin(), x.lengths.end());
    CHECK(*seen.begin() >= 4);
    CHECK(*seen.rbegin() <= 10);
    CHECK(seen.size() >= 5);  // 64 draws over 7 lengths
}

TEST_CASE("the held-out split is disjoint from training and about 1 in 8", "[data][reversal]") {
    Generator gen(7);
    const std::vector<Digits> held = held_out_sources(gen, 30, {});
    CHECK(held.size() == 7 * 30);
    std::set<Digits> unique(held.begin(), held.end());
    CHECK(unique.size() == held.size());  // distinct
    for (const Digits& s : held) REQUIRE(is_held_out(s));
    Generator train(8);
    std::int64_t reserved = 0;
    for (int i = 0; i < 4000; ++i) {
        Digits s = sample_source(train, {}, false);
        REQUIRE_FALSE(is_held_out(s));
        reserved += is_held_out(Digits(s.rbegin(), s.rend()));  // an unconstrained probe of the hash
    }
    CHECK(reserved > 4000 / 8 - 120);
    CHECK(reserved < 4000 / 8 + 120);
}
