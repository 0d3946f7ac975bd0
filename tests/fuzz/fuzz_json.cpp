// fuzz_json.cpp — io/json.cpp's strict parser on hostile text.
// Round trip: text that parses -> to_json (compact and pretty) -> parse_json gives an
// equal value, and the compact text is a fixed point (printing is deterministic).
#include <cstddef>
#include <cstdint>

#include "io/json.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Json value;
    try {
        value = parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    } catch (const Error&) {
        return 0;
    }
    const std::string compact = to_json(value);
    const Json back = parse_json(compact, "compact");
    if (!(back == value)) fuzz::fail("fuzz_json", "compact form reads back different: " + compact);
    if (to_json(back) != compact) fuzz::fail("fuzz_json", "compact form is not a fixed point: " + compact);
    if (!(parse_json(to_json(value, JsonStyle::pretty), "pretty") == value))
        fuzz::fail("fuzz_json", "pretty form reads back different: " + compact);
    return 0;
}
