// test_phase2_cost.cpp — phase 2's answers to the usual single-head vs multi-head table:
// parameters (phases/phase2_parameter_counts.hpp: 3 d² vs 4 d² + 4 d, whatever H) and
// computation (phases/phase2_heads_cost.hpp: the flops of a layer barely depend on H).
#include <catch2/catch.hpp>

#include "phases/phase2_heads_cost.hpp"
#include "phases/phase2_parameter_counts.hpp"

using namespace attnlab;

TEST_CASE("the course's single head has 3 d^2 parameters, multi-head attention with W_O 4 d^2 + 4 d", "[phases][phase2][parameters]") {
    for (std::int64_t d : {16, 64}) {
        const auto four = phase2::attention_layer_counts(d, 4), eight = phase2::attention_layer_counts(d, 8);
        REQUIRE(four.size() == 3);
        CHECK(four[0].parameters == 3 * d * d);          // SelfAttention: W_Q, W_K, W_V, no bias
        CHECK(four[1].parameters == 3 * d * d);          // qkv-only MHA: the same layer split into heads
        CHECK(four[2].parameters == 4 * d * d + 4 * d);  // + W_O and four biases
        for (std::size_t i = 0; i < four.size(); ++i) {
            CHECK(four[i].parameters == four[i].expected);
            CHECK(eight[i].parameters == four[i].parameters);  // more heads are narrower heads, not more weights
        }
    }
}

TEST_CASE("at fixed d_model only the softmax's H T^2 flops grow with the number of heads", "[phases][phase2][cost]") {
    const std::int64_t T = 16, d = 64;
    CHECK(phase2::attention_flops(T, d, 1) == 8.0 * T * d * d + 4.0 * T * T * d + 5.0 * T * T);
    CHECK(phase2::attention_flops(T, d, 16) - phase2::attention_flops(T, d, 1) == 5.0 * 15 * T * T);
    // far from the course's ~H x: 16 heads cost about 3% more than one
    CHECK(phase2::attention_flops(T, d, 16) / phase2::attention_flops(T, d, 1) < 1.05);
}
