// tokenizer.cpp — see tokenizer.hpp.
#include "data/tokenizer.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "data/utf8.hpp"
#include "tensor/error.hpp"
#include "io/fileio.hpp"

namespace attnlab::data {

// ---- WordTokenizer ------------------------------------------------------------------------

std::vector<std::int64_t> WordTokenizer::encode(std::string_view text) const {
    std::istringstream in{std::string(text)};
    std::vector<std::int64_t> ids;
    std::vector<std::string> unknown;
    for (std::string word; in >> word;) {
        if (vocab_.contains(word)) ids.push_back(vocab_.id(word));
        else if (std::find(unknown.begin(), unknown.end(), word) == unknown.end()) unknown.push_back(word);
    }
    if (!unknown.empty()) {
        std::string list;
        for (const std::string& w : unknown) list += (list.empty() ? "'" : ", '") + w + "'";
        throw ValueError("WordTokenizer: unknown word" + std::string(unknown.size() > 1 ? "s " : " ") + list);
    }
    return ids;
}

std::string WordTokenizer::decode(std::span<const std::int64_t> ids) const {
    std::string text;
    for (std::int64_t id : ids) text += (text.empty() ? "" : " ") + vocab_.word(id);
    return text;
}

// ---- CharTokenizer ------------------------------------------------------------------------

// Decodes text, or throws naming where it is ill-formed: IOError for a file we were
// asked to read, ValueError for text the caller passed in.
static std::vector<char32_t> decode_or_throw(std::string_view text, const std::string& source, bool is_file) {
    Utf8Result r = decode_utf8(text);
    if (!r.ok) {
        const std::string msg = "CharTokenizer: " + source + ": invalid UTF-8 at byte offset " +
                                std::to_string(r.error_offset) + ": " + r.error;
        if (is_file) throw IOError(msg);
        throw ValueError(msg);
    }
    return std::move(r.code_points);
}

CharTokenizer CharTokenizer::from_code_points(const std::vector<char32_t>& text) {
    const std::set<char32_t> present(text.begin(), text.end());  // sorted, each once
    CharTokenizer t;
    t.chars_.assign(present.begin(), present.end());
    for (std::size_t i = 0; i < t.chars_.size(); ++i) t.ids_[t.chars_[i]] = static_cast<std::int64_t>(i) + 1;
    return t;
}

CharTokenizer CharTokenizer::from_file(const std::string& path) {
    return from_code_points(decode_or_throw(read_file(path), "'" + path + "'", true));
}

CharTokenizer CharTokenizer::from_text(std::string_view text, const std::string& source) {
    return from_code_points(decode_or_throw(text, source, false));
}

std::vector<std::int64_t> CharTokenizer::encode(std::string_view text) const {
    const std::vector<char32_t> chars = decode_or_throw(text, "text to encode", false);
    std::vector<std::int64_t> ids;
    ids.reserve(chars.size());
    std::size_t offset = 0;  // in bytes, for the message
    for (std::size_t position = 0; position < chars.size(); ++position) {
        const char32_t c = chars[position];
        auto it = ids_.find(c);
        if (it == ids_.end())
            throw ValueError("CharTokenizer: character " + describe_code_point(c) + " at position " +
                             std::to_string(position) + " (byte offset " + std::to_string(offset) +
                             ") is not in the vocabulary");
        ids.push_back(it->second);
        std::string bytes;
        append_utf8(bytes, c);
        offset += bytes.size();
    }
    return ids;
}

std::string CharTokenizer::decode(std::span<const std::int64_t> ids) const {
    std::string text;
    for (std::int64_t id : ids) {
        if (id < 0 || id >= size())
            throw ValueError("CharTokenizer: id " + std::to_string(id) + " is outside [0, " + std::to_string(size()) + ")");
        if (id != kPad) append_utf8(text, chars_[static_cast<std::size_t>(id - 1)]);
    }
    return text;
}

}  // namespace attnlab::data
