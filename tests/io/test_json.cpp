// test_json.cpp — the JSON value type, its strict parser and its serializer.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>

#include "io/fileio.hpp"
#include "io/json.hpp"
#include "tests/support/bad_input.hpp"

using namespace attnlab;
using attnlab::testing::fresh_dir;
using attnlab::testing::thrown;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

std::uint64_t bits_of(double d) {
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

}  // namespace

TEST_CASE("JSON values serialize compactly and pretty, and parse back equal", "[io][json]") {
    Json v = Json::object();
    v["name"] = "attnlab";
    v["n"] = 3;
    v["loss"] = Json::Array{Json(2.5), Json(0.1)};
    v["empty"] = Json::object();
    v["none"] = Json::array();
    v["ok"] = true;
    v["nothing"] = nullptr;

    const std::string compact = R"({"name":"attnlab","n":3,"loss":[2.5,0.1],"empty":{},"none":[],"ok":true,"nothing":null})";
    CHECK(to_json(v) == compact);
    CHECK(to_json(v, JsonStyle::pretty) ==
          "{\n"
          "  \"name\": \"attnlab\",\n"
          "  \"n\": 3,\n"
          "  \"loss\": [\n"
          "    2.5,\n"
          "    0.1\n"
          "  ],\n"
          "  \"empty\": {},\n"
          "  \"none\": [],\n"
          "  \"ok\": true,\n"
          "  \"nothing\": null\n"
          "}");
    CHECK(parse_json(compact) == v);
    CHECK(parse_json(to_json(v, JsonStyle::pretty)) == v);
    CHECK(parse_json(" \t\r\n[ 1 , {\"a\" : [ ] } ]\n ") == Json(Json::Array{Json(1), Json(Json::Object{{"a", Json::array()}})}));
}

TEST_CASE("JSON objects keep their keys in insertion order", "[io][json]") {
    const Json v = parse_json(R"({"z":1,"a":2,"m":{"y":3,"b":4}})");
    REQUIRE(v.as_object().size() == 3);
    CHECK(v.as_object()[0].first == "z");
    CHECK(v.as_object()[1].first == "a");
    CHECK(v.as_object()[2].first == "m");
    CHECK(to_json(v) == R"({"z":1,"a":2,"m":{"y":3,"b":4}})");
    // Order is part of what is preserved, so it is part of equality too.
    CHECK_FALSE(parse_json(R"({"a":1,"b":2})") == parse_json(R"({"b":2,"a":1})"));
}

TEST_CASE("JSON numbers: integers stay exact, doubles print shortest and round-trip bit for bit", "[io][json]") {
    CHECK(to_json(Json(0.1)) == "0.1");
    CHECK(to_json(Json(1e300)) == "1e+300");
    CHECK(to_json(Json(2.0)) == "2.0");  // a whole double keeps a ".0" so it reads back as a double
    CHECK(to_json(Json(5e-324)) == "5e-324");
    CHECK(to_json(Json(-0.0)) == "-0.0");
    CHECK(std::signbit(parse_json("-0").as_double()));
    CHECK(std::signbit(parse_json("-0.0").as_double()));
    CHECK(parse_json("0").is_integer());

    const std::int64_t two53 = std::int64_t(1) << 53;
    CHECK(to_json(Json(two53)) == "9007199254740992");
    CHECK(parse_json("9007199254740992").as_int64() == two53);
    CHECK(parse_json("9007199254740993").as_int64() == two53 + 1);  // exact: not rounded through a double
    CHECK(parse_json("9007199254740992.0").as_int64() == two53);  // a double holding an integer exactly
    CHECK_THROWS_AS(parse_json("9007199254740994.0").as_int64(), ValueError);  // beyond 2^53 a double may be rounded
    CHECK_THROWS_WITH(parse_json("1.5").as_int64(), Catch::Contains("expected an integer, found the number 1.5"));
    const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    CHECK(parse_json(to_json(Json(lo))).as_int64() == lo);
    CHECK(parse_json(to_json(Json(hi))).as_int64() == hi);
    const Json big = parse_json("9223372036854775808");  // one past int64: becomes a double
    CHECK(big.type() == Json::Type::real);
    CHECK(big.as_double() == 9223372036854775808.0);

    CHECK(Json(1) == Json(1.0));
    CHECK_FALSE(Json(two53 + 1) == Json(static_cast<double>(two53)));
    CHECK(parse_json("1E2") == Json(100.0));
    CHECK(parse_json("-12.5e-1") == Json(-1.25));

    // Many doubles from all over the exponent range, denormals included: text and back is the same bits.
    std::uint64_t state = 0x9E3779B97F4A7C15u;
    int checked = 0;
    for (int i = 0; i < 20000; ++i) {
        state = state * 6364136223846793005u + 1442695040888963407u;  // an LCG: fixed and portable
        double d;
        std::memcpy(&d, &state, sizeof d);
        if (!std::isfinite(d)) continue;
        const Json back = parse_json(to_json(Json(d)));
        if (bits_of(back.as_double()) != bits_of(d)) FAIL("round trip changed " << to_json(Json(d)));
        ++checked;
    }
    CHECK(checked > 19000);
}

TEST_CASE("JSON strings: every escape, \\u escapes and surrogate pairs become UTF-8", "[io][json]") {
    CHECK(parse_json(R"("\"\\\/\b\f\n\r\t")").as_string() == "\"\\/\b\f\n\r\t");
    CHECK(parse_json(R"("\u0041\u00e9\u20AC\ud83d\ude00")").as_string() == "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
    CHECK(parse_json(R"("\u0000")").as_string() == std::string(1, '\0'));
    CHECK(parse_json("\"caf\xC3\xA9 \xF0\x9F\x98\x80\"").as_string() == "caf\xC3\xA9 \xF0\x9F\x98\x80");  // raw UTF-8

    // Written back: quotes, backslashes and control characters escaped, UTF-8 as it is.
    CHECK(to_json(Json(std::string("a\"b\\c\n\x01\x1F/\xC3\xA9\0", 12))) == "\"a\\\"b\\\\c\\n\\u0001\\u001F/\xC3\xA9\\u0000\"");
    std::string all;
    for (int c = 0; c < 0x80; ++c) all += static_cast<char>(c);
    all += "\xF4\x8F\xBF\xBF";  // U+10FFFF, the last code point
    CHECK(parse_json(to_json(Json(all))).as_string() == all);
}

TEST_CASE("JSON that breaks RFC 8259 is rejected at the right byte", "[io][json][errors]") {
    struct Case {
        std::string text;
        std::size_t offset;
        const char* message;
    };
    const Case cases[] = {
        {"", 0, "unexpected end of input"},
        {"   ", 3, "unexpected end of input"},
        {"[1,]", 3, "unexpected character ']', expected a value"},
        {"{\"a\":1,}", 7, "expected a string key"},
        {"{a:1}", 1, "expected a string key"},
        {"{\"a\" 1}", 5, "expected ':' after an object key"},
        {"[1 2]", 3, "expected ']' or ',' in an array"},
        {"{\"a\":1 \"b\":2}", 7, "expected '}' or ',' in an object"},
        {"01", 1, "leading zeros"},
        {"-01", 2, "leading zeros"},
        {"-", 1, "expected a digit after '-'"},
        {"1.", 2, "expected a digit after '.'"},
        {"1.e5", 2, "expected a digit after '.'"},
        {"1e", 2, "expected a digit in the exponent"},
        {"+1", 0, "unexpected character '+'"},
        {".5", 0, "unexpected character '.'"},
        {"NaN", 0, "no NaN or Infinity"},
        {"Infinity", 0, "no NaN or Infinity"},
        {"-Infinity", 1, "no NaN or Infinity"},
        {"1e400", 0, "out of the range of a double"},
        {"tru", 0, "expected a value"},
        {"nul", 0, "expected a value"},
        {"'a'", 0, "unexpected character '''"},
        {"[1] x", 4, "unexpected character 'x' after the JSON value"},
        {"{} {}", 3, "after the JSON value"},
        {"\"abc", 4, "unterminated string"},
        {"\"a\x01\"", 2, "raw control character (byte 0x01)"},
        {"\"a\tb\"", 2, "raw control character"},
        {"\"\\x\"", 1, "invalid escape '\\x'"},
        {"\"\\u12G4\"", 3, "four hex digits"},
        {"\"\\u12\"", 3, "four hex digits"},
        {"\"\\ud800\"", 1, "high surrogate not followed by a \\u low surrogate"},
        {"\"\\ud800\\u0041\"", 1, "high surrogate not followed"},
        {"\"\\udc00\"", 1, "unpaired low surrogate"},
        {"\"\xC0\xAF\"", 1, "invalid UTF-8 (byte 0xC0)"},         // overlong '/'
        {"\"\xE0\x80\xAF\"", 1, "invalid UTF-8"},                 // overlong, 3 bytes
        {"\"\xED\xA0\x80\"", 1, "invalid UTF-8"},                 // a UTF-16 surrogate encoded in UTF-8
        {"\"\xF4\x90\x80\x80\"", 1, "invalid UTF-8"},             // beyond U+10FFFF
        {"\"a\x80\"", 2, "invalid UTF-8 (byte 0x80)"},            // a lone continuation byte
        {"\"\xC3\"", 1, "invalid UTF-8"},                         // truncated sequence
        {"{\"a\":1,\"a\":2}", 7, "duplicate key \"a\""},
        {"{\"k\":{\"a\":1,\"b\":{},\"a\":[]}}", 19, "duplicate key \"a\""},
        {"\xEF\xBB\xBF{}", 0, "unexpected byte 0xEF"},          // a byte-order mark is not JSON
    };
    for (const Case& c : cases) {
        INFO("input: " << c.text);
        try {
            parse_json(c.text, "case.json");
            FAIL("accepted");
        } catch (const JsonParseError& e) {
            CHECK(e.offset == c.offset);
            CHECK_THAT(e.what(), Catch::Contains(c.message) && Catch::Contains("'case.json': byte " + std::to_string(c.offset)));
        }
    }
    // The same key in different objects is fine.
    CHECK(parse_json(R"({"a":{"a":1},"b":{"a":2}})").size() == 2);
}

TEST_CASE("JSON nesting is limited so hostile input cannot exhaust the stack", "[io][json][errors]") {
    const auto nested = [](int depth) { return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']'); };
    CHECK_NOTHROW(parse_json(nested(kMaxJsonDepth)));
    try {
        parse_json(nested(kMaxJsonDepth + 1));
        FAIL("accepted");
    } catch (const JsonParseError& e) {
        CHECK(e.offset == static_cast<std::size_t>(kMaxJsonDepth));
        CHECK_THAT(e.what(), Catch::Contains("nesting deeper than 64 levels"));
    }
    CHECK_THROWS_AS(parse_json(std::string(100000, '[')), JsonParseError);
    std::string objects;
    for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
    CHECK_THROWS_AS(parse_json(objects), JsonParseError);
}

TEST_CASE("JSON the serializer cannot represent is an error, not a corrupt file", "[io][json][errors]") {
    CHECK_THROWS_WITH(to_json(Json(std::nan(""))), Catch::Contains("cannot write NaN"));
    CHECK_THROWS_WITH(to_json(Json(Json::Array{Json(std::numeric_limits<double>::infinity())})), Catch::Contains("Infinity"));
    CHECK_THROWS_AS(to_json(Json(-std::numeric_limits<double>::infinity())), ValueError);
    CHECK_THROWS_WITH(to_json(Json("ok\xFF")), Catch::Contains("not valid UTF-8 at byte 2"));
    Json key_bad = Json::object();
    key_bad["\xC0\xAF"] = 1;
    CHECK_THROWS_AS(to_json(key_bad), ValueError);
}

TEST_CASE("JSON typed access names what it expected and what it found", "[io][json][errors]") {
    const Json v = parse_json(R"({"n":1,"s":"x","a":[true]})");
    CHECK(v.at("n").as_int64() == 1);
    CHECK(v.at("s").as_string() == "x");
    CHECK(v.at("a").as_array()[0].as_bool());
    CHECK(v.find("missing") == nullptr);
    CHECK_THROWS_WITH(v.at("missing"), Catch::Contains("no key \"missing\""));
    CHECK_THROWS_WITH(v.at("n").as_string(), Catch::Contains("expected a string, found integer"));
    CHECK_THROWS_WITH(v.at("s").as_double(), Catch::Contains("expected a number, found string"));
    CHECK_THROWS_WITH(v.at("a").as_object(), Catch::Contains("expected an object, found array"));
    CHECK_THROWS_AS(v.at("n").size(), ValueError);
    Json a;
    a.push_back(1);
    a.push_back("two");
    CHECK(to_json(a) == R"([1,"two"])");
    Json o;
    o["x"]["y"] = 2.5;  // nulls become containers on first use
    CHECK(to_json(o) == R"({"x":{"y":2.5}})");
    CHECK_THROWS_AS(Json(3)["x"], ValueError);
}

TEST_CASE("JSON files: save_json writes pretty text atomically, load_json reads it", "[io][json]") {
    const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/io/metrics.json";
    Json m = Json::object();
    m["step"] = 10;
    m["loss"] = 1.25;
    save_json(path, m);
    CHECK(read_file(path) == "{\n  \"step\": 10,\n  \"loss\": 1.25\n}\n");
    CHECK(load_json(path) == m);
    CHECK_THROWS_WITH(load_json("/nonexistent/metrics.json"), Catch::Contains("/nonexistent/metrics.json"));
    write_file_atomic(path, "{\"step\": 10,}");
    CHECK_THROWS_WITH(load_json(path), Catch::Contains(path) && Catch::Contains("byte 12"));
}

// ---- the bad-input catalogue: each case names the file and the offending value ----------

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
