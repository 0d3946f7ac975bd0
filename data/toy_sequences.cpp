// toy_sequences.cpp — see toy_sequences.hpp.
#include "data/toy_sequences.hpp"

#include <sstream>

#include "assets/assets.hpp"
#include "data/tokenizer.hpp"
#include "tensor/error.hpp"
#include "io/fileio.hpp"

namespace attnlab::data {

namespace {

std::vector<std::vector<std::int64_t>> encode_lines(const Vocab& vocab, const std::string& text, const std::string& source) {
    const WordTokenizer tokenizer(vocab);
    std::istringstream in(text);
    std::vector<std::vector<std::int64_t>> sentences;
    int line_number = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            sentences.push_back(tokenizer.encode(line));
        } catch (const ValueError& e) {
            throw ValueError("'" + source + "' line " + std::to_string(line_number) + ": " + e.what());
        }
    }
    return sentences;
}

}  // namespace

std::vector<std::vector<std::int64_t>> load_toy_sequences(const Vocab& vocab) {
    return encode_lines(vocab, std::string(assets::file("data/toy_sequences.txt")), "data/toy_sequences.txt (compiled in)");
}

std::vector<std::vector<std::int64_t>> load_toy_sequences(const Vocab& vocab, const std::string& path) {
    return encode_lines(vocab, read_file(path), path);
}

}  // namespace attnlab::data
