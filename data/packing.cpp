// packing.cpp — see packing.hpp.
#include "data/packing.hpp"

#include <string>

#include "tensor/error.hpp"

namespace attnlab::data {

// Words a sentence starting at slot i may have: the slots from i on, less one for <eos>.
static std::int64_t word_budget(std::int64_t slots, std::int64_t i) { return slots - 1 - i; }

std::vector<std::int64_t> pack_row(const Grammar& g, Generator& gen, std::int64_t slots) {
    if (slots < 2 || g.fit_prob(g.start(), word_budget(slots, 1)) == 0)
        throw ValueError("pack_row: a row of " + std::to_string(slots) +
                         " tokens cannot hold <bos>, the shortest sentence and its <eos>");
    std::vector<std::int64_t> row{Vocab::kBos};
    row.reserve(static_cast<std::size_t>(slots));
    for (;;) {
        const std::int64_t budget = word_budget(slots, static_cast<std::int64_t>(row.size()));
        if (g.fit_prob(g.start(), budget) == 0) break;
        for (std::int64_t w : g.sample_sentence(gen, budget)) row.push_back(w);
        row.push_back(Vocab::kEos);
    }
    row.resize(static_cast<std::size_t>(slots), Vocab::kPad);
    return row;
}

std::vector<double> packed_token_probs(const Grammar& g, std::span<const std::int64_t> row) {
    const auto slots = static_cast<std::int64_t>(row.size());
    auto fail = [&](std::int64_t i, const std::string& why) {
        const std::int64_t t = row[static_cast<std::size_t>(i)];
        const std::string name = t >= 0 && t < g.vocab().size() ? "'" + g.vocab().word(t) + "'" : "id " + std::to_string(t);
        return ValueError("packed_token_probs: " + name + " at slot " + std::to_string(i) + " " + why);
    };
    if (slots == 0 || row[0] != Vocab::kBos) throw ValueError("packed_token_probs: a packed row starts with <bos>");

    std::vector<double> p(row.size(), 1.0);
    int state = g.start();
    bool padding = false;
    for (std::int64_t i = 1; i < slots; ++i) {
        const std::int64_t token = row[static_cast<std::size_t>(i)];
        const std::int64_t budget = word_budget(slots, i);
        const bool at_boundary = state == g.start();  // after <bos> or <eos>
        // At a boundary the packing rule decides deterministically: another sentence
        // if one can fit, else padding to the end.
        const bool must_pad = padding || (at_boundary && g.fit_prob(state, budget) == 0);
        if (must_pad) {
            if (token != Vocab::kPad) throw fail(i, "comes where the row must be padded");
            padding = true;
            continue;
        }
        if (token == Vocab::kPad) throw fail(i, "pads a row that still has room for a sentence");
        const int next = g.step(state, token);
        if (next < 0)  // includes <bos> and [MASK], which no state emits
            throw fail(i, "cannot come there (grammar state '" + g.state_name(state) + "')");
        const double move = g.probs(state)[static_cast<std::size_t>(token)];
        const double fits_after = token == Vocab::kEos ? 1.0 : g.fit_prob(next, budget - 1);
        p[static_cast<std::size_t>(i)] = move * fits_after / g.fit_prob(state, budget);
        if (p[static_cast<std::size_t>(i)] == 0) throw fail(i, "leaves the sentence too long for the row");
        state = next;
    }
    if (!padding && state != g.start()) throw fail(slots - 1, "ends the row in the middle of a sentence");
    return p;
}

}  // namespace attnlab::data
