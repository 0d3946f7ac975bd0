// test_number.cpp — parse_real: its syntax, its range, and rounding equal to std::from_chars.
#include <catch2/catch.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "io/number.hpp"

using namespace attnlab;

TEST_CASE("parse_real reads the decimal syntax and nothing else", "[io][number]") {
    CHECK(parse_real("0") == 0.0);
    CHECK(parse_real("-2.5") == -2.5);
    CHECK(parse_real("3e-4") == 3e-4);
    CHECK(parse_real("1E+3") == 1000.0);
    CHECK(parse_real("5.") == 5.0);
    CHECK(parse_real(".5") == 0.5);
    CHECK(std::signbit(*parse_real("-0")));
    CHECK(parse_real("0e999999") == 0.0);  // all-zero digits: zero is the exact answer
    for (const char* bad : {"", "-", ".", "+1", " 1", "1 ", "1e", "1e+", "e5", "0x10", "inf", "-inf", "nan",
                            "1,5", "1.2.3", "--1", "1e5.0", "١"})
        CHECK_FALSE(parse_real(bad));
}

TEST_CASE("parse_real refuses what a double cannot hold and keeps subnormals", "[io][number]") {
    CHECK_FALSE(parse_real("1e400"));
    CHECK_FALSE(parse_real("-1e400"));
    CHECK_FALSE(parse_real("1e-400"));  // would silently become 0
    CHECK(parse_real("1e-320") == 1e-320);
    CHECK(parse_real("4.9406564584124654e-324") == std::numeric_limits<double>::denorm_min());
    CHECK(parse_real("1.7976931348623157e308") == std::numeric_limits<double>::max());
}

// The standard library's own reading, where it has one (libc++ before LLVM 20 has none: the
// reason parse_real exists). libstdc++'s from_chars is an implementation of its own, not strtod.
#if defined(__cpp_lib_to_chars)
TEST_CASE("parse_real rounds as std::from_chars does", "[io][number]") {
    // Random mantissas of up to 20 digits and exponents over the whole range, subnormals and
    // the edges included: every one the nearest double, as the standard's from_chars gives it.
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> n_digits(1, 20), exponent(-340, 310), digit(0, 9), dot(0, 3);
    int compared = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        std::string s = trial % 2 ? "-" : "";
        const int n = n_digits(rng), point = dot(rng) == 0 ? -1 : static_cast<int>(rng() % static_cast<unsigned>(n + 1));
        for (int i = 0; i < n; ++i) {
            if (i == point) s += '.';
            s += static_cast<char>('0' + digit(rng));
        }
        if (point == n) s += '.';
        s += "e" + std::to_string(exponent(rng));
        double expected = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), expected);
        const auto got = parse_real(s);
        if (r.ec == std::errc()) {
            INFO(s);
            REQUIRE(got.has_value());
            CHECK(std::bit_cast<std::uint64_t>(*got) == std::bit_cast<std::uint64_t>(expected));
            ++compared;
        } else {
            INFO(s);
            CHECK_FALSE(got.has_value());
        }
    }
    CHECK(compared > 15000);
}
#endif
