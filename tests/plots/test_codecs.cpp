// test_codecs.cpp — checksums, deflate, PNG, LZW and GIF, each checked against
// published test vectors or decoded back by the independent decoders.
#include <catch2/catch.hpp>

#include "plots/checksum.hpp"
#include "plots/deflate.hpp"
#include "plots/gif.hpp"
#include "plots/lzw.hpp"
#include "plots/png.hpp"
#include "plots/quantize.hpp"
#include "tensor/error.hpp"
#include "tests/plots/decoders.hpp"

using namespace attnlab::plots;

namespace {
// A deterministic byte source for test data (xorshift32).
std::vector<std::uint8_t> pseudo_random_bytes(std::size_t n, std::uint32_t seed, int modulo) {
    std::vector<std::uint8_t> out(n);
    for (auto& b : out) {
        seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
        b = static_cast<std::uint8_t>(seed % static_cast<std::uint32_t>(modulo));
    }
    return out;
}
}  // namespace

TEST_CASE("CRC-32 and Adler-32 match the published check values", "[plots][checksum]") {
    CHECK(crc32("123456789") == 0xCBF43926u);
    CHECK(crc32("") == 0u);
    CHECK(adler32("Wikipedia") == 0x11E60398u);
    CHECK(adler32("") == 1u);
    SECTION("computed in pieces equals computed at once") {
        CHECK(crc32("6789", crc32("12345")) == crc32("123456789"));
        std::string big(100000, 'x');
        CHECK(adler32(big.substr(50000), adler32(big.substr(0, 50000))) == adler32(big));
    }
}

TEST_CASE("zlib_compress round-trips through an independent inflate", "[plots][deflate]") {
    auto noise = pseudo_random_bytes(70000, 7, 256);
    std::string random(noise.begin(), noise.end());
    std::string repetitive;
    for (int i = 0; i < 5000; ++i) repetitive += "the cat sat on the mat " + std::to_string(i % 7);
    for (const std::string* data : {&random, &repetitive}) {
        for (auto mode : {DeflateBlocks::stored, DeflateBlocks::fixed_huffman, DeflateBlocks::smallest}) {
            std::string z = zlib_compress(*data, mode);
            REQUIRE(plots_test::zlib_inflate(z) == *data);
        }
    }
    SECTION("fixed Huffman with LZ77 compresses repetitive data; smallest never expands much") {
        CHECK(zlib_compress(repetitive, DeflateBlocks::fixed_huffman).size() < repetitive.size() / 10);
        CHECK(zlib_compress(random).size() <= random.size() + random.size() / 65535 * 5 + 11);
    }
    SECTION("an empty input is a valid stream") { CHECK(plots_test::zlib_inflate(zlib_compress("")).empty()); }
}

TEST_CASE("encode_png writes valid chunks whose data decodes to the pixels", "[plots][png]") {
    Image image(37, 23);
    auto noise = pseudo_random_bytes(image.rgb.size(), 3, 256);
    for (std::size_t i = 0; i < image.rgb.size(); ++i) image.rgb[i] = (i / 3) % 37 < 20 ? noise[i] : 200;
    std::string file = encode_png(image);
    auto png = plots_test::decode_png(file);  // checks the signature and every CRC
    CHECK(png.width == 37);
    CHECK(png.height == 23);
    CHECK(png.chunk_types == std::vector<std::string>{"IHDR", "IDAT", "IEND"});
    CHECK(png.rgb == image.rgb);
    SECTION("a corrupted byte is caught by the chunk CRC") {
        file[40] ^= 0x01;
        CHECK_THROWS(plots_test::decode_png(file));
    }
}

TEST_CASE("PPM has the P6 header and raw bytes", "[plots][ppm]") {
    Image image(2, 1, rgb(0x102030));
    CHECK(encode_ppm(image) == std::string("P6\n2 1\n255\n\x10\x20\x30\x10\x20\x30", 17));
}

TEST_CASE("LZW round-trips, growing the code width and clearing a full table", "[plots][lzw]") {
    SECTION("random indices fill the 4096-entry table: CLEAR codes and 12-bit codes appear") {
        auto data = pseudo_random_bytes(60000, 11, 256);
        auto r = plots_test::lzw_decode(lzw_encode(data, 8), 8);
        CHECK(r.indices == data);
        CHECK(r.clears >= 2);  // the initial one and at least one for a full table
        CHECK(r.max_width == 12);
    }
    SECTION("a small alphabet starts at 3 bits and widens") {
        auto data = pseudo_random_bytes(3000, 5, 4);
        auto r = plots_test::lzw_decode(lzw_encode(data, 2), 2);
        CHECK(r.indices == data);
        CHECK(r.max_width > 3);
    }
    SECTION("edge cases: empty, one index, long runs") {
        for (const auto& data : {std::vector<std::uint8_t>{}, std::vector<std::uint8_t>{3},
                                 std::vector<std::uint8_t>(10000, 1)})
            CHECK(plots_test::lzw_decode(lzw_encode(data, 2), 2).indices == data);
    }
    CHECK_THROWS_AS(lzw_encode({4}, 2), attnlab::ValueError);
    CHECK_THROWS_WITH(lzw_encode({0}, 9), Catch::Contains("min_code_size must be 2..8"));
}

TEST_CASE("quantize keeps few colours exactly and caps many at 256", "[plots][quantize]") {
    Image a(4, 4, rgb(0xffffff)), b(4, 4, rgb(0x440154));
    auto exact = quantize({a, b});
    CHECK(exact.palette.size() == 2);
    CHECK(exact.palette[exact.indices[1][0]] == rgb(0x440154));
    Image many(64, 64);
    for (int i = 0; i < 64 * 64; ++i) many.rgb[std::size_t(i) * 3] = std::uint8_t(i % 256), many.rgb[std::size_t(i) * 3 + 1] = std::uint8_t(i / 16);
    auto reduced = quantize({many});
    CHECK(reduced.palette.size() == 256);
    CHECK_THROWS_AS(quantize({a, Image(5, 4)}), attnlab::ShapeError);
}

TEST_CASE("encode_gif writes GIF89a with a looping NETSCAPE block and decodable frames", "[plots][gif]") {
    std::vector<GifFrame> frames;
    for (int f = 0; f < 3; ++f) {
        Image image(20, 10, rgb(0xffffff));
        for (int x = 0; x < 20; ++x) image.rgb[std::size_t((5 * 20 + x) * 3)] = std::uint8_t(80 * f);
        frames.push_back({image, 7 + f});
    }
    std::string gif = encode_gif(frames);
    REQUIRE(gif.substr(0, 6) == "GIF89a");
    CHECK(static_cast<std::uint8_t>(gif[6]) == 20);  // width, little-endian
    CHECK(static_cast<std::uint8_t>(gif[8]) == 10);
    CHECK((static_cast<std::uint8_t>(gif[10]) & 0x80) != 0);  // global colour table
    CHECK(gif.back() == '\x3B');
    std::size_t netscape = gif.find("\x21\xFF\x0BNETSCAPE2.0\x03\x01");
    REQUIRE(netscape != std::string::npos);
    CHECK(gif.substr(netscape + 16, 3) == std::string("\x00\x00\x00", 3));  // loop forever, terminator

    // Walk the frames: graphic control (delay), image descriptor, LZW data in sub-blocks.
    int table = 2 << (static_cast<std::uint8_t>(gif[10]) & 7);
    std::size_t at = netscape + 19;
    for (int f = 0; f < 3; ++f) {
        REQUIRE(gif.substr(at, 3) == "\x21\xF9\x04");
        CHECK(static_cast<std::uint8_t>(gif[at + 4]) == 7 + f);
        at += 8;
        REQUIRE(gif[at] == '\x2C');
        int min_code = gif[at + 10];
        at += 11;
        std::string codes;
        while (std::uint8_t n = static_cast<std::uint8_t>(gif[at])) codes += gif.substr(at + 1, n), at += 1 + n;
        ++at;
        auto decoded = plots_test::lzw_decode(codes, min_code);
        REQUIRE(decoded.indices.size() == 200);
        // Row 5 has the frame's own colour; look it up in the global table.
        std::size_t entry = 13 + 3 * std::size_t(decoded.indices[5 * 20]);
        CHECK(entry < 13 + 3 * std::size_t(table));
        CHECK(static_cast<std::uint8_t>(gif[entry]) == 80 * f);
    }
    CHECK(at == gif.size() - 1);
    CHECK_THROWS_AS(encode_gif({}), attnlab::ValueError);
}
