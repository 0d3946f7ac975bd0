// utf8.cpp — see utf8.hpp.
#include "data/utf8.hpp"

#include <cstdio>

namespace attnlab::data {

static std::string hex_byte(unsigned char b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", b);
    return buf;
}

Utf8Result decode_utf8(std::string_view bytes) {
    Utf8Result r;
    std::size_t i = 0;
    auto fail = [&](std::string why) {
        r.ok = false;
        r.error_offset = i;
        r.error = std::move(why);
        return r;
    };
    while (i < bytes.size()) {
        const auto lead = static_cast<unsigned char>(bytes[i]);
        // The lead byte gives the length; each length has a smallest value it may encode
        // (anything smaller is an overlong form of a shorter sequence).
        struct Form {
            std::size_t len;
            unsigned char payload;  // the lead byte's bits that belong to the value
            char32_t smallest;
        };
        Form form;
        if (lead < 0x80) form = {1, 0x7F, 0};
        else if ((lead & 0xE0) == 0xC0) form = {2, 0x1F, 0x80};
        else if ((lead & 0xF0) == 0xE0) form = {3, 0x0F, 0x800};
        else if ((lead & 0xF8) == 0xF0) form = {4, 0x07, 0x10000};
        else return fail("byte " + hex_byte(lead) + " cannot start a character");
        const std::size_t len = form.len;
        char32_t cp = lead & form.payload;
        if (i + len > bytes.size()) return fail("the file ends inside a " + std::to_string(len) + "-byte character");
        for (std::size_t k = 1; k < len; ++k) {
            const auto c = static_cast<unsigned char>(bytes[i + k]);
            if ((c & 0xC0) != 0x80)
                return fail("byte " + hex_byte(c) + " at offset " + std::to_string(i + k) +
                            " should continue the character that starts here");
            cp = (cp << 6) | (c & 0x3F);
        }
        if (cp < form.smallest) return fail("overlong encoding of " + describe_code_point(cp));
        if (cp >= 0xD800 && cp <= 0xDFFF) return fail("a UTF-16 surrogate is not a character");
        if (cp > 0x10FFFF) return fail("value past U+10FFFF");
        r.code_points.push_back(cp);
        i += len;
    }
    return r;
}

std::string describe_code_point(char32_t cp) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
    const bool prints = cp > 0x20 && cp != 0x7F && !(cp >= 0x80 && cp < 0xA0);
    if (!prints) return buf;
    std::string s = "'";
    append_utf8(s, cp);
    return s + "' (" + buf + ")";
}

}  // namespace attnlab::data
