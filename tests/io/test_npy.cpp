// test_npy.cpp — .npy round trips and the validation of malformed files.
#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/bad_input.hpp"
#include "tests/support/run_program.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "io/fileio.hpp"
#include "io/npy.hpp"
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

// ---- the bad-input catalogue: each case names the file and the offending value ----------

namespace {

using attnlab::testing::fresh_dir;
using attnlab::testing::thrown;
using Catch::Contains;

// A version-1.0 .npy file from its header text (no padding) and data bytes.
std::string npy_with(const std::string& header, const std::string& data = "") {
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    return out + header + data;
}

}  // namespace

TEST_CASE("the 79-byte .npy of shape (2^31, 2^31): its byte count would wrap to 0", "[tensor][npy][bad-input]") {
    const std::string bytes = npy_with("{'descr':'<f4','fortran_order':False,'shape':(2147483648,2147483648)}");
    REQUIRE(bytes.size() == 79);  // the smallest such file: a valid header and no data
    CHECK_THAT(thrown<IOError>([&] { parse_npy(bytes, "wrap.npy"); }),
               Contains("load_npy: 'wrap.npy': shape [2147483648, 2147483648] of <f4 is too large"));
}

TEST_CASE("the 80-byte .npy of shape (8192, 2, 2^48) on disk names its path", "[tensor][npy][bad-input]") {
    const std::string bytes = npy_with("{'descr':'<f4','fortran_order':False,'shape':(8192,2,281474976710656)}");
    REQUIRE(bytes.size() == 80);
    const std::string path = fresh_dir("npy_planted") + "/attention_weights.npy";
    write_file_atomic(path, bytes);
    CHECK_THAT(thrown<IOError>([&] { load_npy(path); }), Contains(path) && Contains("[8192, 2, 281474976710656]"));
}

TEST_CASE(".npy whose element count itself overflows int64", "[tensor][npy][bad-input]") {
    const std::string bytes = npy_with("{'descr':'<f8','fortran_order':False,'shape':(999999999999999,999999999999999)}");
    CHECK_THAT(thrown<IOError>([&] { parse_npy(bytes, "big.npy"); }), Contains("'big.npy'") && Contains("too large"));
}

TEST_CASE(".npy with fewer data bytes than its shape needs", "[tensor][npy][bad-input]") {
    const std::string bytes = npy_with("{'descr':'<f4','fortran_order':False,'shape':(2,3)}", std::string(20, '\0'));
    CHECK_THAT(thrown<IOError>([&] { parse_npy(bytes, "short.npy"); }),
               Contains("'short.npy': shape [2, 3] of <f4 needs 24 data bytes, the file has 20"));
}

TEST_CASE(".npy with more data bytes than its shape needs", "[tensor][npy][bad-input]") {
    const std::string bytes = npy_with("{'descr':'<i8','fortran_order':False,'shape':(1,)}", std::string(9, '\0'));
    CHECK_THAT(thrown<IOError>([&] { parse_npy(bytes, "long.npy"); }), Contains("needs 8 data bytes, the file has 9"));
}

TEST_CASE(".npy with 9 dimensions", "[tensor][npy][bad-input]") {
    const std::string bytes = npy_with("{'descr':'<f4','fortran_order':False,'shape':(1,1,1,1,1,1,1,1,1)}", std::string(4, '\0'));
    CHECK_THAT(thrown<IOError>([&] { parse_npy(bytes, "deep.npy"); }), Contains("'deep.npy': bad header (more than 8 dimensions)"));
}

TEST_CASE(".npy with a negative or 16-digit dimension", "[tensor][npy][bad-input]") {
    CHECK_THAT(thrown<IOError>([] { parse_npy(npy_with("{'descr':'<f4','fortran_order':False,'shape':(-1,)}"), "neg.npy"); }),
               Contains("'neg.npy': bad header (expected a dimension size)"));
    CHECK_THAT(thrown<IOError>([] { parse_npy(npy_with("{'descr':'<f4','fortran_order':False,'shape':(1000000000000000,)}"), "x.npy"); }),
               Contains("expected a dimension size"));
}

TEST_CASE(".npy with an unsupported format version", "[tensor][npy][bad-input]") {
    std::string bytes = npy_with("{'descr':'<f4','fortran_order':False,'shape':()}", std::string(4, '\0'));
    bytes[6] = 9;
    CHECK_THAT(thrown<IOError>([&] { parse_npy(bytes, "v9.npy"); }), Contains("'v9.npy' has unsupported format version 9"));
}

TEST_CASE(".npy with a header key numpy never writes, or one missing", "[tensor][npy][bad-input]") {
    CHECK_THAT(thrown<IOError>([] { parse_npy(npy_with("{'descr':'<f4','fortran_order':False,'shape':(),'x':1}"), "k.npy"); }),
               Contains("unknown key 'x'"));
    CHECK_THAT(thrown<IOError>([] { parse_npy(npy_with("{'descr':'<f4','fortran_order':False}"), "k.npy"); }),
               Contains("missing descr, fortran_order or shape"));
}

TEST_CASE(".npy of a dtype attnlab does not hold", "[tensor][npy][bad-input]") {
    CHECK_THAT(thrown<IOError>([] { parse_npy(npy_with("{'descr':'>f4','fortran_order':False,'shape':()}", "abcd"), "be.npy"); }),
               Contains("'be.npy' has dtype '>f4'; supported: <f4, <f8, <i8"));
}

TEST_CASE("a directory given as a .npy file", "[tensor][npy][bad-input]") {
    const std::string dir = fresh_dir("npy_dir") + "/a_directory.npy";
    std::filesystem::create_directories(dir);
    CHECK_THAT(thrown<IOError>([&] { load_npy(dir); }), Contains(dir) && Contains("is a directory, not a regular file"));
}

TEST_CASE("gallery on a planted 80-byte attention_weights.npy: a named error, not SIGSEGV", "[tools][npy][bad-input]") {
    const std::string out = fresh_dir("gallery_out");
    write_file_atomic(out + "/data/attention_weights.npy",
                      npy_with("{'descr':'<f4','fortran_order':False,'shape':(8192,2,281474976710656)}"));
    const attnlab::testing::ProgramRun run = attnlab::testing::run_program({attnlab::testing::program_path("gallery"), "--out", out});
    CHECK(run.signal == 0);  // the old reader died of SIGSEGV here
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.output, Contains("gallery: load_npy: '" + out + "/data/attention_weights.npy'") && Contains("is too large"));
}
