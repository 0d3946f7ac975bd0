// utf8.hpp — decoding and encoding UTF-8, strictly.
//
// Strict means every byte sequence that the Unicode standard calls ill-formed is
// rejected, not replaced: a stray continuation byte, a truncated sequence, an
// overlong encoding (0xC0 0xAF for '/'), a UTF-16 surrogate (U+D800..U+DFFF), or a
// value past U+10FFFF. A character tokenizer built on a silently "repaired" file
// would learn the repair, so the error, with its byte offset, goes to the user.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "io/utf8.hpp"

namespace attnlab::data {

struct Utf8Result {
    std::vector<char32_t> code_points;  // everything decoded before the error, if any
    bool ok = true;
    std::size_t error_offset = 0;       // byte offset where the ill-formed sequence starts
    std::string error;                  // e.g. "byte 0xff cannot start a character"
};

Utf8Result decode_utf8(std::string_view bytes);
using attnlab::append_utf8;  // encoding one code point: io/utf8.hpp
// "'é' (U+00E9)" — or just "U+000A" for characters that do not print, for messages.
std::string describe_code_point(char32_t code_point);

}  // namespace attnlab::data
