// corpus.hpp — a learner's own text as training data, one token per word.
//
// read_word_corpus splits UTF-8 text on whitespace (spaces, tabs, newlines): each
// maximal run of other bytes is a word, punctuation included ("mat." is one word), unless
// WordRules (data/tokenizer.hpp) lowercase the text or split its punctuation off.
// The vocabulary is the distinct words, sorted by their bytes, after the four specials
// of data/vocab.hpp; the token stream is the words in order. (CharTokenizer is the
// same at character level.)
//
// make_stream_mlm_batch makes masked-token rows from any token stream: B windows of T
// consecutive tokens, each hidden behind [MASK] with probability mask_prob (at least
// one per row), the hidden token its target:
//   ids       the [MASK] sat on the mat.  the  dog
//   targets   -100 cat  -100 ...
// Rows are full windows: no padding, every key is visible.
//
// Both readers check the text before any training step, as a file we did not write:
// valid UTF-8 (the vocabulary is stored as JSON text in the checkpoint, and a tokenizer
// that "repaired" bytes would learn the repair), no NUL byte (a binary file, not text),
// and at least kMinDistinctTokens distinct tokens (with one there is nothing to predict).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/mlm_batches.hpp"
#include "data/tokenizer.hpp"
#include "data/vocab.hpp"

namespace attnlab::data {

struct WordCorpus {
    Vocab vocab;
    std::vector<std::int64_t> ids;  // the text's words, in order
};

inline constexpr std::size_t kMinDistinctTokens = 2;

// ValueError naming `what` ("corpus 'a.txt'") and the byte offset unless `text` is UTF-8 without
// a NUL byte: any text file a user gives (a corpus, tinygpt show's --sentences).
void check_text(std::string_view text, const std::string& what);

// ValueError naming `source` (and the byte offset) if the text is not UTF-8, holds a NUL byte,
// has fewer than kMinDistinctTokens distinct words, or a word Vocab refuses ("<pad>", "[MASK]").
WordCorpus read_word_corpus(std::string_view text, const std::string& source, const WordRules& rules = {});

// The character tokenizer of a corpus, with the same checks (distinct characters).
CharTokenizer read_char_corpus(std::string_view text, const std::string& source);

MLMBatch make_stream_mlm_batch(const std::vector<std::int64_t>& tokens, Generator& gen, std::int64_t B, std::int64_t T,
                               double mask_prob, std::int64_t mask_id = Vocab::kMask);

}  // namespace attnlab::data
