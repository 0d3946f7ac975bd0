// tokenizer.hpp — text to token ids and back, at two granularities.
//
// WordTokenizer: for the toy grammar's sentences and a learner's own text. Words are
// separated by whitespace and looked up in a Vocab (data/vocab.hpp); a word outside it is
// an error naming the nearest known words, never a silent <unk> — the grammar's floor is
// only exact for words the grammar knows.
//
// WordRules: what a word is, beyond whitespace, for a corpus read at word level (tinygpt
// train --lowercase, --split-punctuation). The trainer records them in the checkpoint and
// every prompt goes through the same rules, so "The cat." reaches a model trained on
// lowercased, split text as "the cat .". Both rules look at ASCII only, so that the page of
// the explorer can apply them byte for byte the same way (explorer/model.js):
//   lowercase          A-Z become a-z; every other character stays as written
//   split_punctuation  each ASCII punctuation mark !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~ is a word
//                      of its own ("mat." -> "mat", "."), except an apostrophe or hyphen with a
//                      letter or digit on each side, which stays inside its word ("don't",
//                      "well-known"); a byte outside ASCII counts as a letter
//
// CharTokenizer: for any UTF-8 text file. One token per Unicode code point (not per
// byte, so 'é' is one token, as a reader would count it). The vocabulary is the set
// of code points the file contains, sorted, after <pad> at id 0.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/vocab.hpp"

namespace attnlab::data {

struct WordRules {
    bool lowercase = false;
    bool split_punctuation = false;
};

// The words of `text` under `rules`: whitespace (space, tab, newline, CR, VT, FF) separates them.
std::vector<std::string> split_words(std::string_view text, const WordRules& rules = {});

class WordTokenizer {
public:
    explicit WordTokenizer(Vocab vocab, WordRules rules = {}) : vocab_(std::move(vocab)), rules_(rules) {}
    const Vocab& vocab() const { return vocab_; }
    // Throws ValueError listing every unknown word (each once, in order of appearance) with
    // the known words nearest to it (data::unknown_words_message).
    std::vector<std::int64_t> encode(std::string_view text) const;
    // Words joined by single spaces; special tokens appear by name ("<eos>", "[MASK]").
    std::string decode(std::span<const std::int64_t> ids) const;

private:
    Vocab vocab_;
    WordRules rules_;
};

class CharTokenizer {
public:
    static constexpr std::int64_t kPad = 0;

    // Reads the file with attnlab::read_file. Throws IOError naming the file and the
    // byte offset of the first ill-formed UTF-8 sequence.
    static CharTokenizer from_file(const std::string& path);
    // The same from text in memory; `source` names it in errors.
    static CharTokenizer from_text(std::string_view text, const std::string& source = "text");

    std::int64_t size() const { return static_cast<std::int64_t>(chars_.size()) + 1; }  // with <pad>
    const std::vector<char32_t>& code_points() const { return chars_; }  // id i + 1 is chars_[i]

    // Throws ValueError naming a character the vocabulary lacks (its position in
    // characters and its byte offset), or the offset of ill-formed UTF-8 in the text.
    std::vector<std::int64_t> encode(std::string_view text) const;
    // <pad> decodes to nothing; an id outside [0, size()) throws ValueError.
    std::string decode(std::span<const std::int64_t> ids) const;

private:
    static CharTokenizer from_code_points(const std::vector<char32_t>& text);
    std::vector<char32_t> chars_;
    std::unordered_map<char32_t, std::int64_t> ids_;
};

}  // namespace attnlab::data
