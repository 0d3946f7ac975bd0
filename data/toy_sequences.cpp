// toy_sequences.cpp — see toy_sequences.hpp.
#include "data/toy_sequences.hpp"

#include <sstream>

#include "data/tokenizer.hpp"
#include "tensor/error.hpp"
#include "io/fileio.hpp"

namespace attnlab::data {

std::string toy_sequences_path() { return ATTNLAB_SOURCE_DIR "/data/toy_sequences.txt"; }

std::vector<std::vector<std::int64_t>> load_toy_sequences(const Vocab& vocab, const std::string& path) {
    const WordTokenizer tokenizer(vocab);
    std::istringstream in(read_file(path));
    std::vector<std::vector<std::int64_t>> sentences;
    int line_number = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            sentences.push_back(tokenizer.encode(line));
        } catch (const ValueError& e) {
            throw ValueError("'" + path + "' line " + std::to_string(line_number) + ": " + e.what());
        }
    }
    return sentences;
}

}  // namespace attnlab::data
