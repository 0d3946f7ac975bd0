// vocab.hpp — Vocab: the two-way map between words and token ids.
//
// Ids 0..3 are reserved for special tokens, in the same places in every vocabulary
// attnlab builds, so models, masks and losses can name them without a lookup:
//   0 <pad>   fills a row after its last sentence; never a target (its target is -100)
//   1 <bos>   opens every row: the one token a causal model sees before the first word
//   2 <eos>   ends every sentence; predicting it is predicting where a sentence stops
//   3 [MASK]  replaces a hidden word in masked-token (bidirectional) training
// Words follow from id 4 in the order they were given.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnlab::data {

class Vocab {
public:
    static constexpr std::int64_t kPad = 0, kBos = 1, kEos = 2, kMask = 3;
    static constexpr std::int64_t kFirstWord = 4;

    Vocab() : Vocab(std::vector<std::string>{}) {}
    // Throws ValueError for a duplicate, empty, or special-looking word, or one containing a space.
    explicit Vocab(const std::vector<std::string>& words);

    std::int64_t size() const { return static_cast<std::int64_t>(words_.size()); }  // specials included
    std::int64_t num_words() const { return size() - kFirstWord; }
    bool contains(std::string_view word) const { return ids_.contains(std::string(word)); }
    bool is_word(std::int64_t id) const { return id >= kFirstWord && id < size(); }

    std::int64_t id(std::string_view word) const;   // throws ValueError naming an unknown word
    const std::string& word(std::int64_t id) const;  // throws ValueError for an id outside [0, size())

private:
    std::vector<std::string> words_;  // words_[id]: the specials, then the words
    std::unordered_map<std::string, std::int64_t> ids_;
};

}  // namespace attnlab::data
