// generate.cpp — see generate.hpp.
#include "nn/generate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

void check_options(const GenerateOptions& o, const std::string& who) {
    // NaN fails every comparison: `!(t >= 0)` catches it with the negatives.
    if (!(o.temperature >= 0) || std::isinf(o.temperature)) {
        char got[32];
        std::snprintf(got, sizeof got, "%g", o.temperature);
        throw ValueError(who + ": temperature must be a finite number >= 0 (0 = greedy), got " + got);
    }
    if (o.top_k < 0) throw ValueError(who + ": top_k must be >= 0 (0 = all tokens), got " + std::to_string(o.top_k));
    if (o.max_new_tokens < 0) throw ValueError(who + ": max_new_tokens must be >= 0, got " + std::to_string(o.max_new_tokens));
    if (!(o.top_p > 0 && o.top_p <= 1)) {
        char got[32];
        std::snprintf(got, sizeof got, "%g", o.top_p);
        throw ValueError(who + ": top_p must be in (0, 1] (1 = all tokens), got " + got);
    }
}

Candidates sampling_candidates(const Tensor& logits, const GenerateOptions& o) {
    check_options(o, "sampling_candidates");
    const std::vector<double> z = logits.to_vector<double>();
    const std::size_t V = z.size();
    std::vector<std::int64_t> order(V);
    std::iota(order.begin(), order.end(), 0);
    // Ties go to the lower id, as argmax does, so greedy decoding is reproducible.
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return z[static_cast<std::size_t>(a)] > z[static_cast<std::size_t>(b)];
    });
    if (o.temperature == 0) return {{order[0]}, {1.0}, 1.0};
    const std::size_t k = o.top_k > 0 ? std::min<std::size_t>(V, static_cast<std::size_t>(o.top_k)) : V;
    const double z_max = z[static_cast<std::size_t>(order[0])];
    std::vector<double> p(k);
    for (std::size_t i = 0; i < k; ++i) p[i] = std::exp((z[static_cast<std::size_t>(order[i])] - z_max) / o.temperature);
    double total = std::accumulate(p.begin(), p.end(), 0.0);
    std::size_t kept = k;
    if (o.top_p < 1) {  // nucleus: the most likely tokens until their share reaches top_p (at least one)
        double mass = 0;
        for (kept = 0; kept < k && mass < o.top_p * total;) mass += p[kept++];
        total = mass;
    }
    order.resize(kept), p.resize(kept);
    return {order, p, total};
}

std::int64_t choose_token(const Tensor& logits, const GenerateOptions& o, Generator& gen) {
    const Candidates c = sampling_candidates(logits, o);
    if (o.temperature == 0) return c.tokens[0];
    double u = gen.uniform() * c.total;
    for (std::size_t i = 0; i < c.tokens.size(); ++i)
        if ((u -= c.weights[i]) < 0) return c.tokens[i];
    return c.tokens.back();  // u landed on the rounding edge
}

std::vector<double> next_token_distribution(const Tensor& logits, const GenerateOptions& o) {
    const Candidates c = sampling_candidates(logits, o);
    std::vector<double> p(static_cast<std::size_t>(logits.numel()), 0.0);
    for (std::size_t i = 0; i < c.tokens.size(); ++i) p[static_cast<std::size_t>(c.tokens[i])] = c.weights[i] / c.total;
    return p;
}

std::string describe_stop(const Generation& g, const GenerateOptions& o, std::int64_t context) {
    const std::string n = std::to_string(g.tokens.size());
    switch (g.stop) {
        case Stop::stop_token: return n + " of " + std::to_string(o.max_new_tokens) + " tokens: the end token was produced";
        case Stop::context_full:
            return n + " of " + std::to_string(o.max_new_tokens) + " tokens: the context of " + std::to_string(context) +
                   " positions is full";
        case Stop::count: break;
    }
    return n + " tokens, as many as asked";
}

Generation generate(Transformer& model, const std::vector<std::int64_t>& prompt, const GenerateOptions& o) {
    check_options(o, "generate");
    if (prompt.empty()) throw ValueError("generate: the prompt is empty");
    if (!model.config().causal) throw ValueError("generate: the model is bidirectional; generation needs a causal model");
    const std::int64_t context = model.config().context;
    if (static_cast<std::int64_t>(prompt.size()) >= context && !o.slide_window)
        throw ValueError("generate: the prompt has " + std::to_string(prompt.size()) + " tokens and the context holds " +
                         std::to_string(context) + ": no position is left for a new token");
    const auto t0 = std::chrono::steady_clock::now();
    NoGradGuard no_grad;
    const bool was_training = model.is_training();
    model.eval();
    Generator gen(o.seed);
    Generation out;
    std::vector<std::int64_t> seq = prompt;
    std::vector<KVCache> caches = model.make_caches();
    std::vector<std::int64_t> feed = prompt;  // what the next forward must process
    out.stop = Stop::count;
    while (static_cast<std::int64_t>(out.tokens.size()) < o.max_new_tokens) {
        const bool full = static_cast<std::int64_t>(seq.size()) >= context;
        if (full && !o.slide_window) {
            out.stop = Stop::context_full;
            break;
        }
        // The window: everything so far, or (sliding) the last context − 1 tokens from position 0.
        if (full) feed.assign(seq.end() - (context - 1), seq.end());
        else if (!o.use_kv_cache) feed = seq;
        const bool cached = o.use_kv_cache && !full;
        Tensor logits = model.forward(from_vector(feed, {1, static_cast<std::int64_t>(feed.size())}), Mask(),
                                      cached ? &caches : nullptr);
        Tensor last = logits.select(0, 0).select(0, -1).contiguous();  // [V]: the distribution of the next token
        const std::int64_t next = choose_token(last, o, gen);
        out.tokens.push_back(next);
        out.logits.push_back(last);
        seq.push_back(next);
        feed = {next};
        if (next == o.stop_token) {
            out.stop = Stop::stop_token;
            break;
        }
    }
    model.train(was_training);
    out.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace attnlab::nn
