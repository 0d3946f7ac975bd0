// test_shipped_corpora.cpp — the texts data/ ships are the ones data/README.md describes:
// tiny Shakespeare byte for byte (size and FNV-1a hash, which a training checkpoint records
// too), readable as strict UTF-8, with nanoGPT's 65 distinct characters.
#include <catch2/catch.hpp>
#include <set>

#include "io/fileio.hpp"
#include "training/run_config.hpp"

using namespace attnlab;

TEST_CASE("data/tinyshakespeare.txt is tiny Shakespeare, unchanged", "[data][corpus]") {
    const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/data/tinyshakespeare.txt";
    const std::string text = read_file(path, 2 << 20);
    const lab::DataIdentity id = lab::identify_corpus(path, text);
    CHECK(id.bytes == 1'115'394);
    CHECK(id.fnv1a64 == 0x4016c93c3be74c18ull);
    std::set<char> chars(text.begin(), text.end());
    CHECK(chars.size() == 65);  // nanoGPT's shakespeare_char vocabulary
    CHECK(text.rfind("First Citizen:", 0) == 0);
}
