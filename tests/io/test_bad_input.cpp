// test_bad_input.cpp — the bad-input catalogue for the file formats: safetensors
// checkpoints and JSON, given hostile bytes or something that is not a file at all.
// Each case checks the error's class and that the message names the file and the value.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sys/stat.h>

#include "nn/safetensors.hpp"
#include "tensor/fileio.hpp"
#include "tensor/json.hpp"
#include "tensor/ops.hpp"
#include "tests/support/bad_input.hpp"

using namespace attnlab;
using attnlab::testing::thrown;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

std::string fresh_dir(const std::string& name) {
    const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/io_bad_input/" + name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// A safetensors file from header text and buffer bytes.
std::string safetensors_with(const std::string& header, const std::string& buffer = "") {
    std::string out;
    for (int k = 0; k < 8; ++k) out += static_cast<char>((header.size() >> (8 * k)) & 0xFF);
    return out + header + buffer;
}

}  // namespace

TEST_CASE("safetensors: shape [2^31, 2^31] of F32 with an empty byte range", "[io][safetensors][bad-input]") {
    const std::string bytes =
        safetensors_with(R"({"w":{"dtype":"F32","shape":[2147483648,2147483648],"data_offsets":[0,0]}})");
    CHECK_THAT(thrown<IOError>([&] { parse_safetensors(bytes, "wrap.safetensors"); }),
               Contains("'wrap.safetensors': tensor 'w': shape [2147483648, 2147483648] is too large to address"));
}

TEST_CASE("safetensors: data_offsets past the end of the buffer", "[io][safetensors][bad-input]") {
    const std::string bytes = safetensors_with(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "abcd");
    CHECK_THAT(thrown<IOError>([&] { parse_safetensors(bytes, "short.safetensors"); }),
               Contains("tensor 'w': data_offsets [0, 8] run past the end of the 4-byte buffer"));
}

TEST_CASE("safetensors: two tensors over the same bytes", "[io][safetensors][bad-input]") {
    const std::string bytes = safetensors_with(
        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
        "abcd");
    CHECK_THAT(thrown<IOError>([&] { parse_safetensors(bytes, "alias.safetensors"); }),
               Contains("tensors 'a' [0, 4] and 'b' [0, 4] overlap"));
}

TEST_CASE("safetensors: a dtype attnlab does not hold", "[io][safetensors][bad-input]") {
    const std::string bytes = safetensors_with(R"({"w":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}})", "ab");
    CHECK_THAT(thrown<IOError>([&] { parse_safetensors(bytes, "half.safetensors"); }),
               Contains("tensor 'w': dtype \"F16\" is not supported"));
}

TEST_CASE("safetensors: a header length of 2^64 - 1", "[io][safetensors][bad-input]") {
    CHECK_THAT(thrown<IOError>([] { parse_safetensors(std::string(8, '\xff') + "{}", "huge.safetensors"); }),
               Contains("'huge.safetensors': declares a header of 18446744073709551615 bytes"));
}

TEST_CASE("safetensors: a directory given as the checkpoint", "[io][safetensors][bad-input]") {
    const std::string dir = fresh_dir("adir");
    CHECK_THAT(thrown<IOError>([&] { load_safetensors(dir); }), Contains("'" + dir + "' is a directory, not a regular file"));
}

TEST_CASE("safetensors: a FIFO given as the checkpoint does not hang", "[io][safetensors][bad-input]") {
    const std::string fifo = fresh_dir("fifo") + "/model.safetensors";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(thrown<IOError>([&] { load_safetensors(fifo); }), Contains("'" + fifo + "' is a FIFO"));
}

TEST_CASE("safetensors: /proc/self/status is read, then rejected as not a checkpoint", "[io][safetensors][bad-input]") {
    // Its first 8 bytes, "Name:\tat", as a little-endian length are far past the limit.
    CHECK_THAT(thrown<IOError>([] { load_safetensors("/proc/self/status"); }),
               Contains("load_safetensors: '/proc/self/status': declares a header of") && Contains("more than the limit"));
}

TEST_CASE("safetensors: save over a symlink is refused", "[io][safetensors][bad-input]") {
    const std::string dir = fresh_dir("symlink");
    write_file_atomic(dir + "/elsewhere", "keep");
    fs::create_symlink(dir + "/elsewhere", dir + "/model.safetensors");
    CHECK_THAT(thrown<IOError>([&] { save_safetensors(dir + "/model.safetensors", {{"w", zeros({2})}}); }),
               Contains("model.safetensors' is a symbolic link; refusing to replace it"));
    CHECK(read_file(dir + "/elsewhere") == "keep");
}

TEST_CASE("JSON: 65 levels of nesting are refused at the limit", "[io][json][bad-input]") {
    CHECK_THAT(thrown<JsonParseError>([] { parse_json(std::string(65, '[') + std::string(65, ']'), "deep.json"); }),
               Contains("parse_json: 'deep.json': byte") && Contains("nesting deeper than 64 levels"));
    CHECK(parse_json(std::string(64, '[') + std::string(64, ']')).is_array());
}

TEST_CASE("JSON: a duplicate key in a checkpoint-style header", "[io][json][bad-input]") {
    CHECK_THAT(thrown<JsonParseError>([] { parse_json(R"({"w":1,"w":2})", "dup.json"); }),
               Contains("'dup.json': byte 7: duplicate key \"w\""));
}

TEST_CASE("JSON: invalid UTF-8 in a metrics file names the path and the byte", "[io][json][bad-input]") {
    const std::string path = fresh_dir("utf8") + "/metrics.json";
    write_file_atomic(path, "{\"name\": \"caf\xE9\"}");
    CHECK_THAT(thrown<JsonParseError>([&] { load_json(path); }), Contains(path) && Contains("byte 13") && Contains("invalid UTF-8"));
}

TEST_CASE("JSON: load_json on a directory", "[io][json][bad-input]") {
    const std::string dir = fresh_dir("json_dir");
    CHECK_THAT(thrown<IOError>([&] { load_json(dir); }), Contains("'" + dir + "' is a directory"));
}

TEST_CASE("JSON: an integer past int64 becomes a double, never wraps", "[io][json][bad-input]") {
    const Json v = parse_json("99999999999999999999");
    CHECK(v.type() == Json::Type::real);
    CHECK(v.as_double() == 1e20);
    CHECK_THAT(thrown<ValueError>([&] { v.as_int64(); }), Contains("1e+20"));
}

TEST_CASE("JSON: NaN cannot be written, so a metrics file never holds one", "[io][json][bad-input]") {
    const std::string path = fresh_dir("nan") + "/metrics.json";
    Json m = Json::object();
    m["loss"] = std::nan("");
    CHECK_THAT(thrown<ValueError>([&] { save_json(path, m); }), Contains("cannot write NaN"));
    CHECK_FALSE(fs::exists(path));
}
