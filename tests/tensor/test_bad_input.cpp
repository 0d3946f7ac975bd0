// test_bad_input.cpp — the bad-input catalogue for tensor/: shapes whose element or
// byte count overflows, negative sizes, and the thread-count variable. Each case
// checks the error's class and that the message names the op and the value.
//
// Why overflow matters: unchecked, [2^31, 2^31] of float32 is 2^64 bytes, which
// wraps to 0; the tensor then claims 2^62 elements over an empty block, and
// reading any of them is a heap overflow. Huge views (expand) own no memory, so
// they are built here without allocating anything.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

#include "tensor/allocator.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tests/support/bad_input.hpp"

using namespace attnlab;
using attnlab::testing::thrown;
using Catch::Contains;

namespace {
constexpr std::int64_t k31 = std::int64_t(1) << 31, k32 = std::int64_t(1) << 32, k40 = std::int64_t(1) << 40;

// A view of one zero with the given shape: no memory behind it, any size.
Tensor huge(const Shape& shape) {
    Shape ones;
    for (std::int64_t i = 0; i < shape.size(); ++i) ones.push_back(1);
    return zeros(ones).expand(shape);
}
}  // namespace

TEST_CASE("zeros of [2^31, 2^31] float32: 2^64 bytes overflow, a ShapeError naming zeros", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { zeros({k31, k31}); }),
               Contains("zeros: shape [2147483648, 2147483648] is too large") && Contains("overflows"));
}

TEST_CASE("empty with 2^80 elements: the element count overflows", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { empty({k40, k40}, kFloat64); }), Contains("empty: shape [1099511627776, 1099511627776]"));
}

TEST_CASE("full and ones name themselves on overflow", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { full({k32, k32}, 1.0); }), Contains("full: shape [4294967296, 4294967296]"));
    CHECK_THAT(thrown<ShapeError>([] { ones({k32, k32}); }), Contains("full: shape"));
}

TEST_CASE("Shape::numel overflows loudly, not by wrapping", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { Shape{k32, k32, 2}.numel(); }), Contains("numel: shape [4294967296, 4294967296, 2]"));
    CHECK(Shape{k31, k31}.numel() == std::int64_t(1) << 62);  // the largest products still fit
}

TEST_CASE("contiguous_strides overflows even when numel is 0", "[tensor][bad-input]") {
    CHECK(Shape{0, k40}.numel() == 0);
    CHECK_THAT(thrown<ShapeError>([] { contiguous_strides(Shape{0, k40, k40}); }),
               Contains("contiguous_strides: shape [0, 1099511627776, 1099511627776]"));
    CHECK_THAT(thrown<ShapeError>([] { zeros({0, k40, k40}); }), Contains("contiguous_strides"));
}

TEST_CASE("a negative size is a ValueError naming the op and the shape", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ValueError>([] { zeros({2, -3}); }), Contains("zeros: negative size in shape [2, -3]"));
    CHECK_THAT(thrown<ShapeError>([] { Shape{2, -3}.numel(); }), Contains("numel: negative size in shape [2, -3]"));
}

TEST_CASE("a shape of 9 dimensions is refused", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { Shape(std::vector<std::int64_t>(9, 1)); }),
               Contains("9 dimensions, more than the maximum of 8"));
    // push_back checks inline (shape.hpp) and throws the same message
    CHECK_THAT(thrown<ShapeError>([] { Shape(std::vector<std::int64_t>(8, 1)).push_back(1); }),
               Contains("9 dimensions, more than the maximum of 8"));
}

TEST_CASE("a dim out of range is a ValueError naming the op and the rank", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ValueError>([] { zeros({2, 3}).transpose(0, 2); }),
               Contains("transpose: dim 2 is out of range for a tensor of 2 dimensions"));
    CHECK_THAT(thrown<ValueError>([] { zeros({2, 3}).size(-3); }),
               Contains("size: dim -3 is out of range for a tensor of 2 dimensions"));
}

TEST_CASE("a memory request the machine cannot meet is named, not a bare bad_alloc", "[tensor][bad-input]") {
    if (kExactAllocation) return;  // ASan reports a 2^52-byte request as a fatal error by design
    CHECK_THAT(thrown<ShapeError>([] { empty({std::int64_t(1) << 50}, kFloat32); }),
               Contains("empty: cannot allocate 4503599627370496 bytes for shape [1125899906842624] of float32"));
}

TEST_CASE("expand to 2^120 elements fails at expand, although a view owns no memory", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { zeros({1}).expand({k40, k40, k40}); }), Contains("expand: shape [1099511627776"));
    CHECK(huge({k31, k31}).numel() == std::int64_t(1) << 62);  // large but countable views stay legal
}

TEST_CASE("broadcasting [2^32, 1] with [1, 2^32] overflows, named by the op", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { add(huge({k32, 1}), huge({1, k32})); }),
               Contains("add: shape [4294967296, 4294967296] is too large"));
}

TEST_CASE("matmul whose output has 2^64 elements is refused before any work", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { matmul(huge({k32, 1}), huge({1, k32})); }),
               Contains("matmul: shape [4294967296, 4294967296] is too large"));
}

TEST_CASE("cat whose size along the dim overflows int64", "[tensor][bad-input]") {
    const Tensor half = huge({std::int64_t(1) << 62});
    CHECK_THAT(thrown<ShapeError>([&] { cat({half, half}, 0); }), Contains("cat: the sizes along dim 0 overflow int64"));
}

TEST_CASE("reshape to a shape whose product overflows", "[tensor][bad-input]") {
    CHECK_THAT(thrown<ShapeError>([] { zeros({0}).reshape({k40, k40, 0}); }),
               Contains("reshape: shape [1099511627776, 1099511627776, 0] is too large"));
    CHECK_THAT(thrown<ShapeError>([] { zeros({0}).reshape({k40, k40, -1}); }), Contains("reshape"));
}

TEST_CASE("flatten of [0, 2^40, 2^40] overflows in the merged size", "[tensor][bad-input]") {
    const Tensor x = zeros({0, 1, 1}).expand({0, k40, k40});
    CHECK_THAT(thrown<ShapeError>([&] { flatten(x, 1, 2); }), Contains("flatten: shape [0, 1099511627776, 1099511627776]"));
}

TEST_CASE("slice with a step near INT64_MAX takes one element, no overflow", "[tensor][bad-input]") {
    const Tensor x = arange(10);
    const Tensor s = slice(x, 0, 3, 10, std::numeric_limits<std::int64_t>::max());
    CHECK(s.shape() == Shape{1});
    CHECK(s.item() == 3);
}

TEST_CASE("ATTNLAB_NUM_THREADS=0 is an error naming the variable and the value", "[tensor][parallel][bad-input]") {
    CHECK_THAT(thrown<ValueError>([] { parse_num_threads("0"); }),
               Contains("ATTNLAB_NUM_THREADS='0' is out of range; it must be 1 to 1024"));
}

TEST_CASE("ATTNLAB_NUM_THREADS=-3 is an error, never clamped to 1", "[tensor][parallel][bad-input]") {
    CHECK_THAT(thrown<ValueError>([] { parse_num_threads("-3"); }), Contains("ATTNLAB_NUM_THREADS='-3' is out of range"));
}

TEST_CASE("ATTNLAB_NUM_THREADS=abc is not an integer", "[tensor][parallel][bad-input]") {
    CHECK_THAT(thrown<ValueError>([] { parse_num_threads("abc"); }), Contains("ATTNLAB_NUM_THREADS='abc' is not an integer"));
    CHECK_THAT(thrown<ValueError>([] { parse_num_threads("4x"); }), Contains("'4x' is not an integer"));
    CHECK_THAT(thrown<ValueError>([] { parse_num_threads(""); }), Contains("'' is not an integer"));
}

TEST_CASE("ATTNLAB_NUM_THREADS too large (or past long) is out of range", "[tensor][parallel][bad-input]") {
    CHECK_THAT(thrown<ValueError>([] { parse_num_threads("1025"); }), Contains("'1025' is out of range"));
    CHECK_THAT(thrown<ValueError>([] { parse_num_threads("99999999999999999999"); }), Contains("is not an integer"));
    CHECK(parse_num_threads("1") == 1);
    CHECK(parse_num_threads("1024") == 1024);
}

TEST_CASE("narrow with start near INT64_MAX is a ValueError, not an overflow", "[tensor][bad-input]") {
    const std::int64_t max = std::numeric_limits<std::int64_t>::max();
    CHECK_THAT(thrown<ValueError>([&] { narrow(arange(4), 0, max, 1); }),
               Contains("narrow: start 9223372036854775807 + length 1 exceeds dim 0 of shape [4]"));
}
