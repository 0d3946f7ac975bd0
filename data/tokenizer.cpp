// tokenizer.cpp — see tokenizer.hpp.
#include "data/tokenizer.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "data/utf8.hpp"
#include "tensor/error.hpp"
#include "io/fileio.hpp"

namespace attnlab::data {

// ---- WordTokenizer ------------------------------------------------------------------------

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool is_punctuation(char c) { return c > ' ' && c < 0x7f && !std::isalnum(static_cast<unsigned char>(c)); }
// A letter or digit for the apostrophe rule; a byte of a non-ASCII character counts as one.
bool is_wordlike(char c) { return !is_space(c) && !is_punctuation(c); }

}  // namespace

std::vector<std::string> split_words(std::string_view text, const WordRules& rules) {
    std::vector<std::string> words;
    std::string word;
    const auto end_word = [&] {
        if (!word.empty()) words.push_back(std::move(word));
        word.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (is_space(c)) {
            end_word();
            continue;
        }
        if (rules.lowercase && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        const bool inside = (c == '\'' || c == '-') && !word.empty() && is_wordlike(word.back()) && i + 1 < text.size() &&
                            is_wordlike(text[i + 1]);
        if (rules.split_punctuation && is_punctuation(c) && !inside) {
            end_word();
            words.emplace_back(1, c);
            continue;
        }
        word += c;
    }
    end_word();
    return words;
}

std::vector<std::int64_t> WordTokenizer::encode(std::string_view text) const {
    std::vector<std::int64_t> ids;
    std::vector<std::string> unknown;
    for (const std::string& word : split_words(text, rules_)) {
        if (vocab_.contains(word)) ids.push_back(vocab_.id(word));
        else if (std::find(unknown.begin(), unknown.end(), word) == unknown.end()) unknown.push_back(word);
    }
    if (!unknown.empty()) throw ValueError("WordTokenizer: " + unknown_words_message(unknown, vocab_.words()));
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
