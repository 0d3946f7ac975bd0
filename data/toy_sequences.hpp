// toy_sequences.hpp — the seed sentences in data/toy_sequences.txt, as token ids.
//
// One sentence per line, lower case, words separated by spaces; the first line is
// the sentence every phase draws, "the cat sat on the mat". Every line is a sentence
// of toy_grammar() (a test holds the file to that), so a model trained on the grammar
// has seen their like and the phases can show its attention on them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/vocab.hpp"

namespace attnlab::data {

// Each non-empty line encoded with `vocab` (words only: no <bos>/<eos>), of the file as compiled
// into the program (assets/assets.hpp: a built program needs no source tree) or of the file at
// `path`. Throws IOError if the file cannot be read, ValueError naming the line of an unknown word.
std::vector<std::vector<std::int64_t>> load_toy_sequences(const Vocab& vocab);
std::vector<std::vector<std::int64_t>> load_toy_sequences(const Vocab& vocab, const std::string& path);

}  // namespace attnlab::data
