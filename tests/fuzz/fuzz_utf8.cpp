// fuzz_utf8.cpp — data/utf8.cpp's strict decoder and the two tokenizers on hostile text.
// Round trips:
//   decode_utf8 -> append_utf8 gives back the bytes (well-formed input), or the bytes
//   before error_offset (ill-formed input: everything decoded before the error is kept);
//   CharTokenizer built from the text: encode -> decode gives the text back;
//   WordTokenizer over the text's own words: encode -> decode gives the words joined
//   by single spaces.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <optional>
#include <sstream>

#include "data/tokenizer.hpp"
#include "data/utf8.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;
using namespace attnlab::data;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const Utf8Result r = decode_utf8(text);
    std::string encoded;
    for (char32_t c : r.code_points) append_utf8(encoded, c);
    const std::string_view expected = r.ok ? text : text.substr(0, r.error_offset);
    if (!r.ok && r.error_offset >= size) fuzz::fail("fuzz_utf8", "error offset past the end");
    if (encoded != expected) fuzz::fail("fuzz_utf8", "decode then encode changed the bytes");

    if (!r.ok) {  // both tokenizers must refuse the text, as ValueError
        try {
            CharTokenizer::from_text(text);
            fuzz::fail("fuzz_utf8", "CharTokenizer accepted ill-formed UTF-8");
        } catch (const ValueError&) {
        }
        return 0;
    }
    const CharTokenizer chars = CharTokenizer::from_text(text);
    const std::vector<std::int64_t> ids = chars.encode(text);
    if (ids.size() != r.code_points.size()) fuzz::fail("fuzz_utf8", "one id per code point");
    if (chars.decode(ids) != text) fuzz::fail("fuzz_utf8", "CharTokenizer decode(encode(text)) != text");

    // Words: whitespace-separated, each once, unless one is not a valid vocabulary word.
    std::istringstream in{std::string(text)};
    std::vector<std::string> words, unique;
    for (std::string w; in >> w;) {
        words.push_back(w);
        if (std::find(unique.begin(), unique.end(), w) == unique.end()) unique.push_back(w);
    }
    std::optional<WordTokenizer> tok;
    try {
        tok.emplace(Vocab(unique));
    } catch (const ValueError&) {
        return 0;  // a special-looking word such as "<pad>": Vocab refuses it by name
    }
    std::string joined;
    for (const std::string& w : words) joined += (joined.empty() ? "" : " ") + w;
    if (tok->decode(tok->encode(text)) != joined) fuzz::fail("fuzz_utf8", "WordTokenizer round trip");
    return 0;
}
