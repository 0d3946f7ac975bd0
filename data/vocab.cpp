// vocab.cpp — see vocab.hpp.
#include "data/vocab.hpp"

#include <algorithm>

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

std::size_t edit_distance(const std::string& a, const std::string& b) {
    // d[i][j]: distance between a's first i and b's first j characters; three rows are enough.
    std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])  // two letters swapped: "dgo" -> "dog"
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        std::swap(before, prev), std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::vector<std::string> nearest_words(const std::string& word, const std::vector<std::string>& known, std::size_t n) {
    std::vector<std::pair<std::size_t, std::size_t>> by_distance;  // (distance, index in known)
    for (std::size_t i = 0; i < known.size(); ++i) by_distance.emplace_back(edit_distance(word, known[i]), i);
    std::stable_sort(by_distance.begin(), by_distance.end(), [](auto a, auto b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < std::min(n, by_distance.size()); ++i) out.push_back(known[by_distance[i].second]);
    return out;
}

std::string unknown_words_message(const std::vector<std::string>& unknown, const std::vector<std::string>& known) {
    const auto join = [](const std::vector<std::string>& words, const char* quote) {
        std::string list;
        for (const std::string& w : words) list += (list.empty() ? "" : ", ") + (quote + w + quote);
        return list;
    };
    std::string msg = "unknown word" + std::string(unknown.size() > 1 ? "s " : " ") + join(unknown, "'");
    if (known.empty()) return msg;
    if (known.size() <= kVocabListedWhole) return msg + "; the vocabulary is " + join(known, "");
    msg += "; nearest known words: ";
    for (std::size_t i = 0; i < unknown.size(); ++i)
        msg += (i ? "; " : "") + (unknown.size() > 1 ? unknown[i] + " -> " : "") +
               join(nearest_words(unknown[i], known, kNearestShown), "");
    return msg;
}

}  // namespace attnlab::data
