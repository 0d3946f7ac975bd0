// reversal.cpp — see reversal.hpp.
#include "data/reversal.hpp"

#include <algorithm>
#include <set>

#include "tensor/error.hpp"

namespace attnlab::data {

bool is_held_out(const Digits& source) {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a: fixed, so the split is the same everywhere
    for (std::int64_t d : source) h = (h ^ static_cast<std::uint64_t>(d + 1)) * 1099511628211ull;
    h ^= static_cast<std::uint64_t>(source.size());
    return (h * 1099511628211ull) >> 61 == 0;  // the top 3 bits: 1 in 8
}

Digits sample_source(Generator& gen, const ReversalConfig& config, bool held_out) {
    if (config.min_len < 1 || config.max_len < config.min_len)
        throw ValueError("sample_source: need 1 ≤ min_len ≤ max_len, got " + std::to_string(config.min_len) + ", " +
                         std::to_string(config.max_len));
    for (;;) {
        const auto span = static_cast<std::uint64_t>(config.max_len - config.min_len + 1);
        Digits s(static_cast<std::size_t>(config.min_len + static_cast<std::int64_t>(gen.below(span))));
        for (auto& d : s) d = static_cast<std::int64_t>(gen.below(kReversalDigits));
        if (is_held_out(s) == held_out) return s;
    }
}

Digits reversed(const Digits& source) { return Digits(source.rbegin(), source.rend()); }

ReversalBatch make_reversal_batch(const std::vector<Digits>& sources) {
    if (sources.empty()) throw ValueError("make_reversal_batch: no sources");
    std::int64_t S = 0;
    for (const Digits& s : sources) {
        if (s.empty()) throw ValueError("make_reversal_batch: an empty source");
        for (std::int64_t d : s)
            if (d < 0 || d >= kReversalDigits)
                throw ValueError("make_reversal_batch: token " + std::to_string(d) + " is not a digit 0-9");
        S = std::max<std::int64_t>(S, static_cast<std::int64_t>(s.size()));
    }
    const auto B = static_cast<std::int64_t>(sources.size());
    std::vector<std::int64_t> src(static_cast<std::size_t>(B * S), kReversalPad);
    std::vector<std::int64_t> in(static_cast<std::size_t>(B * (S + 1)), kReversalPad);
    std::vector<std::int64_t> out(static_cast<std::size_t>(B * (S + 1)), kReversalIgnore);
    ReversalBatch batch;
    for (std::int64_t b = 0; b < B; ++b) {
        const Digits& s = sources[static_cast<std::size_t>(b)];
        const Digits y = reversed(s);
        const auto L = static_cast<std::int64_t>(s.size());
        std::copy(s.begin(), s.end(), src.begin() + b * S);
        in[static_cast<std::size_t>(b * (S + 1))] = kReversalBos;
        std::copy(y.begin(), y.end(), in.begin() + b * (S + 1) + 1);
        std::copy(y.begin(), y.end(), out.begin() + b * (S + 1));
        out[static_cast<std::size_t>(b * (S + 1) + L)] = kReversalEos;
        batch.lengths.push_back(L);
    }
    batch.src = from_vector(src, {B, S});
    batch.tgt_in = from_vector(in, {B, S + 1});
    batch.tgt_out = from_vector(out, {B, S + 1});
    return batch;
}

ReversalBatch sample_reversal_batch(Generator& gen, std::int64_t batch_size, const ReversalConfig& config) {
    std::vector<Digits> sources;
    for (std::int64_t b = 0; b < batch_size; ++b) sources.push_back(sample_source(gen, config, /*held_out=*/false));
    return make_reversal_batch(sources);
}

std::vector<Digits> held_out_sources(Generator& gen, std::int64_t per_length, const ReversalConfig& config) {
    std::vector<Digits> all;
    for (std::int64_t len = config.min_len; len <= config.max_len; ++len) {
        const ReversalConfig one{len, len};
        std::set<Digits> seen;
        while (static_cast<std::int64_t>(seen.size()) < per_length) {
            Digits s = sample_source(gen, one, /*held_out=*/true);
            if (seen.insert(s).second) all.push_back(s);
        }
    }
    return all;
}

std::string to_string(const Digits& tokens) {
    std::string out;
    for (std::int64_t t : tokens) {
        if (!out.empty()) out += ' ';
        out += t == kReversalPad ? "<pad>" : t == kReversalBos ? "<bos>" : t == kReversalEos ? "<eos>" : std::to_string(t);
    }
    return out;
}

}  // namespace attnlab::data
