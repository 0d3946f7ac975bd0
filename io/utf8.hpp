// utf8.hpp — encoding one code point as UTF-8 (RFC 3629), for the JSON parser's \u
// escapes and data/'s tokenizers alike. Decoding, which must reject ill-formed input,
// lives with its users: io/json.cpp checks sequences in place, data/utf8.hpp
// decodes whole files.
#pragma once
#include <cstdint>
#include <string>

namespace attnlab {

// Appends code_point's 1–4 bytes; code_point must be a Unicode scalar value
// (≤ U+10FFFF, not a surrogate), which every caller has already checked.
inline void append_utf8(std::string& out, char32_t code_point) {
    const auto cp = static_cast<std::uint32_t>(code_point);
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace attnlab
