// test_positional.cpp — sinusoidal encodings against hand-computed values, the seed's
// variant, and the learned table.
#include <catch2/catch.hpp>
#include <cmath>

#include "nn/positional.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::IsCloseTo;

TEST_CASE("sinusoidal encoding: the paper's formula at known positions", "[nn][positional]") {
    Tensor pe = sinusoidal_positional_encoding(50, 8);
    REQUIRE(pe.shape() == Shape{50, 8});
    // Position 0: sin 0 = 0 in even dims, cos 0 = 1 in odd dims.
    CHECK_THAT(pe.select(0, 0), IsCloseTo(tensor({0, 1, 0, 1, 0, 1, 0, 1}), 0));
    // Pair i has angle pos / 10000^(2i/8): i = 0 -> pos, i = 1 -> pos / 10, i = 2 -> pos / 100, i = 3 -> pos / 1000.
    for (std::int64_t pos : {1, 7, 49}) {
        INFO("position " << pos);
        std::vector<double> want;
        for (double div : {1.0, 10.0, 100.0, 1000.0}) want.push_back(std::sin(pos / div)), want.push_back(std::cos(pos / div));
        CHECK_THAT(pe.select(0, pos), IsCloseTo(tensor({want[0], want[1], want[2], want[3], want[4], want[5], want[6], want[7]}), 1e-6));
    }
    CHECK_THROWS_AS(sinusoidal_positional_encoding(4, 7), ValueError);
}

TEST_CASE("the exponent 2i/d on an even i squares each pair's wavelength factor", "[nn][positional]") {
    // With i already even, 10000^(2i/d) for dims (2, 3) at d = 8 is 10000^(4/8) = 100, not 10.
    Tensor squared = squared_wavelength_positional_encoding(10, 8);
    CHECK(squared.at({5, 2}) == Approx(std::sin(5 / 100.0)).margin(1e-6));
    CHECK(sinusoidal_positional_encoding(10, 8).at({5, 2}) == Approx(std::sin(5 / 10.0)).margin(1e-6));
    CHECK_THAT(squared.narrow(1, 0, 2), IsCloseTo(sinusoidal_positional_encoding(10, 8).narrow(1, 0, 2), 0));  // pair 0 agrees
}

TEST_CASE("learned positional embedding: rows, gradient, bounds", "[nn][positional]") {
    Generator gen(3);
    LearnedPositionalEmbedding pos(16, 4, gen);
    CHECK(pos.parameter_count() == 64);
    Tensor rows = pos.forward(5);
    CHECK(rows.shape() == Shape{5, 4});
    (rows * randn({5, 4}, kFloat32, gen)).sum().backward();
    CHECK(abs(pos.weight.grad().narrow(0, 0, 5)).sum().item() > 0);
    CHECK(abs(pos.weight.grad().narrow(0, 5, 11)).sum().item() == 0);  // rows not used get no gradient
    CHECK_THROWS_AS(pos.forward(17), ValueError);
}
