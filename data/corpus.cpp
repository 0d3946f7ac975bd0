// corpus.cpp — see corpus.hpp.
#include "data/corpus.hpp"

#include <algorithm>

#include "data/lm_batches.hpp"
#include "data/utf8.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::data {

namespace {

void check_distinct(std::size_t distinct, const char* unit, const std::string& who, const std::string& source) {
    if (distinct < kMinDistinctTokens)
        throw ValueError(who + ": " + source + " has " + std::to_string(distinct) + " distinct " + unit + ", fewer than the " +
                         std::to_string(kMinDistinctTokens) + " a model needs to have anything to predict");
}

}  // namespace

void check_text(std::string_view text, const std::string& what) {
    const Utf8Result r = decode_utf8(text);
    if (!r.ok)
        throw ValueError(what + " is not UTF-8 text: invalid byte sequence at byte offset " + std::to_string(r.error_offset) +
                         " (" + r.error + ")");
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        throw ValueError(what + " holds a NUL byte at byte offset " + std::to_string(nul) + ": a binary file, not text");
}

WordCorpus read_word_corpus(std::string_view text, const std::string& source, const WordRules& rules) {
    check_text(text, "read_word_corpus: " + source);
    const std::vector<std::string> words = split_words(text, rules);
    if (words.empty()) throw ValueError("read_word_corpus: " + source + " has no words (only whitespace)");
    std::vector<std::string> distinct(words.begin(), words.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    check_distinct(distinct.size(), "words", "read_word_corpus", source);
    WordCorpus corpus;
    try {
        corpus.vocab = Vocab(distinct);
    } catch (const ValueError& e) {
        throw ValueError("read_word_corpus: " + source + ": " + e.what());
    }
    corpus.ids.reserve(words.size());
    for (const std::string& w : words) corpus.ids.push_back(corpus.vocab.id(w));
    return corpus;
}

CharTokenizer read_char_corpus(std::string_view text, const std::string& source) {
    check_text(text, "read_char_corpus: " + source);
    CharTokenizer tokenizer = CharTokenizer::from_text(text, source);
    check_distinct(tokenizer.code_points().size(), "characters", "read_char_corpus", source);
    return tokenizer;
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
