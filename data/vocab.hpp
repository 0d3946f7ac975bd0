// vocab.hpp — Vocab: the two-way map between words and token ids.
//
// Ids 0..3 are reserved for special tokens, in the same places in every vocabulary
// attnlab builds, so models, masks and losses can name them without a lookup:
//   0 <pad>   fills a row after its last sentence; never a target (its target is -100)
//   1 <bos>   opens every row: the one token a causal model sees before the first word
//   2 <eos>   ends every sentence; predicting it is predicting where a sentence stops
//   3 [MASK]  replaces a hidden word in masked-token (bidirectional) training
// Words follow from id 4 in the order they were given.
//
// unknown_words_message is the one message every program gives for words a model does not
// know (tinygpt, seq2seq, the phases): each unknown word with the known words nearest to it
// by edit distance, or the whole vocabulary when it is small enough to read at a glance.
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

    // The words, without the specials: id kFirstWord + i is words()[i].
    std::vector<std::string> words() const { return {words_.begin() + kFirstWord, words_.end()}; }

private:
    std::vector<std::string> words_;  // words_[id]: the specials, then the words
    std::unordered_map<std::string, std::int64_t> ids_;
};

// The edit distance between two words: insert, delete, substitute, or swap two neighbouring
// letters, 1 each (optimal string alignment), so a typo like "dgo" is one edit from "dog".
std::size_t edit_distance(const std::string& a, const std::string& b);
// The up-to-n words of `known` nearest to `word` by edit distance (ties in `known`'s order).
std::vector<std::string> nearest_words(const std::string& word, const std::vector<std::string>& known, std::size_t n);

// A vocabulary of at most this many words is listed whole in unknown_words_message; a larger
// one by the kNearestShown words nearest to each unknown word.
inline constexpr std::size_t kVocabListedWhole = 12, kNearestShown = 5;
// "unknown word 'dgo'; nearest known words: dog, do, ..." (several: "unknown words 'a', 'b';
// nearest known words: a -> ...; b -> ..."), or "...; the vocabulary is 0, 1, ..., 9".
std::string unknown_words_message(const std::vector<std::string>& unknown, const std::vector<std::string>& known);

}  // namespace attnlab::data
