// fuzz_corpus.cpp — data/corpus.cpp's readers (a learner's text as training data) on hostile
// text, and the masked-token rows they feed. What they accept must be a corpus:
//   read_word_corpus: the text is UTF-8 without NUL; the vocabulary holds each word once and
//     at least kMinDistinctTokens of them; the ids are words of it, in the text's order
//     (decode -> the text's words); make_stream_mlm_batch on them hides at least one token
//     per row, each hidden id is the [MASK] id and its target the id it replaced.
//   read_char_corpus: the same checks at character level; encode -> decode gives the text.
// What they refuse must be refused with a ValueError (attnlab::Error), never a crash.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <sstream>

#include "data/corpus.hpp"
#include "data/lm_batches.hpp"
#include "data/utf8.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;
using namespace attnlab::data;

namespace {

void check_is_text(std::string_view text) {
    if (!decode_utf8(text).ok) fuzz::fail("fuzz_corpus", "accepted text that is not UTF-8");
    if (text.find('\0') != std::string_view::npos) fuzz::fail("fuzz_corpus", "accepted text with a NUL byte");
}

void words(std::string_view text) {
    WordCorpus c;
    try {
        c = read_word_corpus(text, "fuzz input");
    } catch (const Error&) {
        return;
    }
    check_is_text(text);
    if (c.vocab.num_words() < static_cast<std::int64_t>(kMinDistinctTokens)) fuzz::fail("fuzz_corpus", "too few distinct words");
    std::set<std::string> seen;
    for (std::int64_t id = 0; id < c.vocab.size(); ++id)
        if (!seen.insert(c.vocab.word(id)).second) fuzz::fail("fuzz_corpus", "a word twice in the vocabulary");
    std::istringstream in{std::string(text)};
    std::size_t i = 0;
    for (std::string w; in >> w; ++i)
        if (i >= c.ids.size() || !c.vocab.is_word(c.ids[i]) || c.vocab.word(c.ids[i]) != w)
            fuzz::fail("fuzz_corpus", "ids are not the text's words at word " + std::to_string(i));
    if (i != c.ids.size()) fuzz::fail("fuzz_corpus", "more ids than words");

    const std::int64_t T = std::min<std::int64_t>(8, static_cast<std::int64_t>(c.ids.size()) - 1), B = 3;
    if (T < 1) return;
    Generator gen(static_cast<std::uint64_t>(text.size()));
    const MLMBatch b = make_stream_mlm_batch(c.ids, gen, B, T, 0.2);
    const std::vector<std::int64_t> ids = b.ids.to_vector<std::int64_t>(), targets = b.targets.to_vector<std::int64_t>();
    for (std::int64_t r = 0; r < B; ++r) {
        int hidden = 0;
        for (std::int64_t t = r * T; t < (r + 1) * T; ++t) {
            const auto k = static_cast<std::size_t>(t);
            if (targets[k] == kIgnoreIndex) {
                if (!c.vocab.is_word(ids[k])) fuzz::fail("fuzz_corpus", "a visible id that is no word");
                continue;
            }
            ++hidden;
            if (ids[k] != Vocab::kMask || !c.vocab.is_word(targets[k])) fuzz::fail("fuzz_corpus", "a hidden token is not [MASK] -> word");
        }
        if (hidden == 0) fuzz::fail("fuzz_corpus", "a row hides nothing");
    }
}

void chars(std::string_view text) {
    std::optional<CharTokenizer> tok;
    try {
        tok = read_char_corpus(text, "fuzz input");
    } catch (const Error&) {
        return;
    }
    check_is_text(text);
    if (tok->code_points().size() < kMinDistinctTokens) fuzz::fail("fuzz_corpus", "too few distinct characters");
    if (tok->decode(tok->encode(text)) != text) fuzz::fail("fuzz_corpus", "CharTokenizer decode(encode(text)) != text");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    words(text);
    chars(text);
    return 0;
}
