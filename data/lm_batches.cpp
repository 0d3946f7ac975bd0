// lm_batches.cpp — see lm_batches.hpp.
#include "data/lm_batches.hpp"

#include <cmath>
#include <string>

#include "data/packing.hpp"
#include "tensor/error.hpp"

namespace attnlab::data {

static void check_batch_shape(const char* op, std::int64_t B, std::int64_t T) {
    if (B <= 0 || T <= 0)
        throw ValueError(std::string(op) + ": B and T must be positive, got B = " + std::to_string(B) + ", T = " + std::to_string(T));
}

LMBatch make_lm_batch(const Grammar& g, Generator& gen, std::int64_t B, std::int64_t T) {
    check_batch_shape("make_lm_batch", B, T);
    std::vector<std::int64_t> ids, targets;
    ids.reserve(static_cast<std::size_t>(B * T));
    targets.reserve(static_cast<std::size_t>(B * T));
    for (std::int64_t b = 0; b < B; ++b) {
        const std::vector<std::int64_t> row = pack_row(g, gen, T + 1);
        for (std::int64_t t = 0; t < T; ++t) {
            const std::int64_t next = row[static_cast<std::size_t>(t + 1)];
            ids.push_back(row[static_cast<std::size_t>(t)]);
            targets.push_back(next == Vocab::kPad ? kIgnoreIndex : next);
        }
    }
    return {from_vector(ids, {B, T}), from_vector(targets, {B, T})};
}

Tensor bayes_floor_per_position(const Grammar& g, const LMBatch& batch) {
    if (batch.ids.dtype() != kInt64 || batch.targets.dtype() != kInt64 || batch.ids.dim() != 2 ||
        batch.ids.shape() != batch.targets.shape())
        throw ValueError("bayes_floor: ids and targets must be int64 of one shape [B, T], got " +
                         batch.ids.shape().str() + " and " + batch.targets.shape().str());
    const std::int64_t B = batch.ids.size(0), T = batch.ids.size(1);
    const std::vector<std::int64_t> ids = batch.ids.to_vector<std::int64_t>();
    const std::vector<std::int64_t> targets = batch.targets.to_vector<std::int64_t>();
    std::vector<double> nll(static_cast<std::size_t>(B * T), 0.0);
    std::vector<std::int64_t> row(static_cast<std::size_t>(T + 1));
    for (std::int64_t b = 0; b < B; ++b) {
        // Rebuild the packed row: the ids, then the last target (an ignored one was <pad>).
        const std::size_t base = static_cast<std::size_t>(b * T);
        for (std::int64_t t = 0; t < T; ++t) {
            const std::int64_t target = targets[base + static_cast<std::size_t>(t)];
            if (t + 1 < T && target != kIgnoreIndex && target != ids[base + static_cast<std::size_t>(t + 1)])
                throw ValueError("bayes_floor: row " + std::to_string(b) + ": targets[" + std::to_string(t) +
                                 "] is not ids[" + std::to_string(t + 1) + "]: targets must be the ids shifted by one");
            row[static_cast<std::size_t>(t)] = ids[base + static_cast<std::size_t>(t)];
        }
        const std::int64_t last = targets[base + static_cast<std::size_t>(T - 1)];
        row[static_cast<std::size_t>(T)] = last == kIgnoreIndex ? Vocab::kPad : last;

        const std::vector<double> p = packed_token_probs(g, row);
        // 0.0 - log(p) rather than -log(p): where p = 1 the latter is -0, printed "-0.0000".
        for (std::int64_t t = 0; t < T; ++t)
            if (targets[base + static_cast<std::size_t>(t)] != kIgnoreIndex)
                nll[base + static_cast<std::size_t>(t)] = 0.0 - std::log(p[static_cast<std::size_t>(t + 1)]);
    }
    return from_vector(nll, {B, T});
}

// Sum of −log p over the non-ignored targets, and how many there are.
static std::pair<double, std::int64_t> floor_sum(const Grammar& g, const LMBatch& batch) {
    const std::vector<double> nll = bayes_floor_per_position(g, batch).to_vector<double>();
    const std::vector<std::int64_t> targets = batch.targets.to_vector<std::int64_t>();
    double sum = 0;
    std::int64_t count = 0;
    for (std::size_t i = 0; i < nll.size(); ++i)
        if (targets[i] != kIgnoreIndex) {
            sum += nll[i];
            ++count;
        }
    return {sum, count};
}

double bayes_floor(const Grammar& g, const LMBatch& batch) { return bayes_floor(g, std::vector<LMBatch>{batch}); }

double bayes_floor(const Grammar& g, const std::vector<LMBatch>& batches) {
    double sum = 0;
    std::int64_t count = 0;
    for (const LMBatch& batch : batches) {
        const auto [s, n] = floor_sum(g, batch);
        sum += s;
        count += n;
    }
    if (count == 0) throw ValueError("bayes_floor: no targets to average over");
    return sum / static_cast<double>(count);
}

std::vector<LMBatch> make_lm_validation(const Grammar& g, std::int64_t n_batches, std::int64_t B, std::int64_t T,
                                        std::uint64_t seed) {
    Generator gen(seed);
    std::vector<LMBatch> batches;
    for (std::int64_t i = 0; i < n_batches; ++i) batches.push_back(make_lm_batch(g, gen, B, T));
    return batches;
}

LMBatch make_char_lm_batch(const std::vector<std::int64_t>& tokens, Generator& gen, std::int64_t B, std::int64_t T) {
    check_batch_shape("make_char_lm_batch", B, T);
    const auto n = static_cast<std::int64_t>(tokens.size());
    if (n < T + 1)
        throw ValueError("make_char_lm_batch: a window of T + 1 = " + std::to_string(T + 1) + " tokens does not fit in " +
                         std::to_string(n) + " tokens");
    std::vector<std::int64_t> ids, targets;
    ids.reserve(static_cast<std::size_t>(B * T));
    targets.reserve(static_cast<std::size_t>(B * T));
    for (std::int64_t b = 0; b < B; ++b) {
        const auto start = static_cast<std::size_t>(gen.below(static_cast<std::uint64_t>(n - T)));  // every window equally likely
        ids.insert(ids.end(), tokens.begin() + start, tokens.begin() + start + T);
        targets.insert(targets.end(), tokens.begin() + start + 1, tokens.begin() + start + T + 1);
    }
    return {from_vector(ids, {B, T}), from_vector(targets, {B, T})};
}

}  // namespace attnlab::data
