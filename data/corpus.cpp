// corpus.cpp — see corpus.hpp.
#include "data/corpus.hpp"

#include <algorithm>

#include "data/lm_batches.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::data {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string_view> split_words(std::string_view text) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i])) ++i;
        const std::size_t start = i;
        while (i < text.size() && !is_space(text[i])) ++i;
        if (i > start) words.push_back(text.substr(start, i - start));
    }
    return words;
}

}  // namespace

WordCorpus read_word_corpus(std::string_view text, const std::string& source) {
    const std::vector<std::string_view> words = split_words(text);
    if (words.empty()) throw ValueError("read_word_corpus: " + source + " has no words (only whitespace)");
    std::vector<std::string> distinct(words.begin(), words.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    WordCorpus corpus;
    try {
        corpus.vocab = Vocab(distinct);
    } catch (const ValueError& e) {
        throw ValueError("read_word_corpus: " + source + ": " + e.what());
    }
    corpus.ids.reserve(words.size());
    for (std::string_view w : words) corpus.ids.push_back(corpus.vocab.id(w));
    return corpus;
}

MLMBatch make_stream_mlm_batch(const std::vector<std::int64_t>& tokens, Generator& gen, std::int64_t B, std::int64_t T,
                               double mask_prob, std::int64_t mask_id) {
    if (!(mask_prob >= 0 && mask_prob <= 1))
        throw ValueError("make_stream_mlm_batch: mask_prob must be in [0, 1], got " + std::to_string(mask_prob));
    // The same windows as next-token rows; their targets (the text shifted by one) are not used.
    const LMBatch windows = make_char_lm_batch(tokens, gen, B, T);
    std::vector<std::int64_t> ids = windows.ids.to_vector<std::int64_t>();
    std::vector<std::int64_t> targets(ids.size(), kIgnoreIndex);
    for (std::int64_t b = 0; b < B; ++b) {
        const auto row = static_cast<std::size_t>(b * T);
        bool any = false;
        for (std::size_t t = row; t < row + static_cast<std::size_t>(T); ++t)
            if (gen.uniform() < mask_prob) targets[t] = ids[t], ids[t] = mask_id, any = true;
        if (!any) {  // every row teaches something
            const std::size_t t = row + gen.below(static_cast<std::uint64_t>(T));
            targets[t] = ids[t], ids[t] = mask_id;
        }
    }
    return {from_vector(ids, {B, T}), from_vector(targets, {B, T}), full({B}, static_cast<double>(T), kInt64)};
}

}  // namespace attnlab::data
