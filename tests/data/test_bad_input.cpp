// test_bad_input.cpp — the bad-input catalogue for data/: text the tokenizers cannot
// take (characters outside the vocabulary, ill-formed UTF-8) and corpus paths that
// are not readable files. Each case checks the error's class and what it names.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sys/stat.h>

#include "data/corpus.hpp"
#include "data/tokenizer.hpp"
#include "data/utf8.hpp"
#include "tensor/error.hpp"
#include "io/fileio.hpp"
#include "tests/support/bad_input.hpp"

using namespace attnlab;
using namespace attnlab::data;
using attnlab::testing::fresh_dir;
using attnlab::testing::thrown;
using Catch::Contains;
namespace fs = std::filesystem;

TEST_CASE("CharTokenizer: a character outside the vocabulary names itself and its position", "[data][tokenizer][bad-input]") {
    const CharTokenizer tok = CharTokenizer::from_text("the cat");
    CHECK_THAT(thrown<ValueError>([&] { tok.encode("the pup"); }),
               Contains("character 'p' (U+0070) at position 4 (byte offset 4) is not in the vocabulary"));
}

TEST_CASE("CharTokenizer: position counts characters, byte offset counts bytes", "[data][tokenizer][bad-input]") {
    const CharTokenizer tok = CharTokenizer::from_text("\u00e9t\u00e9 ");
    CHECK_THAT(thrown<ValueError>([&] { tok.encode("\u00e9t\u00e9 \u2713"); }),
               Contains("'\u2713' (U+2713) at position 4 (byte offset 6)"));
}

TEST_CASE("CharTokenizer: a control character is named by its code point", "[data][tokenizer][bad-input]") {
    const CharTokenizer tok = CharTokenizer::from_text("ab");
    CHECK_THAT(thrown<ValueError>([&] { tok.encode("a\tb"); }), Contains("character U+0009 at position 1"));
}

TEST_CASE("CharTokenizer: ill-formed UTF-8 in text to encode", "[data][tokenizer][bad-input]") {
    const CharTokenizer tok = CharTokenizer::from_text("ab");
    CHECK_THAT(thrown<ValueError>([&] { tok.encode("ab\xff"); }),
               Contains("text to encode: invalid UTF-8 at byte offset 2: byte 0xff cannot start a character"));
}

TEST_CASE("CharTokenizer: an id outside the vocabulary on decode", "[data][tokenizer][bad-input]") {
    const CharTokenizer tok = CharTokenizer::from_text("ab");
    CHECK_THAT(thrown<ValueError>([&] { tok.decode(std::vector<std::int64_t>{1, 112}); }), Contains("id 112 is outside [0, 3)"));
}

TEST_CASE("CharTokenizer: a directory as the corpus", "[data][tokenizer][bad-input]") {
    const std::string dir = fresh_dir("adir");
    CHECK_THAT(thrown<IOError>([&] { CharTokenizer::from_file(dir); }), Contains("'" + dir + "' is a directory"));
}

TEST_CASE("CharTokenizer: a FIFO as the corpus does not hang", "[data][tokenizer][bad-input]") {
    const std::string fifo = fresh_dir("fifo") + "/corpus.txt";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK_THAT(thrown<IOError>([&] { CharTokenizer::from_file(fifo); }), Contains("'" + fifo + "' is a FIFO"));
}

TEST_CASE("CharTokenizer: a corpus file with a truncated character", "[data][tokenizer][bad-input]") {
    const std::string path = fresh_dir("truncated") + "/corpus.txt";
    write_file_atomic(path, "caf\xC3");
    CHECK_THAT(thrown<IOError>([&] { CharTokenizer::from_file(path); }),
               Contains("'" + path + "': invalid UTF-8 at byte offset 3: the file ends inside a 2-byte character"));
}

TEST_CASE("UTF-8: an overlong encoding of '/'", "[data][utf8][bad-input]") {
    const Utf8Result r = decode_utf8("a\xC0\xAF");
    CHECK_FALSE(r.ok);
    CHECK(r.error_offset == 1);
    CHECK_THAT(r.error, Contains("overlong encoding of '/' (U+002F)"));
}

TEST_CASE("UTF-8: a UTF-16 surrogate encoded as UTF-8", "[data][utf8][bad-input]") {
    const Utf8Result r = decode_utf8("\xED\xA0\x80");
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Contains("surrogate"));
}

TEST_CASE("UTF-8: a value past U+10FFFF", "[data][utf8][bad-input]") {
    const Utf8Result r = decode_utf8("ok\xF4\x90\x80\x80");
    CHECK_FALSE(r.ok);
    CHECK(r.error_offset == 2);
    CHECK(r.code_points == std::vector<char32_t>{U'o', U'k'});  // what came before is kept
    CHECK_THAT(r.error, Contains("value past U+10FFFF"));
}

TEST_CASE("UTF-8: a continuation byte where a character should start", "[data][utf8][bad-input]") {
    const Utf8Result r = decode_utf8("\xE2\x9C" "a");
    CHECK_FALSE(r.ok);
    CHECK_THAT(r.error, Contains("byte 0x61 at offset 2 should continue the character"));
}

TEST_CASE("WordTokenizer: unknown words are listed by name, each once", "[data][tokenizer][bad-input]") {
    const WordTokenizer tok(Vocab({"the", "cat"}));
    CHECK_THAT(thrown<ValueError>([&] { tok.encode("the dog and the dog"); }), Contains("unknown words 'dog', 'and'"));
}

// Corpora are checked when read, before any training step (the CLI cases are in
// tests/tools/test_tinygpt_cli.cpp): the offset of the first bad byte, the source named.
TEST_CASE("read_word_corpus / read_char_corpus: text that is not a corpus", "[data][corpus][bad-input]") {
    const std::string good = "the cat sat on the mat\n";
    for (const auto& read : {+[](std::string_view t) { read_word_corpus(t, "corpus 'c.txt'"); },
                             +[](std::string_view t) { read_char_corpus(t, "corpus 'c.txt'"); }}) {
        CHECK_THAT(thrown<ValueError>([&] { read(good + "caf\xe9\n"); }),
                   Contains("corpus 'c.txt' is not UTF-8 text: invalid byte sequence at byte offset 26"));
        CHECK_THAT(thrown<ValueError>([&] { read(good + std::string("a\0b", 3)); }),
                   Contains("corpus 'c.txt' holds a NUL byte at byte offset 24"));
        CHECK_THAT(thrown<ValueError>([&] { read("\xc0\xaf"); }), Contains("byte offset 0"));  // overlong '/'
        CHECK_NOTHROW(read(good));
    }
    CHECK_THAT(thrown<ValueError>([&] { read_word_corpus("cat cat\ncat", "corpus 'c.txt'"); }),
               Contains("read_word_corpus: corpus 'c.txt' has 1 distinct words, fewer than the 2"));
    CHECK_THAT(thrown<ValueError>([&] { read_char_corpus("aaaa", "corpus 'c.txt'"); }),
               Contains("read_char_corpus: corpus 'c.txt' has 1 distinct characters"));
    CHECK(read_char_corpus("ab", "x").size() == 3);  // <pad> and two characters
    CHECK(read_word_corpus("a b a", "x").ids.size() == 3);
}
