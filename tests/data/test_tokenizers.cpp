// test_tokenizers.cpp — Vocab, the word and character tokenizers, strict UTF-8.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include <algorithm>

#include "data/corpus.hpp"
#include "data/grammar.hpp"
#include "data/tokenizer.hpp"
#include "data/utf8.hpp"
#include "tensor/error.hpp"
#include "io/fileio.hpp"

using namespace attnlab;
using namespace attnlab::data;

namespace {

std::string temp_file(const std::string& name, const std::string& bytes) {
    const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/data_" + name;
    write_file_atomic(path, bytes);
    return path;
}

}  // namespace

TEST_CASE("Vocab: specials at fixed ids, words after, both directions", "[data][tokenizer]") {
    const Vocab v({"the", "cat"});
    CHECK(v.size() == 6);
    CHECK(v.word(Vocab::kPad) == "<pad>");
    CHECK(v.word(Vocab::kBos) == "<bos>");
    CHECK(v.word(Vocab::kEos) == "<eos>");
    CHECK(v.word(Vocab::kMask) == "[MASK]");
    CHECK(v.id("the") == Vocab::kFirstWord);
    CHECK(v.word(v.id("cat")) == "cat");
    CHECK_FALSE(v.is_word(Vocab::kEos));
    CHECK_THROWS_WITH(v.id("dog"), Catch::Contains("'dog'"));
    CHECK_THROWS_WITH(v.word(6), Catch::Contains("id 6"));
    CHECK_THROWS_WITH(Vocab({"cat", "cat"}), Catch::Contains("'cat'") && Catch::Contains("twice"));
    CHECK_THROWS_AS(Vocab({"<eos>"}), ValueError);
    CHECK_THROWS_AS(Vocab({"two words"}), ValueError);
}

TEST_CASE("WordTokenizer round-trips and lists every unknown word", "[data][tokenizer]") {
    const WordTokenizer tok(toy_grammar().vocab());
    const std::vector<std::int64_t> ids = tok.encode("the cat  sat on\tthe mat\n");
    REQUIRE(ids.size() == 6);
    CHECK(ids[0] == ids[4]);  // "the" twice, one id
    CHECK(tok.decode(ids) == "the cat sat on the mat");
    CHECK(tok.decode(std::vector<std::int64_t>{Vocab::kBos, ids[1], Vocab::kMask}) == "<bos> cat [MASK]");
    CHECK_THROWS_WITH(tok.encode("the zebra sat on the kangaroo near the zebra"),
                      Catch::Contains("'zebra', 'kangaroo'") && !Catch::Contains("'zebra', 'kangaroo', 'zebra'"));
}

TEST_CASE("edit distance counts inserts, deletes and substitutions", "[data][vocab]") {
    CHECK(edit_distance("cat", "cat") == 0);
    CHECK(edit_distance("cat", "cats") == 1);
    CHECK(edit_distance("cat", "at") == 1);
    CHECK(edit_distance("cat", "cut") == 1);
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("", "dog") == 3);
    CHECK(edit_distance("dgo", "dog") == 1);  // a swap of neighbours
    CHECK(edit_distance("ab", "ba") == 1);
    CHECK(edit_distance("abc", "ca") == 3);   // optimal string alignment: no edit of a swapped pair
}

TEST_CASE("nearest words: closest first, ties in vocabulary order", "[data][vocab]") {
    const std::vector<std::string> vocab{"the", "cat", "sat", "mat", "dog", "on"};
    CHECK(nearest_words("cta", vocab, 1) == std::vector<std::string>{"cat"});
    CHECK(nearest_words("bat", vocab, 3) == std::vector<std::string>{"cat", "sat", "mat"});
    CHECK(nearest_words("x", vocab, 10).size() == vocab.size());
}

TEST_CASE("unknown words: the nearest known ones, or a small vocabulary whole", "[data][vocab]") {
    const std::vector<std::string> many{"the", "cat", "sat", "mat", "dog", "on", "a", "rug", "big", "red", "ran", "hid", "saw"};
    CHECK(unknown_words_message({"dgo"}, many) == "unknown word 'dgo'; nearest known words: dog, the, cat, sat, mat");
    CHECK(unknown_words_message({"dgo", "ct"}, many) ==
          "unknown words 'dgo', 'ct'; nearest known words: dgo -> dog, the, cat, sat, mat; ct -> cat, sat, mat, on, a");
    const std::vector<std::string> digits{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    CHECK(unknown_words_message({"x"}, digits) == "unknown word 'x'; the vocabulary is 0, 1, 2, 3, 4, 5, 6, 7, 8, 9");
    const WordTokenizer tok{Vocab(many)};
    CHECK_THROWS_WITH(tok.encode("the dgo"), "WordTokenizer: unknown word 'dgo'; nearest known words: dog, the, cat, sat, mat");
}

TEST_CASE("word rules: lowercase and punctuation split the corpus and a prompt alike", "[data][tokenizer]") {
    using V = std::vector<std::string>;
    const std::string text = "The Cat sat.\n\"Don't,\" said well-known Ann -- ok? 'Tis é-É";
    CHECK(split_words(text) == V{"The", "Cat", "sat.", "\"Don't,\"", "said", "well-known", "Ann", "--", "ok?", "'Tis", "é-É"});
    CHECK(split_words(text, {.lowercase = true}) ==
          V{"the", "cat", "sat.", "\"don't,\"", "said", "well-known", "ann", "--", "ok?", "'tis", "é-É"});  // ASCII letters only
    CHECK(split_words(text, {.split_punctuation = true}) ==
          V{"The", "Cat", "sat", ".", "\"", "Don't", ",", "\"", "said", "well-known", "Ann", "-", "-", "ok", "?", "'", "Tis", "é-É"});
    CHECK(split_words("a,b;(c)", {true, true}) == V{"a", ",", "b", ";", "(", "c", ")"});
    CHECK(split_words("  \t\n ", {true, true}).empty());
    // A prompt goes through the tokenizer with the corpus's rules: "The cat." is "the cat .".
    const WordCorpus corpus = read_word_corpus("the cat sat. The Cat ran.", "corpus", {true, true});
    CHECK(corpus.vocab.words() == V{".", "cat", "ran", "sat", "the"});
    const WordTokenizer tok(corpus.vocab, {true, true});
    CHECK(tok.encode("The CAT.") == std::vector<std::int64_t>{corpus.vocab.id("the"), corpus.vocab.id("cat"), corpus.vocab.id(".")});
    CHECK_THROWS_WITH(WordTokenizer(corpus.vocab).encode("The cat."), Catch::Contains("unknown words 'The', 'cat.'"));
}

TEST_CASE("strict UTF-8: every ill-formed sequence is found at its offset", "[data][tokenizer][utf8]") {
    const Utf8Result good = decode_utf8("a\xC3\xA9\xE2\x9C\x93\xF0\x9F\x98\x80");  // a é ✓ 😀
    REQUIRE(good.ok);
    CHECK(good.code_points == std::vector<char32_t>{U'a', U'\u00E9', U'\u2713', U'\U0001F600'});
    std::string round;
    for (char32_t c : good.code_points) append_utf8(round, c);
    CHECK(round == "a\xC3\xA9\xE2\x9C\x93\xF0\x9F\x98\x80");

    struct Bad {
        std::string bytes;
        std::size_t offset;
        const char* why;
    };
    for (const Bad& bad : {Bad{"ab\xFF", 2, "cannot start"},            // never valid
                           Bad{"a\x80", 1, "cannot start"},             // a stray continuation byte
                           Bad{"xy\xC3(", 2, "should continue"},        // lead byte, then not a continuation
                           Bad{"abc\xE2\x9C", 3, "ends inside"},        // truncated at the end
                           Bad{"\xC0\xAF", 0, "overlong"},              // '/' in two bytes
                           Bad{"ok\xED\xA0\x80", 2, "surrogate"},       // U+D800
                           Bad{"\xF4\x90\x80\x80", 0, "U+10FFFF"}}) {  // one past the last code point
        const Utf8Result r = decode_utf8(bad.bytes);
        INFO(bad.why);
        CHECK_FALSE(r.ok);
        CHECK(r.error_offset == bad.offset);
        CHECK_THAT(r.error, Catch::Contains(bad.why));
    }
}

TEST_CASE("CharTokenizer: sorted code points of the file, encode/decode, errors named", "[data][tokenizer][char]") {
    const std::string text = "b\xC3\xA9" "a b\n\xE2\x9C\x93";  // "béa b\n✓"
    const std::string path = temp_file("chars.txt", text);
    const CharTokenizer tok = CharTokenizer::from_file(path);
    CHECK(tok.code_points() == std::vector<char32_t>{U'\n', U' ', U'a', U'b', U'\u00E9', U'\u2713'});
    CHECK(tok.size() == 7);  // with <pad>
    const std::vector<std::int64_t> ids = tok.encode(text);
    CHECK(ids.size() == 7);  // characters, not bytes
    CHECK(ids[0] == 4);      // 'b' is the fourth code point, after <pad>
    CHECK(tok.decode(ids) == text);
    CHECK(tok.decode(std::vector<std::int64_t>{CharTokenizer::kPad, 3, CharTokenizer::kPad}) == "a");
    CHECK_THROWS_WITH(tok.encode("ab\xC3\xA9z"), Catch::Contains("'z' (U+007A)") && Catch::Contains("byte offset 4"));
    CHECK_THROWS_WITH(tok.encode("a\t"), Catch::Contains("U+0009"));
    CHECK_THROWS_WITH(tok.decode(std::vector<std::int64_t>{7}), Catch::Contains("id 7"));
    CHECK_THROWS_AS(tok.encode("a\xFF"), ValueError);

    const std::string bad = temp_file("bad_utf8.txt", "hello\n\xE2\x9C");
    CHECK_THROWS_AS(CharTokenizer::from_file(bad), IOError);
    CHECK_THROWS_WITH(CharTokenizer::from_file(bad), Catch::Contains(bad) && Catch::Contains("byte offset 6"));
    CHECK_THROWS_AS(CharTokenizer::from_file(path + ".missing"), IOError);
}

TEST_CASE("a word corpus: whitespace-separated words, a sorted vocabulary after the specials", "[data][corpus]") {
    const data::WordCorpus c = data::read_word_corpus("the cat\tsat\n\non  the mat.\n", "test");
    CHECK(c.vocab.num_words() == 5);
    CHECK(c.vocab.word(data::Vocab::kFirstWord) == "cat");  // sorted: cat, mat., on, sat, the
    CHECK(c.vocab.word(data::Vocab::kFirstWord + 4) == "the");
    CHECK(c.ids == std::vector<std::int64_t>{8, 4, 7, 6, 8, 5});
    CHECK_THROWS_WITH(data::read_word_corpus(" \n\t", "'x.txt'"), Catch::Contains("'x.txt' has no words"));
    CHECK_THROWS_WITH(data::read_word_corpus("a [MASK] b", "'y.txt'"), Catch::Contains("'y.txt'"));
}

TEST_CASE("masked rows from a token stream hide about mask_prob of the tokens, at least one a row", "[data][corpus]") {
    std::vector<std::int64_t> stream;
    for (int i = 0; i < 400; ++i) stream.push_back(4 + i % 7);
    Generator gen(1);
    const data::MLMBatch b = data::make_stream_mlm_batch(stream, gen, 64, 16, 0.25);
    const auto ids = b.ids.to_vector<std::int64_t>(), targets = b.targets.to_vector<std::int64_t>();
    std::size_t hidden = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (targets[i] == data::kIgnoreIndex) continue;
        ++hidden;
        CHECK(ids[i] == data::Vocab::kMask);
        CHECK(targets[i] >= 4);
    }
    CHECK(hidden == Approx(0.25 * 64 * 16).epsilon(0.15));
    Generator gen0(2);
    const auto none = data::make_stream_mlm_batch(stream, gen0, 8, 16, 0.0).targets.to_vector<std::int64_t>();
    for (std::int64_t row = 0; row < 8; ++row)  // mask_prob 0 still hides one token a row
        CHECK(std::count_if(none.begin() + row * 16, none.begin() + (row + 1) * 16, [](std::int64_t t) { return t != data::kIgnoreIndex; }) == 1);
    CHECK(b.lengths.to_vector<std::int64_t>() == std::vector<std::int64_t>(64, 16));
}
