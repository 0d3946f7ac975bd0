// vocab.cpp — see vocab.hpp.
#include "data/vocab.hpp"

#include "tensor/error.hpp"

namespace attnlab::data {

Vocab::Vocab(const std::vector<std::string>& words) {
    words_ = {"<pad>", "<bos>", "<eos>", "[MASK]"};
    words_.insert(words_.end(), words.begin(), words.end());
    for (std::size_t i = 0; i < words_.size(); ++i) {
        const std::string& w = words_[i];
        if (i >= kFirstWord && (w.empty() || w.find(' ') != std::string::npos))
            throw ValueError("Vocab: word '" + w + "' is empty or contains a space");
        if (!ids_.emplace(w, static_cast<std::int64_t>(i)).second)
            throw ValueError("Vocab: '" + w + "' appears twice (or is a special token)");
    }
}

std::int64_t Vocab::id(std::string_view word) const {
    auto it = ids_.find(std::string(word));
    if (it == ids_.end()) throw ValueError("Vocab: unknown word '" + std::string(word) + "'");
    return it->second;
}

const std::string& Vocab::word(std::int64_t id) const {
    if (id < 0 || id >= size())
        throw ValueError("Vocab: id " + std::to_string(id) + " is outside [0, " + std::to_string(size()) + ")");
    return words_[static_cast<std::size_t>(id)];
}

}  // namespace attnlab::data
