// test_options.cpp — the words a --sentence may be corrected to. The parser itself is
// tested through the programs that use it, spawned as processes (tests/phases/test_phase_cli.cpp).
#include <catch2/catch.hpp>

#include "lab/options.hpp"

using namespace attnlab;

TEST_CASE("edit distance counts inserts, deletes and substitutions", "[lab][options]") {
    CHECK(lab::edit_distance("cat", "cat") == 0);
    CHECK(lab::edit_distance("cat", "cats") == 1);
    CHECK(lab::edit_distance("cat", "at") == 1);
    CHECK(lab::edit_distance("cat", "cut") == 1);
    CHECK(lab::edit_distance("kitten", "sitting") == 3);
    CHECK(lab::edit_distance("", "dog") == 3);
    CHECK(lab::edit_distance("dgo", "dog") == 1);  // a swap of neighbours
    CHECK(lab::edit_distance("ab", "ba") == 1);
    CHECK(lab::edit_distance("abc", "ca") == 3);   // optimal string alignment: no edit of a swapped pair
}

TEST_CASE("nearest words: closest first, ties in vocabulary order", "[lab][options]") {
    const std::vector<std::string> vocab{"the", "cat", "sat", "mat", "dog", "on"};
    CHECK(lab::nearest_words("cta", vocab, 1) == std::vector<std::string>{"cat"});
    CHECK(lab::nearest_words("bat", vocab, 3) == std::vector<std::string>{"cat", "sat", "mat"});
    CHECK(lab::nearest_words("x", vocab, 10).size() == vocab.size());
}
