// test_safetensors.cpp — safetensors round trips, the exact bytes we write, a file
// written by an independent implementation, and the validation of damaged files.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <limits>

#include "io/safetensors.hpp"
#include "io/fileio.hpp"
#include "tensor/ops.hpp"
#include "tests/support/bad_input.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using attnlab::testing::bit_identical;
using attnlab::testing::fresh_dir;
using attnlab::testing::thrown;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// A file from header text and buffer bytes, for hand-made (mostly broken) files.
std::string file_with(const std::string& header, const std::string& buffer = "") {
    std::string out;
    for (int k = 0; k < 8; ++k) out += static_cast<char>((header.size() >> (8 * k)) & 0xFF);
    return out + header + buffer;
}

// What parse_safetensors says about a damaged file: the IOError's message, or "" if
// it loaded. Any other exception escapes and fails the test.
std::string rejection(const std::string& bytes) {
    try {
        parse_safetensors(bytes, "bad.safetensors");
    } catch (const IOError& e) {
        return e.what();
    }
    return "";
}

Catch::Matchers::StdString::ContainsMatcher says(const std::string& problem) { return Catch::Contains(problem); }

// The raw bytes of a tensor (contiguous, in C order).
std::string bytes_of(const Tensor& t) {
    const Tensor c = contiguous(t);
    const std::size_t size = dtype_size(c.dtype());
    return std::string(static_cast<const char*>(c.impl()->storage->data) + c.offset() * static_cast<std::int64_t>(size),
                       static_cast<std::size_t>(c.numel()) * size);
}

// Where the buffer starts: 8 + the header length (small files: two bytes of it suffice).
std::size_t buffer_start(const std::string& file) {
    return 8 + static_cast<std::size_t>(static_cast<unsigned char>(file[0]) | static_cast<unsigned char>(file[1]) << 8);
}

std::string le_float(float f) { return bytes_of(scalar(f)); }

// One tensor of each dtype, a 0-d tensor, a zero-size tensor, views that are not
// contiguous or start at an offset, an F64 that lands 4 bytes off alignment, and a
// tensor whose name is the empty string.
std::vector<NamedTensor> varied_tensors() {
    constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    return {
        {"f32", tensor({{1.5, -2, 3}, {4, 5e-30, -0.0}})},
        {"odd", tensor({3.0})},
        {"f64", tensor({0.1, 1e300, -1e-300, std::numeric_limits<double>::quiet_NaN()}, kFloat64)},
        {"i64", from_vector<std::int64_t>({0, -1, lo, hi}, {2, 2})},
        {"scalar", scalar(7.25, kFloat64)},
        {"empty", zeros({2, 0, 3}, kInt64)},
        {"transposed", arange(0.0, 24.0).reshape({2, 3, 4}).transpose(0, 2)},
        {"narrowed", arange(10).narrow(0, 3, 4)},
        {"layers.0.attn.w_q", ones({2, 2}).requires_grad_()},
        {"", tensor({2.0, -1.0})},  // the empty name is legal (PyTorch's root module has it)
    };
}

}  // namespace

TEST_CASE("safetensors round trips every dtype, 0-d, zero-size and views bit for bit", "[io][safetensors]") {
    const std::vector<NamedTensor> tensors = varied_tensors();
    const std::string bytes = serialize_safetensors(tensors);
    const SafetensorsFile back = parse_safetensors(bytes);
    REQUIRE(back.tensors.size() == tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        INFO("tensor " << tensors[i].name);
        CHECK(back.tensors[i].name == tensors[i].name);  // in the order they were given
        CHECK(back.tensors[i].tensor.is_contiguous());
        CHECK(bit_identical(back.tensors[i].tensor, tensors[i].tensor));
        CHECK_FALSE(back.tensors[i].tensor.requires_grad());
    }
    CHECK(back.metadata.empty());
    CHECK(back.at("transposed").shape() == Shape({4, 3, 2}));
    CHECK(back.at("transposed").at({3, 2, 1}) == 23.0);
    CHECK(back.at("").at({1}) == -1.0);
}

TEST_CASE("safetensors metadata round trips, and files are written atomically to a path", "[io][safetensors]") {
    const std::map<std::string, std::string> metadata = {
        {"step", "1000"}, {"note", "caf\xC3\xA9 \xF0\x9F\x98\x80 \"quoted\"\n\ttabbed"}, {"empty", ""}, {"key with spaces", "{}"}};
    const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/io/ckpt.safetensors";
    save_safetensors(path, varied_tensors(), metadata);
    const SafetensorsFile back = load_safetensors(path);
    CHECK(back.metadata == metadata);
    CHECK(back.source == path);
    CHECK(bit_identical(back.at("i64"), varied_tensors()[3].tensor));
    CHECK(read_file(path) == serialize_safetensors(varied_tensors(), metadata));

    CHECK_THROWS_WITH(load_safetensors("/nonexistent/ckpt.safetensors"), Catch::Contains("/nonexistent/ckpt.safetensors"));
    CHECK_THROWS_AS(back.at("w_k"), IOError);
    CHECK_THROWS_WITH(back.at("w_k"), Catch::Contains("'" + path + "' has no tensor 'w_k'; it has 'f32', 'odd', 'f64'"));
    CHECK_THROWS_WITH(parse_safetensors(serialize_safetensors({})).at("x"), Catch::Contains("'<memory>'") && Catch::Contains("it holds no tensors"));
}

TEST_CASE("safetensors writes the same bytes as the reference implementation", "[io][safetensors]") {
    // The byte strings the reference implementation's own tests pin
    // (huggingface/safetensors, safetensors/src/tensor.rs): compact JSON with
    // __metadata__ first, the header padded with spaces to a multiple of 8.
    const std::string data = le_float(0) + le_float(1) + le_float(2) + le_float(3) + le_float(4) + le_float(5);
    const Tensor t = arange(0.0, 6.0);
    CHECK(serialize_safetensors({{"attn.0", t.reshape({1, 2, 3})}}) ==
          std::string("\x40\0\0\0\0\0\0\0", 8) + R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})" + data);
    CHECK(serialize_safetensors({{"attn0", t.reshape({1, 1, 2, 3})}}) ==
          std::string("\x48\0\0\0\0\0\0\0", 8) + R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})" + "       " + data);
    CHECK(serialize_safetensors({}) == std::string("\x08\0\0\0\0\0\0\0{}      ", 16));
    CHECK(serialize_safetensors({}, {{"framework", "pt"}}) ==
          std::string("\x28\0\0\0\0\0\0\0", 8) + R"({"__metadata__":{"framework":"pt"}})" + "     ");

    // Our other dtypes, and offsets that follow the order given.
    CHECK(serialize_safetensors({{"b", tensor({7}, kFloat64)}, {"a", from_vector<std::int64_t>({-2}, {1})}}) ==
          file_with(R"({"b":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"a":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}}    )",
                    std::string("\0\0\0\0\0\0\x1C\x40", 8) + std::string("\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 8)));
}

TEST_CASE("safetensors reads a file written by an independent implementation", "[io][safetensors]") {
    // tools/make_safetensors_fixture.py wrote it with Python's json + struct + numpy:
    // other spacing, \u escapes (a surrogate pair too), __metadata__ last, and a
    // buffer order that differs from the header order.
    const SafetensorsFile f = load_safetensors(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/safetensors/reference.safetensors");
    REQUIRE(f.tensors.size() == 5);
    const char* names[] = {"embedding", "stats", "positions", "scale", "empty"};  // header order
    for (std::size_t i = 0; i < 5; ++i) CHECK(f.tensors[i].name == names[i]);

    std::vector<float> embedding;
    for (int k = 0; k < 12; ++k) embedding.push_back(static_cast<float>(k) / 8.0f - 0.75f);
    CHECK(bit_identical(f.at("embedding"), from_vector<float>(embedding, {3, 4})));
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(bit_identical(f.at("stats"), from_vector<double>({0.1, -0.0, 1e300, 5e-324, inf, -inf, std::numeric_limits<double>::quiet_NaN()}, {7})));
    CHECK(bit_identical(f.at("positions"), from_vector<std::int64_t>({0, -1, std::int64_t(1) << 40, std::numeric_limits<std::int64_t>::min(),
                                                                      std::numeric_limits<std::int64_t>::max()}, {5})));
    CHECK(bit_identical(f.at("scale"), scalar(2.5)));
    CHECK(bit_identical(f.at("empty"), zeros({0, 3})));
    CHECK(f.metadata == std::map<std::string, std::string>{
                            {"format", "pt"}, {"step", "1000"}, {"note", "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80 \"quoted\"\n"}});
}

TEST_CASE("safetensors rejects a damaged header length or header, naming the file and the problem", "[io][safetensors][errors]") {
    CHECK_THAT(rejection("abc"), says("'bad.safetensors': file is 3 bytes, too short for the 8-byte header length"));
    CHECK_THAT(rejection(std::string("\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF{}", 10)),
               says("declares a header of 18446744073709551615 bytes, more than the limit of 100000000"));
    CHECK_THAT(rejection(std::string("\x01\xE1\xF5\x05\0\0\0\0{}", 10)), says("header of 100000001 bytes, more than the limit"));
    CHECK_THAT(rejection(std::string("\x00\xE1\xF5\x05\0\0\0\0{}", 10)), says("header of 100000000 bytes, but only 2 bytes follow"));
    CHECK_THAT(rejection(file_with("[1, 2]  ")), says("header is not a JSON object"));
    CHECK_THAT(rejection(file_with(" {}     ")), says("must start with '{'"));
    CHECK_THAT(rejection(file_with("")), says("header is not a JSON object"));
    CHECK_THAT(rejection(file_with(R"({"a":})")), says("header is not valid JSON: byte 5 of the header: unexpected character '}'"));
    CHECK_THAT(rejection(file_with(std::string("{}\0\0\0\0\0\0", 8))), says("not valid JSON: byte 2"));  // padding must be spaces
    CHECK_THAT(rejection(file_with("{\"a\xFF\":1}")), says("invalid UTF-8"));
    const std::string entry = R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
    CHECK_THAT(rejection(file_with(R"({"w":)" + entry + R"(,"w":)" + entry + "}", "12345678")),
               says("not valid JSON: byte ") && says("duplicate key \"w\""));
}

TEST_CASE("safetensors rejects malformed tensor entries and metadata", "[io][safetensors][errors]") {
    const auto one = [](const std::string& entry, const std::string& buffer = "1234") {
        return rejection(file_with(R"({"w":)" + entry + "}", buffer));
    };
    CHECK_THAT(one("[0, 4]"), says("tensor 'w': entry is array, not an object"));
    CHECK_THAT(one(R"({"shape":[1],"data_offsets":[0,4]})"), says("tensor 'w': missing 'dtype'"));
    CHECK_THAT(one(R"({"dtype":"F32","data_offsets":[0,4]})"), says("missing 'shape'"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1]})"), says("missing 'data_offsets'"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4],"offsets":[0,4]})"), says("unexpected key 'offsets'"));
    CHECK_THAT(one(R"({"dtype":"F16","shape":[2],"data_offsets":[0,4]})"), says("dtype \"F16\" is not supported (attnlab reads F32, F64, I64)"));
    CHECK_THAT(one(R"({"dtype":"f32","shape":[1],"data_offsets":[0,4]})"), says("dtype \"f32\" is not supported"));
    CHECK_THAT(one(R"({"dtype":4,"shape":[1],"data_offsets":[0,4]})"), says("dtype 4 is not supported"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})"), says("shape [-1] must hold non-negative integers"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1.0],"data_offsets":[0,4]})"), says("must hold non-negative integers"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":["1"],"data_offsets":[0,4]})"), says("must hold non-negative integers"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":4,"data_offsets":[0,4]})"), says("shape is integer, not an array"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]})"),
               says("shape has 9 dimensions, more than attnlab's maximum of 8"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]})"), says("is too large to address"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[0,4294967296,4294967296],"data_offsets":[0,0]})", ""), says("is too large to address"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0]})"), says("data_offsets [0] must be two non-negative integers"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4,8]})"), says("must be two non-negative integers"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1],"data_offsets":[-4,0]})"), says("must be two non-negative integers"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,4.0]})"), says("must be two non-negative integers"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1],"data_offsets":{"begin":0}})"), says("must be two non-negative integers"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[0],"data_offsets":[4,0]})"), says("data_offsets [4, 0] end before they begin"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})"), says("data_offsets [0, 8] run past the end of the 4-byte buffer"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[1],"data_offsets":[0,9223372036854775807]})"), says("run past the end"));
    CHECK_THAT(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,4]})"),
               says("tensor 'w': shape [2] of F32 needs 8 bytes, but data_offsets [0, 4] hold 4"));
    CHECK_THAT(one(R"({"dtype":"F64","shape":[1],"data_offsets":[0,4]})"), says("shape [1] of F64 needs 8 bytes"));

    const std::string w = R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
    CHECK_THAT(rejection(file_with(R"({"__metadata__":{"step":1000},)" + w + "}", "1234")),
               says("__metadata__ value of 'step' is integer; metadata values must be strings"));
    CHECK_THAT(rejection(file_with(R"({"__metadata__":["a"],)" + w + "}", "1234")), says("__metadata__ is array, not an object"));
    CHECK(rejection(file_with(R"({"__metadata__":{},)" + w + "}", "1234")).empty());  // empty metadata is fine
}

TEST_CASE("safetensors rejects tensors that overlap, leave gaps, or leave bytes over", "[io][safetensors][errors]") {
    const auto f32 = [](const std::string& name, int begin, int end, int n) {
        return "\"" + name + R"(":{"dtype":"F32","shape":[)" + std::to_string(n) + R"(],"data_offsets":[)" +
               std::to_string(begin) + "," + std::to_string(end) + "]}";
    };
    const std::string buf12(12, 'x'), buf16(16, 'x');
    CHECK_THAT(rejection(file_with("{" + f32("a", 0, 8, 2) + "," + f32("b", 4, 12, 2) + "}", buf12)),
               says("tensors 'a' [0, 8] and 'b' [4, 12] overlap"));
    CHECK_THAT(rejection(file_with("{" + f32("b", 4, 12, 2) + "," + f32("a", 0, 8, 2) + "}", buf12)), says("overlap"));
    CHECK_THAT(rejection(file_with("{" + f32("a", 0, 8, 2) + "," + f32("alias", 0, 8, 2) + "}", buf16)),
               says("tensors 'a' [0, 8] and 'alias' [0, 8] overlap"));  // two names for one storage
    CHECK_THAT(rejection(file_with("{" + f32("a", 0, 8, 2) + "," + f32("z", 4, 4, 0) + "}", std::string(8, 'x'))),
               says("overlap"));  // even a zero-size tensor may not sit inside another
    CHECK_THAT(rejection(file_with("{" + f32("a", 0, 4, 1) + "," + f32("b", 8, 16, 2) + "}", buf16)),
               says("bytes [4, 8) of the buffer belong to no tensor"));
    CHECK_THAT(rejection(file_with("{" + f32("a", 4, 12, 2) + "}", buf12)), says("bytes [0, 4) of the buffer belong to no tensor"));
    CHECK_THAT(rejection(file_with("{" + f32("a", 0, 8, 2) + "}", buf12)), says("bytes [8, 12) of the buffer belong to no tensor"));
    CHECK_THAT(rejection(file_with("{}", "x")), says("bytes [0, 1) of the buffer belong to no tensor"));
    // Back to back in any header order, zero-size tensors anywhere on a boundary: fine.
    const SafetensorsFile ok = parse_safetensors(
        file_with("{" + f32("b", 4, 12, 2) + "," + f32("z", 4, 4, 0) + "," + f32("a", 0, 4, 1) + "," + f32("e", 12, 12, 0) + "}", buf12));
    CHECK(ok.tensors.size() == 4);
    CHECK(ok.tensors[0].name == "b");
}

TEST_CASE("safetensors: a file cut short anywhere is rejected, never read past its end", "[io][safetensors][errors]") {
    const std::string good = serialize_safetensors(varied_tensors(), {{"step", "7"}});
    const std::size_t header_end = buffer_start(good);
    for (std::size_t n = 0; n < good.size(); ++n) {
        INFO("cut to " << n << " of " << good.size() << " bytes");
        const std::string why = rejection(good.substr(0, n));
        CHECK_THAT(why, says("'bad.safetensors'"));
        if (n < 8) CHECK_THAT(why, says("too short for the 8-byte header length"));
        else if (n < header_end) CHECK_THAT(why, says("bytes follow the length"));
        else CHECK_THAT(why, says("run past the end of the"));
    }
}

TEST_CASE("safetensors: every header byte flipped either loads the same data or is an IOError", "[io][safetensors][errors]") {
    // Run under `make asan` this also shows no flip makes the reader touch memory it
    // should not. Flips that survive can only change names or metadata, never what
    // the tensors hold, because the tensors must still tile the buffer exactly.
    const std::vector<NamedTensor> tensors = {{"w", tensor({{1, 2}, {3, 4}})}, {"ids", arange(3)}, {"s", scalar(0.5, kFloat64)}};
    const std::string good = serialize_safetensors(tensors, {{"step", "12"}});
    const std::size_t header_end = buffer_start(good);
    std::string buffer;
    for (const NamedTensor& t : tensors) buffer += bytes_of(t.tensor);
    REQUIRE(good.substr(header_end) == buffer);

    int loaded = 0, rejected = 0;
    for (std::size_t i = 0; i < header_end; ++i) {
        for (unsigned char mask : {0x01, 0x02, 0x10, 0x20, 0x80, 0xFF}) {
            std::string bad = good;
            bad[i] = static_cast<char>(bad[i] ^ mask);
            INFO("byte " << i << " ('" << good[i] << "') xor " << static_cast<int>(mask));
            if (rejection(bad).empty()) {
                const SafetensorsFile f = parse_safetensors(bad);
                std::string data;
                for (const NamedTensor& t : f.tensors) data += bytes_of(t.tensor);
                CHECK(data == buffer);
                ++loaded;
            } else {
                ++rejected;
            }
        }
    }
    CHECK(loaded > 0);    // e.g. a letter of a name or of the metadata changed
    CHECK(rejected > 0);  // most flips
}

TEST_CASE("safetensors refuses to write what it could not read back", "[io][safetensors][errors]") {
    const Tensor t = tensor({1});
    CHECK_THROWS_WITH(serialize_safetensors({{"a", t}, {"__metadata__", t}}), Catch::Contains("tensor 1 is named '__metadata__'"));
    CHECK_THROWS_WITH(serialize_safetensors({{"a", t}, {"b", t}, {"a", t}}), Catch::Contains("tensor 2: the name 'a' is used twice"));
    CHECK_THROWS_WITH(serialize_safetensors({{"a", Tensor()}}), Catch::Contains("tensor 0 ('a') is undefined"));
    CHECK_THROWS_WITH(serialize_safetensors({{"bad\xFF", t}}), Catch::Contains("save_safetensors: to_json: string is not valid UTF-8"));
    CHECK_THROWS_AS(serialize_safetensors({{"a", t}}, {{"k", "\xC0\xAF"}}), ValueError);
    CHECK_THROWS_AS(save_safetensors(std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/io/never.safetensors", {{"a", t}, {"a", t}}), ValueError);
    CHECK_FALSE(std::ifstream(std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/io/never.safetensors").good());
}

// ---- the bad-input catalogue: each case names the file and the offending value ----------

TEST_CASE("safetensors: shape [2^31, 2^31] of F32 with an empty byte range", "[io][safetensors][bad-input]") {
    const std::string bytes =
        file_with(R"({"w":{"dtype":"F32","shape":[2147483648,2147483648],"data_offsets":[0,0]}})");
    CHECK_THAT(thrown<IOError>([&] { parse_safetensors(bytes, "wrap.safetensors"); }),
               Contains("'wrap.safetensors': tensor 'w': shape [2147483648, 2147483648] is too large to address"));
}

TEST_CASE("safetensors: data_offsets past the end of the buffer", "[io][safetensors][bad-input]") {
    const std::string bytes = file_with(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "abcd");
    CHECK_THAT(thrown<IOError>([&] { parse_safetensors(bytes, "short.safetensors"); }),
               Contains("tensor 'w': data_offsets [0, 8] run past the end of the 4-byte buffer"));
}

TEST_CASE("safetensors: two tensors over the same bytes", "[io][safetensors][bad-input]") {
    const std::string bytes = file_with(
        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
        "abcd");
    CHECK_THAT(thrown<IOError>([&] { parse_safetensors(bytes, "alias.safetensors"); }),
               Contains("tensors 'a' [0, 4] and 'b' [0, 4] overlap"));
}

TEST_CASE("safetensors: a dtype attnlab does not hold", "[io][safetensors][bad-input]") {
    const std::string bytes = file_with(R"({"w":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}})", "ab");
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
