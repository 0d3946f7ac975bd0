// phase4_experiments.cpp — the bodies of phases/phase4_experiments.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase4_experiments.hpp"

#include "analyses/attention_weights.hpp"

namespace attnlab::phase4 {

Tensor row(const std::vector<std::int64_t>& ids) { return from_vector(ids, {1, len(ids)}); }  // [1, T]

std::vector<std::int64_t> with_bos(const std::string& text) {
    std::vector<std::int64_t> ids{data::Vocab::kBos};
    for (std::int64_t id : data::WordTokenizer(data::toy_grammar().vocab()).encode(text)) ids.push_back(id);
    return ids;
}

std::string text_of(const std::vector<std::int64_t>& ids, const std::vector<std::string>& vocab,
                    const std::string& sep) {
    std::string s;
    for (std::int64_t id : ids) s += (s.empty() ? "" : sep) + vocab.at(static_cast<std::size_t>(id));
    return s;
}

std::string fixed3(double x) {
    char s[32];
    std::snprintf(s, sizeof s, "%.3f", x);
    return s;
}

Json json_of(const std::vector<double>& v) {
    Json a = Json::array();
    for (double x : v) a.push_back(x);
    return a;
}

PaddedBatch pad_batch(std::vector<std::vector<std::int64_t>> seqs) {
    std::int64_t T = 0;
    for (const auto& s : seqs) T = std::max(T, len(s));
    PaddedBatch b;
    std::vector<std::int64_t> flat;
    for (auto& s : seqs) {
        b.lengths.push_back(len(s));
        s.resize(static_cast<std::size_t>(T), data::Vocab::kPad);
        flat.insert(flat.end(), s.begin(), s.end());
    }
    b.ids = from_vector(flat, {len(b.lengths), T});
    return b;
}

std::vector<std::int64_t> greedy_recompute(nn::Transformer& model, std::vector<std::int64_t> seq,
                                           std::int64_t n, std::int64_t stop_token) {
    std::vector<std::int64_t> out;
    while (len(out) < n && len(seq) < model.config().context) {
        const Tensor last = logits_of(model, seq).select(0, -1);  // [V]
        const std::int64_t next = argmax(last, -1).to_vector<std::int64_t>()[0];
        out.push_back(next), seq.push_back(next);
        if (next == stop_token) break;
    }
    return out;
}

Tensor layer_weights(nn::Transformer& model, const Tensor& ids, std::size_t layer, const nn::Mask& extra) {
    return lab::traced_forward(model, ids, extra).layers.at(layer);
}

double max_weight_on_padding(nn::Transformer& model, const Tensor& ids, const nn::Mask& padding,
                             const std::vector<std::int64_t>& lengths) {
    double m = 0;
    const std::int64_t T = ids.size(1);
    for (std::size_t l = 0; l < model.blocks.size(); ++l) {
        const Tensor w = layer_weights(model, ids, l, padding);  // [B, H, T, T]
        for (std::int64_t b = 0; b < len(lengths); ++b)
            if (lengths[static_cast<std::size_t>(b)] < T)
                m = std::max(m, max(w.select(0, b).narrow(-1, lengths[static_cast<std::size_t>(b)],
                                                          T - lengths[static_cast<std::size_t>(b)])).item());
    }
    return m;
}

std::vector<double> mean_entropy_per_head(nn::Transformer& model, const Tensor& ids) {
    std::vector<double> out;
    for (const Tensor& w : lab::traced_forward(model, ids).layers)  // [B, H, T, T]
        for (double e : lab::per_head_mean(lab::row_entropy(w)).to_vector<double>()) out.push_back(e);
    return out;
}

double uniform_causal_entropy(std::int64_t T) {
    double e = 0;
    for (std::int64_t i = 0; i < T; ++i) e += std::log(static_cast<double>(i + 1)) / static_cast<double>(T);
    return e;
}

lab::TrainResult train_variant(const lab::TrainConfig& base, const lab::MaskSpec& v, std::int64_t steps, std::int64_t eval_every,
                              std::function<void(std::int64_t, nn::Transformer&)> on_eval) {
    lab::TrainConfig c = base;  // its seed too, so the causal run with the standard recipe is causal_model's
    c.stop_after = steps, c.eval_every = eval_every, c.on_eval = std::move(on_eval);
    v.apply(c);
    c.progress = lab::TrainConfig::Progress::quiet;
    return lab::train(c);
}

EntropyRun entropy_over_training(const lab::TrainConfig& base, std::int64_t every, const Tensor& probe,
                                 std::function<void(std::int64_t, nn::Transformer&)> also) {
    EntropyRun r;
    r.run = train_variant(base, {lab::MaskSpec::Kind::causal}, base.steps, every, [&](std::int64_t step, nn::Transformer& model) {
        r.steps.push_back(static_cast<double>(step)), r.entropy.push_back(mean_entropy_per_head(model, probe));
        if (also) also(step, model);
    });
    return r;
}

std::int64_t matching_steps(const std::string& csv, const std::vector<lab::TrainPoint>& curve) {
    std::int64_t n = 0;
    for (const lab::TrainPoint& p : curve) {
        char prefix[64];
        std::snprintf(prefix, sizeof prefix, "\n%lld,%.6f,", static_cast<long long>(p.step), p.loss);
        if (csv.find(prefix) == std::string::npos) break;
        ++n;
    }
    return n;
}

std::pair<double, nn::Generation> timed_generation(nn::Transformer& model, const std::vector<std::int64_t>& prompt,
                                                   nn::GenerateOptions o, int repeats) {
    std::vector<double> ms;
    nn::Generation g;
    for (int r = 0; r < repeats; ++r) ms.push_back((g = nn::generate(model, prompt, o)).milliseconds);
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], std::move(g)};
}

KVComparison compare_kv_cache(nn::Transformer& model, const std::vector<std::int64_t>& prompt, int repeats) {
    nn::GenerateOptions o{.max_new_tokens = model.config().context - len(prompt)};
    const auto [ms_cached, cached] = timed_generation(model, prompt, o, repeats);
    o.use_kv_cache = false;
    const auto [ms_full, full] = timed_generation(model, prompt, o, repeats);
    KVComparison c{len(cached.tokens), ms_cached, ms_full, cached.tokens == full.tokens, 0};
    for (std::size_t k = 0; k < cached.logits.size(); ++k)
        c.max_logit_diff = std::max(c.max_logit_diff, max_abs_diff(cached.logits[k], full.logits[k]));
    return c;
}

std::vector<std::pair<std::int64_t, double>> top_probabilities(const Tensor& logits, std::size_t k) {
    const std::vector<double> p = softmax(logits, -1).to_vector<double>();
    std::vector<std::pair<std::int64_t, double>> out;
    for (std::size_t v = 0; v < p.size(); ++v) out.emplace_back(static_cast<std::int64_t>(v), p[v]);
    k = std::min(k, out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(),
                      [](const auto& a, const auto& b) { return a.second > b.second; });
    out.resize(k);
    return out;
}

double final_train_loss(const lab::TrainResult& r, std::size_t n) {
    n = std::min(n, r.curve.size());
    double s = 0;
    for (std::size_t k = r.curve.size() - n; k < r.curve.size(); ++k) s += r.curve[k].loss;
    return s / static_cast<double>(n);
}

}  // namespace attnlab::phase4
