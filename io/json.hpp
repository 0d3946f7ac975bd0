// json.hpp — a small JSON value type, a strict parser and a serializer (RFC 8259).
//
// attnlab writes JSON for metrics.json and reads it in checkpoint headers
// (io/safetensors.hpp), so both directions matter and both are strict:
//
//   Json m = Json::object();
//   m["step"] = 100;                        // an integer: written as 100, read back exactly
//   m["loss"] = 2.5;                        // a double: written shortest-round-trip, "2.5"
//   m["layers"] = Json::Array{Json(64), Json(64)};
//   std::string text = to_json(m);          // {"step":100,"loss":2.5,"layers":[64,64]}
//   Json back = parse_json(text);           // back == m
//
// Values are null, bool, number, string (UTF-8), array, and object. Objects keep
// their keys in insertion order — a safetensors header lists its tensors in file
// order and metrics.json reads better in the order it was built — so an object is
// a vector of (key, value) pairs, and lookup is a linear scan (the objects here
// are small; order matters more than lookup speed).
//
// Numbers: a literal without fraction or exponent that fits in int64 is kept as an
// exact integer (a double holds integers exactly only up to 2^53, and byte offsets
// of large checkpoints may someday exceed that); anything else is a double.
// Integer 1 and double 1.0 compare equal, as numbers do.
//
// The parser accepts exactly RFC 8259 and nothing more: no comments, no trailing
// commas, no NaN/Infinity, no leading zeros, no raw control characters or invalid
// UTF-8 in strings, no trailing garbage. Duplicate keys are an error — RFC 8259
// leaves them to the implementation, and a checkpoint header where two readers
// could pick different values for one name is a security hole. Nesting is limited
// to kMaxJsonDepth so a hostile "[[[[..." cannot exhaust the stack. Errors are
// JsonParseError (an IOError) carrying the byte offset of the problem.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tensor/error.hpp"

namespace attnlab {

inline constexpr int kMaxJsonDepth = 64;

// A syntax error in JSON text: what() is "parse_json: '<name>': byte <offset>: <reason>";
// offset and reason are kept apart for callers that word their own message.
struct JsonParseError : IOError {
    JsonParseError(const std::string& name, std::size_t byte_offset, const std::string& why)
        : IOError("parse_json: '" + name + "': byte " + std::to_string(byte_offset) + ": " + why),
          offset(byte_offset), reason(why) {}
    std::size_t offset;  // the byte where parsing stopped
    std::string reason;
};

class Json {
public:
    enum class Type { null, boolean, integer, real, string, array, object };
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;  // in insertion order

    Json() = default;  // null
    Json(std::nullptr_t) {}
    Json(bool b) : v_(b) {}
    Json(int i) : v_(std::int64_t{i}) {}
    Json(std::int64_t i) : v_(i) {}
    Json(double d) : v_(d) {}
    Json(const char* s) : v_(std::string(s)) {}
    Json(std::string s) : v_(std::move(s)) {}
    Json(Array a) : v_(std::move(a)) {}
    Json(Object o) : v_(std::move(o)) {}
    static Json array() { return Json(Array{}); }
    static Json object() { return Json(Object{}); }

    Type type() const { return static_cast<Type>(v_.index()); }
    bool is_null() const { return type() == Type::null; }
    bool is_bool() const { return type() == Type::boolean; }
    bool is_number() const { return type() == Type::integer || type() == Type::real; }
    bool is_integer() const { return type() == Type::integer; }  // an exact int64, not a double
    bool is_string() const { return type() == Type::string; }
    bool is_array() const { return type() == Type::array; }
    bool is_object() const { return type() == Type::object; }

    // Typed access; each throws ValueError naming both types on a mismatch.
    bool as_bool() const;
    double as_double() const;      // any number (an integer beyond 2^53 rounds)
    std::int64_t as_int64() const;  // an integer, or a double that holds an integer exactly
    const std::string& as_string() const;
    const Array& as_array() const;
    Array& as_array();
    const Object& as_object() const;
    Object& as_object();

    // Object access. find returns nullptr if the key is absent; at throws ValueError.
    // operator[] inserts null under a new key (turning a null value into an object first).
    const Json* find(std::string_view key) const;
    const Json& at(std::string_view key) const;
    Json& operator[](std::string_view key);
    // Array append (a null value becomes an array first).
    void push_back(Json value);
    // Elements of an array or members of an object; ValueError for anything else.
    std::size_t size() const;

    friend bool operator==(const Json& a, const Json& b);

private:
    std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object> v_;
};

const char* json_type_name(Json::Type t);  // "null", "bool", "integer", "number", ...

// Parses exactly one JSON value (surrounding whitespace allowed). Throws
// JsonParseError: "parse_json: '<name>': byte 12: expected ':' after an object key".
Json parse_json(std::string_view text, const std::string& name = "<memory>");

// compact: no whitespace at all. pretty: two-space indents, one element per line,
// ": " after keys (as Python's json.dumps(indent=2)). Doubles are printed as the
// shortest text that parses back to the same bits; a double that happens to be
// whole gets ".0" so it reads back as a double. NaN and ±Inf have no JSON form:
// ValueError. So does a string that is not valid UTF-8 (we never write what we
// would refuse to read).
enum class JsonStyle { compact, pretty };
std::string to_json(const Json& value, JsonStyle style = JsonStyle::compact);

// Files: load_json reads and parses (IOError naming the path); save_json writes
// the pretty form plus a final newline, atomically (write_file_atomic).
Json load_json(const std::string& path);
void save_json(const std::string& path, const Json& value);

}  // namespace attnlab
