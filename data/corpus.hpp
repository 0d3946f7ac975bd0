// corpus.hpp — a learner's own text as training data, one token per word.
//
// read_word_corpus splits UTF-8 text on whitespace (spaces, tabs, newlines): each
// maximal run of other bytes is a word, punctuation included ("mat." is one word).
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
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/mlm_batches.hpp"
#include "data/vocab.hpp"

namespace attnlab::data {

struct WordCorpus {
    Vocab vocab;
    std::vector<std::int64_t> ids;  // the text's words, in order
};

// ValueError naming `source` if the text has no words or a word Vocab refuses ("<pad>", "[MASK]").
WordCorpus read_word_corpus(std::string_view text, const std::string& source);

MLMBatch make_stream_mlm_batch(const std::vector<std::int64_t>& tokens, Generator& gen, std::int64_t B, std::int64_t T,
                               double mask_prob, std::int64_t mask_id = Vocab::kMask);

}  // namespace attnlab::data
