// mlm_batches.cpp — see mlm_batches.hpp.
#include "data/mlm_batches.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "data/packing.hpp"
#include "tensor/error.hpp"

namespace attnlab::data {

MLMBatch make_mlm_batch(const Grammar& g, Generator& gen, std::int64_t B, std::int64_t T, double mask_prob) {
    if (B <= 0 || T <= 0)
        throw ValueError("make_mlm_batch: B and T must be positive, got B = " + std::to_string(B) + ", T = " + std::to_string(T));
    if (!(mask_prob >= 0 && mask_prob <= 1))
        throw ValueError("make_mlm_batch: mask_prob must be in [0, 1], got " + std::to_string(mask_prob));
    std::vector<std::int64_t> ids, targets, lengths;
    for (std::int64_t b = 0; b < B; ++b) {
        std::vector<std::int64_t> row = pack_row(g, gen, T);
        std::vector<std::int64_t> row_targets(row.size(), kIgnoreIndex);
        std::vector<std::size_t> word_slots;
        for (std::size_t t = 0; t < row.size(); ++t)
            if (g.vocab().is_word(row[t])) word_slots.push_back(t);
        // The choice of slots never looks at the words in them, so it tells a model nothing.
        bool any = false;
        for (std::size_t t : word_slots)
            if (gen.uniform() < mask_prob) {
                row_targets[t] = row[t];
                row[t] = Vocab::kMask;
                any = true;
            }
        if (!any) {
            const std::size_t t = word_slots[gen.below(word_slots.size())];
            row_targets[t] = row[t];
            row[t] = Vocab::kMask;
        }
        std::int64_t length = 0;
        while (length < T && row[static_cast<std::size_t>(length)] != Vocab::kPad) ++length;
        ids.insert(ids.end(), row.begin(), row.end());
        targets.insert(targets.end(), row_targets.begin(), row_targets.end());
        lengths.push_back(length);
    }
    return {from_vector(ids, {B, T}), from_vector(targets, {B, T}), from_vector(lengths, {B})};
}

std::vector<std::vector<double>> masked_word_posteriors(const Grammar& g, std::span<const std::int64_t> sentence) {
    const std::size_t n = sentence.size(), S = static_cast<std::size_t>(g.num_states());
    for (std::size_t j = 0; j < n; ++j)
        if (sentence[j] != Vocab::kMask && !g.vocab().is_word(sentence[j]))
            throw ValueError("masked_word_posteriors: token id " + std::to_string(sentence[j]) + " at position " +
                             std::to_string(j) + " is neither a word nor [MASK]");

    // The moves slot j allows out of state s: the visible word, or every word if hidden.
    auto for_each_move = [&](std::size_t j, int s, auto&& f) {
        if (sentence[j] != Vocab::kMask) {
            const int next = g.step(s, sentence[j]);
            if (next >= 0) f(sentence[j], g.probs(s)[static_cast<std::size_t>(sentence[j])], next);
            return;
        }
        for (const Grammar::Move& m : g.moves(s))
            if (m.token != Vocab::kEos) f(m.token, m.prob, m.next);
    };

    // alpha[j][s]: P(the first j slots as seen, and state s after them).
    std::vector<std::vector<double>> alpha(n + 1, std::vector<double>(S, 0.0));
    alpha[0][static_cast<std::size_t>(g.start())] = 1.0;
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t s = 0; s < S; ++s)
            if (alpha[j][s] > 0)
                for_each_move(j, static_cast<int>(s), [&](std::int64_t, double p, int next) {
                    alpha[j + 1][static_cast<std::size_t>(next)] += alpha[j][s] * p;
                });
    // beta[j][s]: P(the slots from j on as seen, then <eos> | state s before slot j).
    // Only states the forward pass reached are ever asked about, so only those are
    // computed: with few hidden slots that is a handful of states instead of all.
    std::vector<std::vector<double>> beta(n + 1, std::vector<double>(S, 0.0));
    for (std::size_t s = 0; s < S; ++s) beta[n][s] = g.probs(static_cast<int>(s))[Vocab::kEos];
    for (std::size_t j = n; j-- > 0;)
        for (std::size_t s = 0; s < S; ++s)
            if (alpha[j][s] > 0)
                for_each_move(j, static_cast<int>(s), [&](std::int64_t, double p, int next) {
                    beta[j][s] += p * beta[j + 1][static_cast<std::size_t>(next)];
                });
    if (!(beta[0][static_cast<std::size_t>(g.start())] > 0))
        throw ValueError("masked_word_posteriors: no way of filling the [MASK] slots makes a sentence");

    std::vector<std::vector<double>> posterior(n);
    for (std::size_t j = 0; j < n; ++j) {
        if (sentence[j] != Vocab::kMask) continue;
        std::vector<double> q(static_cast<std::size_t>(g.vocab().size()), 0.0);
        double z = 0;
        for (std::size_t s = 0; s < S; ++s)
            if (alpha[j][s] > 0)
                for_each_move(j, static_cast<int>(s), [&](std::int64_t w, double p, int next) {
                    const double joint = alpha[j][s] * p * beta[j + 1][static_cast<std::size_t>(next)];
                    q[static_cast<std::size_t>(w)] += joint;
                    z += joint;
                });
        for (double& x : q) x /= z;
        posterior[j] = std::move(q);
    }
    return posterior;
}

Tensor bayes_floor_mlm_per_position(const Grammar& g, const MLMBatch& batch) {
    if (batch.ids.dtype() != kInt64 || batch.targets.dtype() != kInt64 || batch.ids.dim() != 2 ||
        batch.ids.shape() != batch.targets.shape())
        throw ValueError("bayes_floor_mlm: ids and targets must be int64 of one shape [B, T], got " +
                         batch.ids.shape().str() + " and " + batch.targets.shape().str());
    const std::int64_t B = batch.ids.size(0), T = batch.ids.size(1);
    const std::vector<std::int64_t> ids = batch.ids.to_vector<std::int64_t>();
    const std::vector<std::int64_t> targets = batch.targets.to_vector<std::int64_t>();
    std::vector<double> nll(static_cast<std::size_t>(B * T), 0.0);
    for (std::int64_t b = 0; b < B; ++b) {
        const auto first = ids.begin() + b * T;
        std::vector<std::int64_t> row(first, first + T), original = row;
        for (std::size_t t = 0; t < row.size(); ++t) {
            const std::int64_t target = targets[static_cast<std::size_t>(b * T) + t];
            if ((row[t] == Vocab::kMask) != (target != kIgnoreIndex))
                throw ValueError("bayes_floor_mlm: row " + std::to_string(b) + ", slot " + std::to_string(t) +
                                 ": targets must be set exactly where ids is [MASK]");
            if (row[t] == Vocab::kMask) original[t] = target;
        }
        packed_token_probs(g, original);  // validates the row, hidden words restored

        // Each sentence on its own: the slots between one boundary token and the next.
        std::size_t begin = 1;
        for (std::size_t t = 1; t < row.size() && row[t] != Vocab::kPad; ++t) {
            if (row[t] != Vocab::kEos) continue;
            const std::size_t first_slot = begin;
            const std::span<const std::int64_t> sentence(row.data() + first_slot, t - first_slot);
            begin = t + 1;
            if (std::find(sentence.begin(), sentence.end(), Vocab::kMask) == sentence.end()) continue;
            const auto posterior = masked_word_posteriors(g, sentence);
            for (std::size_t j = 0; j < sentence.size(); ++j)
                if (!posterior[j].empty()) {
                    const std::size_t slot = first_slot + j;
                    nll[static_cast<std::size_t>(b * T) + slot] =
                        0.0 - std::log(posterior[j][static_cast<std::size_t>(original[slot])]);
                }
        }
    }
    return from_vector(nll, {B, T});
}

double bayes_floor_mlm(const Grammar& g, const MLMBatch& batch) { return bayes_floor_mlm(g, std::vector<MLMBatch>{batch}); }

double bayes_floor_mlm(const Grammar& g, const std::vector<MLMBatch>& batches) {
    double sum = 0;
    std::int64_t count = 0;
    for (const MLMBatch& batch : batches) {
        const std::vector<double> nll = bayes_floor_mlm_per_position(g, batch).to_vector<double>();
        const std::vector<std::int64_t> targets = batch.targets.to_vector<std::int64_t>();
        for (std::size_t i = 0; i < nll.size(); ++i)
            if (targets[i] != kIgnoreIndex) {
                sum += nll[i];
                ++count;
            }
    }
    if (count == 0) throw ValueError("bayes_floor_mlm: no masked tokens to average over");
    return sum / static_cast<double>(count);
}

std::vector<MLMBatch> make_mlm_validation(const Grammar& g, std::int64_t n_batches, std::int64_t B, std::int64_t T,
                                          double mask_prob, std::uint64_t seed) {
    Generator gen(seed);
    std::vector<MLMBatch> batches;
    for (std::int64_t i = 0; i < n_batches; ++i) batches.push_back(make_mlm_batch(g, gen, B, T, mask_prob));
    return batches;
}

}  // namespace attnlab::data
