// test_npy.cpp — .npy round trips and the validation of malformed files.
#include <catch2/catch.hpp>

#include "tests/support/tensor_matchers.hpp"
#include "tensor/fileio.hpp"
#include "tensor/npy.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

TEST_CASE(".npy round trips every dtype and shape bit for bit", "[tensor][npy]") {
    for (const Tensor& t : {tensor({{1.5, -2}, {3, 4}}), tensor({1e-30, 3.25}, kFloat64), arange(7), scalar(2.0),
                            zeros({0, 3}), arange(0.0, 24.0).reshape({2, 3, 4}).transpose(0, 2)}) {
        const std::string bytes = serialize_npy(t);
        CHECK((bytes.size() - static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype())) % 64 == 0);  // header padded to 64
        Tensor back = parse_npy(bytes);
        CHECK(attnlab::testing::bit_identical(back, t));
    }
    const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/roundtrip.npy";
    save_npy(path, tensor({1, 2, 3}));
    CHECK(load_npy(path).to_vector<float>() == std::vector<float>{1, 2, 3});
}

TEST_CASE(".npy header matches what numpy writes", "[tensor][npy]") {
    const std::string bytes = serialize_npy(tensor({{1, 2, 3}, {4, 5, 6}}));
    CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
    CHECK(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") == 10);
    CHECK(serialize_npy(arange(3)).find("'shape': (3,)") != std::string::npos);
}

TEST_CASE("malformed .npy files are rejected with the reason", "[tensor][npy][errors]") {
    const std::string good = serialize_npy(tensor({1, 2, 3}));
    CHECK_THROWS_WITH(parse_npy("hello"), Catch::Contains("not a .npy"));
    CHECK_THROWS_WITH(parse_npy(good.substr(0, good.size() - 1)), Catch::Contains("needs 12 data bytes"));
    std::string bad_dtype = good;
    bad_dtype.replace(bad_dtype.find("<f4"), 3, "<f2");
    CHECK_THROWS_WITH(parse_npy(bad_dtype), Catch::Contains("'<f2'"));
    std::string fortran = good;
    fortran.replace(fortran.find("False"), 5, "True ");
    CHECK_THROWS_WITH(parse_npy(fortran), Catch::Contains("Fortran"));
    std::string long_header = good;
    long_header[8] = '\xff';
    long_header[9] = '\x7f';
    CHECK_THROWS_WITH(parse_npy(long_header), Catch::Contains("runs past the end"));
    std::string garbage = good;
    garbage.replace(garbage.find("shape"), 5, "shapX");
    CHECK_THROWS_AS(parse_npy(garbage), IOError);
    CHECK_THROWS_WITH(load_npy("/nonexistent/x.npy"), Catch::Contains("/nonexistent/x.npy"));
}
