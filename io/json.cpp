// json.cpp — see json.hpp.
#include "io/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_set>

#include "io/fileio.hpp"
#include "io/number.hpp"
#include "io/utf8.hpp"

namespace attnlab {

// ---- the value type ------------------------------------------------------------------

const char* json_type_name(Json::Type t) {
    switch (t) {
        case Json::Type::null: return "null";
        case Json::Type::boolean: return "bool";
        case Json::Type::integer: return "integer";
        case Json::Type::real: return "number";
        case Json::Type::string: return "string";
        case Json::Type::array: return "array";
        case Json::Type::object: return "object";
    }
    return "?";
}

namespace {

[[noreturn]] void type_mismatch(const char* wanted, Json::Type found) {
    throw ValueError(std::string("Json: expected ") + wanted + ", found " + json_type_name(found));
}

// 2^53: every integer of at most this magnitude is exactly a double, and no larger
// double is known to be the integer it looks like (it may be a rounded neighbour).
constexpr double kMaxExactDouble = 9007199254740992.0;

// An int64 and a double are the same number only if the double is exactly that integer.
bool same_number(std::int64_t i, double d) {
    return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == std::trunc(d) &&
           static_cast<std::int64_t>(d) == i;
}

}  // namespace

bool Json::as_bool() const {
    if (!is_bool()) type_mismatch("bool", type());
    return std::get<bool>(v_);
}

double Json::as_double() const {
    if (is_integer()) return static_cast<double>(std::get<std::int64_t>(v_));
    if (type() != Type::real) type_mismatch("a number", type());
    return std::get<double>(v_);
}

std::int64_t Json::as_int64() const {
    if (is_integer()) return std::get<std::int64_t>(v_);
    if (type() != Type::real) type_mismatch("an integer", type());
    const double d = std::get<double>(v_);
    if (d != std::trunc(d) || std::abs(d) > kMaxExactDouble) {  // (NaN fails the first test)
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, d);
        throw ValueError("Json: expected an integer, found the number " + std::string(buf, r.ptr));
    }
    return static_cast<std::int64_t>(d);
}

const std::string& Json::as_string() const {
    if (!is_string()) type_mismatch("a string", type());
    return std::get<std::string>(v_);
}

const Json::Array& Json::as_array() const {
    if (!is_array()) type_mismatch("an array", type());
    return std::get<Array>(v_);
}

Json::Array& Json::as_array() {
    if (!is_array()) type_mismatch("an array", type());
    return std::get<Array>(v_);
}

const Json::Object& Json::as_object() const {
    if (!is_object()) type_mismatch("an object", type());
    return std::get<Object>(v_);
}

Json::Object& Json::as_object() {
    if (!is_object()) type_mismatch("an object", type());
    return std::get<Object>(v_);
}

const Json* Json::find(std::string_view key) const {
    for (const auto& [k, v] : as_object())
        if (k == key) return &v;
    return nullptr;
}

const Json& Json::at(std::string_view key) const {
    if (const Json* v = find(key)) return *v;
    throw ValueError("Json: no key \"" + std::string(key) + "\" in the object");
}

Json& Json::operator[](std::string_view key) {
    if (is_null()) v_ = Object{};
    Object& members = as_object();
    for (auto& [k, v] : members)
        if (k == key) return v;
    return members.emplace_back(std::string(key), Json()).second;
}

void Json::push_back(Json value) {
    if (is_null()) v_ = Array{};
    as_array().push_back(std::move(value));
}

std::size_t Json::size() const {
    if (is_array()) return std::get<Array>(v_).size();
    if (is_object()) return std::get<Object>(v_).size();
    type_mismatch("an array or an object", type());
}

bool operator==(const Json& a, const Json& b) {
    using T = Json::Type;
    if (a.type() == T::integer && b.type() == T::real) return same_number(std::get<std::int64_t>(a.v_), std::get<double>(b.v_));
    if (a.type() == T::real && b.type() == T::integer) return same_number(std::get<std::int64_t>(b.v_), std::get<double>(a.v_));
    return a.v_ == b.v_;  // same alternative: compares the values (arrays and objects element by element, in order)
}

// ---- UTF-8 -----------------------------------------------------------------------------

namespace {

// Length (1-4) of the well-formed UTF-8 sequence that starts at s[i], or 0 if
// there is none. Well-formed means the shortest encoding of a Unicode scalar value
// (RFC 3629): no overlong forms, no surrogates U+D800..U+DFFF, nothing above
// U+10FFFF. The second byte's range is what rules those out.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b0 = byte(i);
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 < 0x80) return 1;
    else if (b0 >= 0xC2 && b0 <= 0xDF) n = 2;
    else if (b0 == 0xE0) n = 3, lo = 0xA0;           // below: overlong
    else if (b0 == 0xED) n = 3, hi = 0x9F;           // above: surrogates
    else if (b0 >= 0xE1 && b0 <= 0xEF) n = 3;
    else if (b0 == 0xF0) n = 4, lo = 0x90;           // below: overlong
    else if (b0 >= 0xF1 && b0 <= 0xF3) n = 4;
    else if (b0 == 0xF4) n = 4, hi = 0x8F;           // above: beyond U+10FFFF
    else return 0;                                    // 0x80..0xC1 (continuation, overlong) or 0xF5..0xFF
    if (s.size() - i < n) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    return n;
}


// ---- the parser ------------------------------------------------------------------------

// Recursive descent over RFC 8259's grammar; pos_ always points at the next unread byte.
class Parser {
public:
    Parser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

    Json document() {
        skip_whitespace();
        Json v = value(0);
        skip_whitespace();
        if (pos_ != s_.size()) fail("unexpected " + describe_here() + " after the JSON value");
        return v;
    }

private:
    std::string_view s_;
    const std::string& name_;
    std::size_t pos_ = 0;

    [[noreturn]] void fail_at(std::size_t at, const std::string& what) const {
        throw JsonParseError(name_, at, what);
    }
    [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }

    bool at_end() const { return pos_ >= s_.size(); }
    char peek() const { return s_[pos_]; }

    std::string describe_here() const {
        if (at_end()) return "end of input";
        const unsigned char c = static_cast<unsigned char>(peek());
        if (c >= 0x20 && c < 0x7F) return std::string("character '") + static_cast<char>(c) + "'";
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", c);
        return std::string("byte ") + hex;
    }

    void skip_whitespace() {  // RFC 8259 whitespace is exactly these four
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
    }

    void expect(char c, const char* context) {
        if (at_end() || peek() != c) fail(std::string("expected '") + c + "' " + context + ", found " + describe_here());
        ++pos_;
    }

    Json value(int depth) {
        if (at_end()) fail("unexpected end of input, expected a value");
        switch (peek()) {
            case '{': return object(depth + 1);
            case '[': return array(depth + 1);
            case '"': return Json(string());
            case 't': literal("true"); return Json(true);
            case 'f': literal("false"); return Json(false);
            case 'n': literal("null"); return Json();
            case 'N': case 'I': fail("JSON has no NaN or Infinity");
            default:
                if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return number();
                fail("unexpected " + describe_here() + ", expected a value");
        }
    }

    void literal(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) fail("unexpected " + describe_here() + ", expected a value");
        pos_ += word.size();
    }

    void enter(int depth) const {
        if (depth > kMaxJsonDepth) fail("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }

    Json object(int depth) {
        enter(depth);
        ++pos_;  // '{'
        Json::Object members;
        std::unordered_set<std::string> seen;  // duplicate keys are an error (see json.hpp)
        skip_whitespace();
        if (!at_end() && peek() == '}') {
            ++pos_;
            return Json(std::move(members));
        }
        while (true) {
            skip_whitespace();
            if (at_end() || peek() != '"') fail("expected a string key, found " + describe_here());
            const std::size_t key_at = pos_;
            std::string key = string();
            if (!seen.insert(key).second) fail_at(key_at, "duplicate key \"" + key + "\"");
            skip_whitespace();
            expect(':', "after an object key");
            skip_whitespace();
            Json v = value(depth);
            members.emplace_back(std::move(key), std::move(v));
            skip_whitespace();
            if (!at_end() && peek() == ',') { ++pos_; continue; }
            expect('}', "or ',' in an object");
            return Json(std::move(members));
        }
    }

    Json array(int depth) {
        enter(depth);
        ++pos_;  // '['
        Json::Array items;
        skip_whitespace();
        if (!at_end() && peek() == ']') {
            ++pos_;
            return Json(std::move(items));
        }
        while (true) {
            skip_whitespace();
            items.push_back(value(depth));
            skip_whitespace();
            if (!at_end() && peek() == ',') { ++pos_; continue; }
            expect(']', "or ',' in an array");
            return Json(std::move(items));
        }
    }

    // number = [ "-" ] ( "0" / [1-9] *DIGIT ) [ "." 1*DIGIT ] [ ("e"/"E") ["+"/"-"] 1*DIGIT ]
    Json number() {
        const std::size_t start = pos_;
        const auto digits = [&](const char* after) {
            if (at_end() || peek() < '0' || peek() > '9') fail(std::string("expected a digit ") + after);
            while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
        };
        if (peek() == '-') {
            ++pos_;
            if (!at_end() && peek() == 'I') fail("JSON has no NaN or Infinity");
        }
        if (!at_end() && peek() == '0') {
            ++pos_;
            if (!at_end() && peek() >= '0' && peek() <= '9') fail("leading zeros are not allowed");
        } else {
            digits("after '-'");  // (without a '-', value() saw a digit here)
        }
        bool integral = true;
        if (!at_end() && peek() == '.') {
            ++pos_;
            digits("after '.'");
            integral = false;
        }
        if (!at_end() && (peek() == 'e' || peek() == 'E')) {
            ++pos_;
            if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
            digits("in the exponent");
            integral = false;
        }
        const char* first = s_.data() + start;
        const char* last = s_.data() + pos_;
        // An integer literal stays an exact int64 when it fits; "-0" is the one integer
        // int64 cannot hold (it has no negative zero), so it becomes the double -0.0.
        if (integral && std::string_view(first, last) != "-0") {
            std::int64_t i = 0;
            if (std::from_chars(first, last, i).ec == std::errc()) return Json(i);
        }
        // Beyond a double's range (1e400, 1e-400) is an error rather than a silent ±Inf or 0.
        const std::optional<double> d = parse_real(std::string_view(first, static_cast<std::size_t>(last - first)));
        if (!d) fail_at(start, "number " + std::string(first, last) + " is out of the range of a double");
        return Json(*d);
    }

    unsigned hex4() {
        if (s_.size() - pos_ < 4) fail("expected four hex digits after \\u");
        unsigned v = 0;
        const auto r = std::from_chars(s_.data() + pos_, s_.data() + pos_ + 4, v, 16);
        if (r.ec != std::errc() || r.ptr != s_.data() + pos_ + 4) fail("expected four hex digits after \\u");
        pos_ += 4;
        return v;
    }

    std::string string() {
        ++pos_;  // opening quote
        std::string out;
        while (true) {
            // Copy the run of bytes that need no attention in one go.
            const std::size_t run = pos_;
            while (!at_end()) {
                const unsigned char c = static_cast<unsigned char>(peek());
                if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
                ++pos_;
            }
            out.append(s_.substr(run, pos_ - run));
            if (at_end()) fail("unterminated string");
            const unsigned char c = static_cast<unsigned char>(peek());
            if (c == '"') {
                ++pos_;
                return out;
            }
            if (c < 0x20) fail("raw control character (" + describe_here() + ") in a string; it must be escaped");
            if (c >= 0x80) {
                const std::size_t n = utf8_sequence_length(s_, pos_);
                if (n == 0) fail("invalid UTF-8 (" + describe_here() + ") in a string");
                out.append(s_.substr(pos_, n));
                pos_ += n;
                continue;
            }
            escape(out);
        }
    }

    void escape(std::string& out) {
        const std::size_t at = pos_;
        ++pos_;  // backslash
        if (at_end()) fail("unterminated string");
        const char e = peek();
        ++pos_;
        switch (e) {
            case '"': out += '"'; return;
            case '\\': out += '\\'; return;
            case '/': out += '/'; return;
            case 'b': out += '\b'; return;
            case 'f': out += '\f'; return;
            case 'n': out += '\n'; return;
            case 'r': out += '\r'; return;
            case 't': out += '\t'; return;
            case 'u': break;
            default: fail_at(at, std::string("invalid escape '\\") + e + "'");
        }
        // \uXXXX is a UTF-16 code unit: characters beyond U+FFFF arrive as a
        // surrogate pair \uD83D\uDE00, which together name one code point.
        std::uint32_t cp = hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) fail_at(at, "unpaired low surrogate in a \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") fail_at(at, "high surrogate not followed by a \\u low surrogate");
            pos_ += 2;
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail_at(at, "high surrogate not followed by a \\u low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, cp);
    }
};

// ---- the serializer --------------------------------------------------------------------

void write_string(std::string& out, const std::string& s) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char esc[8];
                    std::snprintf(esc, sizeof esc, "\\u%04X", c);
                    out += esc;
                } else if (c >= 0x80) {
                    const std::size_t n = utf8_sequence_length(s, i);
                    if (n == 0) throw ValueError("to_json: string is not valid UTF-8 at byte " + std::to_string(i));
                    out.append(s, i, n);
                    i += n;
                    continue;
                } else {
                    out += static_cast<char>(c);
                }
        }
        ++i;
    }
    out += '"';
}

void write_double(std::string& out, double d) {
    if (!std::isfinite(d))
        throw ValueError(std::string("to_json: cannot write ") + (std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity") +
                         ": JSON has no non-finite numbers");
    char buf[32];
    // Without a precision argument, to_chars writes the shortest text that reads back as
    // exactly d (0.1 -> "0.1", not "0.10000000000000001").
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    std::string_view text(buf, static_cast<std::size_t>(r.ptr - buf));
    out += text;
    if (text.find_first_not_of("-0123456789") == std::string_view::npos) out += ".0";  // 2 -> "2.0": stays a double
}

void write_value(std::string& out, const Json& v, JsonStyle style, int depth) {
    const bool pretty = style == JsonStyle::pretty;
    const auto newline = [&](int level) {
        if (pretty) {
            out += '\n';
            out.append(static_cast<std::size_t>(2 * level), ' ');
        }
    };
    switch (v.type()) {
        case Json::Type::null: out += "null"; return;
        case Json::Type::boolean: out += v.as_bool() ? "true" : "false"; return;
        case Json::Type::integer: {
            char buf[24];
            const auto r = std::to_chars(buf, buf + sizeof buf, v.as_int64());
            out.append(buf, r.ptr);
            return;
        }
        case Json::Type::real: write_double(out, v.as_double()); return;
        case Json::Type::string: write_string(out, v.as_string()); return;
        case Json::Type::array: {
            out += '[';
            const auto& items = v.as_array();
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (i) out += ',';
                newline(depth + 1);
                write_value(out, items[i], style, depth + 1);
            }
            if (!items.empty()) newline(depth);
            out += ']';
            return;
        }
        case Json::Type::object: {
            out += '{';
            const auto& members = v.as_object();
            for (std::size_t i = 0; i < members.size(); ++i) {
                if (i) out += ',';
                newline(depth + 1);
                write_string(out, members[i].first);
                out += pretty ? ": " : ":";
                write_value(out, members[i].second, style, depth + 1);
            }
            if (!members.empty()) newline(depth);
            out += '}';
            return;
        }
    }
}

}  // namespace

Json parse_json(std::string_view text, const std::string& name) { return Parser(text, name).document(); }

std::string to_json(const Json& value, JsonStyle style) {
    std::string out;
    write_value(out, value, style, 0);
    return out;
}

Json load_json(const std::string& path) { return parse_json(read_file(path), path); }

void save_json(const std::string& path, const Json& value) {
    write_file_atomic(path, to_json(value, JsonStyle::pretty) + "\n");
}

}  // namespace attnlab
