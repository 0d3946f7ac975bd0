// phase4_experiments.hpp — the measurements behind phase 4 (causal masking), kept
// out of phases/phase4_causal.cpp so that the program reads as the seed's narrative.
// tests/phases/test_phase4.cpp runs the same functions on small models.
//
//   with_mask            the same weights under another attention mask (copied by name)
//   check_causality      change / shuffle the tokens after i; did logits at ≤ i move?
//   greedy_recompute     greedy decoding by re-running the whole sequence each step,
//                        so it works for bidirectional models too (nn::generate refuses them)
//   layer_weights        one layer's attention weights for one sequence, per head
//   mean_entropy_per_head, pruning_losses, cumulative_pruning_losses   the entropy and head-pruning experiments
//   train_variant        a TinyGPT trained with another mask, for the comparisons
//   compare_kv_cache     one generation with and without the KV cache: times, agreement
//   with_bos, text_of, fixed3, json_of, pad_batch, top_probabilities   conveniences for the printout
//
// Shapes: B batch, T sequence length, H heads, L layers, V vocabulary.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograd/node.hpp"
#include "data/grammar.hpp"
#include "data/tokenizer.hpp"
#include "lab/attention_stats.hpp"
#include "nn/generate.hpp"
#include "phases/phase_common.hpp"
#include "lab/train.hpp"
#include "tensor/json.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

namespace attnlab::phase4 {

inline std::int64_t len(const auto& v) { return static_cast<std::int64_t>(v.size()); }
inline Tensor row(const std::vector<std::int64_t>& ids) { return from_vector(ids, {1, len(ids)}); }  // [1, T]

// A new Transformer with `model`'s weights and another mask: causal or not, and
// optionally local (window) or strided. The parameters are copied by name, so the
// copy shares nothing with the original. This is how "train with the mask, test
// without it" switches a trained model's mask off.
inline std::unique_ptr<nn::Transformer> with_mask(const nn::Transformer& model, bool causal, std::int64_t window = 0,
                                                  std::int64_t stride = 0) {
    nn::TransformerConfig c = model.config();
    c.causal = causal, c.window = window, c.stride = stride;
    auto out = std::make_unique<nn::Transformer>(c);
    const auto src = model.named_parameters();
    const auto dst = out->named_parameters();
    NoGradGuard no_grad;
    for (std::size_t i = 0; i < dst.size(); ++i) {
        if (src[i].name != dst[i].name) throw ValueError("with_mask: parameter " + src[i].name + " vs " + dst[i].name);
        copy_(dst[i].tensor, src[i].tensor);
    }
    return out;
}


// "<bos> w1 w2 ...": a sentence as the models saw sentences in training, and back to text.
inline std::vector<std::int64_t> with_bos(const std::string& text) {
    std::vector<std::int64_t> ids{data::Vocab::kBos};
    for (std::int64_t id : data::WordTokenizer(data::toy_grammar().vocab()).encode(text)) ids.push_back(id);
    return ids;
}
// The tokens as text: words joined by spaces, characters (sep "") as they are.
inline std::string text_of(const std::vector<std::int64_t>& ids, const std::vector<std::string>& vocab = lab::grammar_vocab(),
                           const std::string& sep = " ") {
    std::string s;
    for (std::int64_t id : ids) s += (s.empty() ? "" : sep) + vocab.at(static_cast<std::size_t>(id));
    return s;
}

inline std::string fixed3(double x) {
    char s[32];
    std::snprintf(s, sizeof s, "%.3f", x);
    return s;
}
inline Json json_of(const std::vector<double>& v) {
    Json a = Json::array();
    for (double x : v) a.push_back(x);
    return a;
}

// Sequences of different lengths as one batch [B, T_max], <pad> after each, and the lengths.
struct PaddedBatch {
    Tensor ids;                         // int64 [B, T_max]
    std::vector<std::int64_t> lengths;  // real tokens per row
};
inline PaddedBatch pad_batch(std::vector<std::vector<std::int64_t>> seqs) {
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

// Logits [T, V] of one sequence, without recording a graph.
inline Tensor logits_of(nn::Transformer& model, const std::vector<std::int64_t>& ids) {
    NoGradGuard no_grad;
    return model.forward(row(ids)).select(0, 0);
}

// Largest |a − b| over two tensors of one shape; 0 means equal (for floats: bit-equal
// up to the sign of zero, and the logits here never hold NaN).
inline double max_abs_diff(const Tensor& a, const Tensor& b) {
    const auto x = a.to_vector<double>(), y = b.to_vector<double>();
    double m = 0;
    for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
    return m;
}

// Seed experiment 1, "verify the causal property". For each position i that has
// tokens after it: replace every later token by a different random word, then
// (separately) shuffle the later tokens, and compare the logits at positions 0..i
// (the "prefix") and after i with those of the original sequence.
struct CausalityRow {
    std::int64_t i;
    double prefix_changed, prefix_shuffled;  // max |Δ logits| at positions ≤ i: 0 for a causal model
    double after_changed;                    // max |Δ logits| at positions > i: the change did reach the model
};

inline std::vector<CausalityRow> check_causality(nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                                 std::uint64_t seed = 4) {
    Generator gen(seed);
    const std::int64_t T = len(ids), V = model.config().vocab_size, first_word = 4;  // ids < 4 are <pad> <bos> <eos> [MASK]
    const Tensor reference = logits_of(model, ids);  // [T, V]
    std::vector<CausalityRow> rows;
    for (std::int64_t i = 0; i + 1 < T; ++i) {
        std::vector<std::int64_t> changed = ids, shuffled = ids;
        for (std::int64_t t = i + 1; t < T; ++t)  // a different word at every later position
            changed[t] = first_word + static_cast<std::int64_t>(
                                          (static_cast<std::uint64_t>(ids[t] - first_word) + 1 +
                                           gen.below(static_cast<std::uint64_t>(V - first_word - 1))) %
                                          static_cast<std::uint64_t>(V - first_word));
        for (std::int64_t t = T - 1; t > i + 1; --t)  // Fisher–Yates over positions i+1 .. T−1
            std::swap(shuffled[t], shuffled[i + 1 + static_cast<std::int64_t>(gen.below(static_cast<std::uint64_t>(t - i)))]);
        const Tensor a = logits_of(model, changed), b = logits_of(model, shuffled);
        rows.push_back({i, max_abs_diff(a.narrow(0, 0, i + 1), reference.narrow(0, 0, i + 1)),
                        max_abs_diff(b.narrow(0, 0, i + 1), reference.narrow(0, 0, i + 1)),
                        max_abs_diff(a.narrow(0, i + 1, T - i - 1), reference.narrow(0, i + 1, T - i - 1))});
    }
    return rows;
}

// Greedy decoding that re-runs the whole sequence at every step and takes the last
// position's argmax. For a causal model this is nn::generate without a KV cache;
// for a bidirectional one (a causal model with its mask switched off) it is the only
// way to decode at all. Stops after n tokens or at stop_token (included).
inline std::vector<std::int64_t> greedy_recompute(nn::Transformer& model, std::vector<std::int64_t> seq,
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

// Layer `layer`'s attention weights for a batch: [B, H, T, T]. `extra` is ANDed
// with the model's own mask (padding).
inline Tensor layer_weights(nn::Transformer& model, const Tensor& ids, std::size_t layer, const nn::Mask& extra = {}) {
    NoGradGuard no_grad;
    model.trace().clear(), model.trace().enabled = true;
    model.forward(ids, extra);
    Tensor w = model.trace().layers.at(layer);
    model.trace().enabled = false, model.trace().clear();
    return w;
}

// The largest weight any layer and head gives to a padded key (key j >= lengths[b] of
// sequence b) when `padding` is applied: exactly 0 if the mask works.
inline double max_weight_on_padding(nn::Transformer& model, const Tensor& ids, const nn::Mask& padding,
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

// Mean attention entropy (nats) of every head over the queries of a batch: L·H values,
// layer-major (L1 H1, L1 H2, ..., L2 H1, ...).
inline std::vector<double> mean_entropy_per_head(nn::Transformer& model, const Tensor& ids) {
    NoGradGuard no_grad;
    model.trace().clear(), model.trace().enabled = true;
    model.forward(ids);
    std::vector<double> out;
    for (const Tensor& w : model.trace().layers)  // [B, H, T, T]
        for (double e : lab::per_head_mean(lab::row_entropy(w)).to_vector<double>()) out.push_back(e);
    model.trace().enabled = false, model.trace().clear();
    return out;
}

// Mean entropy of uniform causal attention over T queries: query i spreads over i + 1
// keys, ln(i + 1) nats. The reference line for attention that has learned nothing.
inline double uniform_causal_entropy(std::int64_t T) {
    double e = 0;
    for (std::int64_t i = 0; i < T; ++i) e += std::log(static_cast<double>(i + 1)) / static_cast<double>(T);
    return e;
}

// Seed "Experiments to Try" 1: the validation loss with one head switched off, for
// every head in turn (layer-major, as above). The model is left with all heads on.
inline std::vector<double> pruning_losses(nn::Transformer& model) {
    std::vector<double> out;
    const std::int64_t H = model.config().n_heads;
    for (auto& block : model.blocks) {
        for (std::int64_t h = 0; h < H; ++h) {
            std::vector<bool> on(static_cast<std::size_t>(H), true);
            on[static_cast<std::size_t>(h)] = false;
            block->attn.set_head_mask(on);
            out.push_back(lab::evaluate(model, lab::Task::causal).loss);
        }
        block->attn.set_head_mask(std::vector<bool>(static_cast<std::size_t>(H), true));
    }
    return out;
}

// The validation loss after switching off the heads of `order` (indices as head_names
// gives them, layer-major) one after another, each staying off: out[k] has heads
// order[0..k] off. The model is left with all heads on.
inline std::vector<double> cumulative_pruning_losses(nn::Transformer& model, const std::vector<std::size_t>& order) {
    const auto H = static_cast<std::size_t>(model.config().n_heads);
    std::vector<std::vector<bool>> on(model.blocks.size(), std::vector<bool>(H, true));  // [layer][head]
    std::vector<double> out;
    for (std::size_t index : order) {
        on[index / H][index % H] = false;
        model.blocks[index / H]->attn.set_head_mask(on[index / H]);
        out.push_back(lab::evaluate(model, lab::Task::causal).loss);
    }
    for (auto& block : model.blocks) block->attn.set_head_mask(std::vector<bool>(H, true));
    return out;
}

// One of the compared TinyGPTs: the causal_model recipe (lab::standard_config) with
// its mask changed, stopped after `steps` of its schedule. The causal variant is then
// exactly the first `steps` steps of causal_model's own training run (same seed,
// same batches), which the program checks against the checkpoint's loss curve.
struct Variant {
    std::string name;
    bool causal = true;
    std::int64_t window = 0, stride = 0;
};

// A mask as the command line writes it: none | local:W | strided:S (both also causal). Its
// name is what the printout and metrics.json call it. nullopt if `spec` is none of these.
// (The full causal mask is every comparison's reference, always trained.)
inline std::optional<Variant> parse_variant(const std::string& spec) {
    if (spec == "none") return Variant{"no mask", false};
    for (const std::string kind : {"local:", "strided:"}) {
        if (!spec.starts_with(kind)) continue;
        const std::string n = spec.substr(kind.size());
        if (n.empty() || n.size() > 4 || n.find_first_not_of("0123456789") != std::string::npos || std::stoll(n) < 1)
            return std::nullopt;
        const std::int64_t w = std::stoll(n);
        return kind == "local:" ? Variant{"local +-" + n, true, w, 0} : Variant{"strided " + n, true, 0, w};
    }
    return std::nullopt;
}

// `base` (causal_model's recipe, or the loaded model's architecture) with the variant's mask.
inline lab::TrainResult train_variant(const lab::TrainConfig& base, const Variant& v, std::int64_t steps, std::int64_t eval_every,
                                     std::function<void(std::int64_t, nn::Transformer&)> on_eval = {}) {
    lab::TrainConfig c = base;  // its seed too, so the causal run with the standard recipe is causal_model's
    c.stop_after = steps, c.eval_every = eval_every, c.on_eval = std::move(on_eval);
    c.causal_mask = v.causal, c.window = v.window, c.stride = v.stride;
    c.progress = lab::TrainConfig::Progress::quiet;
    return lab::train(c);
}

// The attention entropy of every head (head_names order, on `probe`) over a whole training
// run of `base`, at step 0 and every `every` steps (and the last): the run is the recipe's
// own, so with causal_model's recipe its last record is the checkpoint's entropy. `also`
// (e.g. lab::recording, a sentence's attention) runs at the same evaluations, so one replay
// of the run serves every view of it; observing changes nothing in the run.
struct EntropyRun {
    std::vector<double> steps;
    std::vector<std::vector<double>> entropy;  // [record][head]
    lab::TrainResult run;                      // the replayed run itself: its loss curve, its model
};
inline EntropyRun entropy_over_training(const lab::TrainConfig& base, std::int64_t every, const Tensor& probe,
                                        std::function<void(std::int64_t, nn::Transformer&)> also = {}) {
    EntropyRun r;
    r.run = train_variant(base, {"causal"}, base.steps, every, [&](std::int64_t step, nn::Transformer& model) {
        r.steps.push_back(static_cast<double>(step)), r.entropy.push_back(mean_entropy_per_head(model, probe));
        if (also) also(step, model);
    });
    return r;
}

// How many leading steps of `curve` appear, with the same training loss to the CSV's
// six decimals, in a loss CSV written by lab::train ("step,loss,val_loss" rows).
inline std::int64_t matching_steps(const std::string& csv, const std::vector<lab::TrainPoint>& curve) {
    std::int64_t n = 0;
    for (const lab::TrainPoint& p : curve) {
        char prefix[64];
        std::snprintf(prefix, sizeof prefix, "\n%lld,%.6f,", static_cast<long long>(p.step), p.loss);
        if (csv.find(prefix) == std::string::npos) break;
        ++n;
    }
    return n;
}

// Median wall time (ms) of `repeats` generations, and the last generation itself.
inline std::pair<double, nn::Generation> timed_generation(nn::Transformer& model, const std::vector<std::int64_t>& prompt,
                                                          nn::GenerateOptions o, int repeats) {
    std::vector<double> ms;
    nn::Generation g;
    for (int r = 0; r < repeats; ++r) ms.push_back((g = nn::generate(model, prompt, o)).milliseconds);
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], std::move(g)};
}

// The same greedy generation with and without the KV cache until the context is full:
// median times of `repeats` runs, and whether the two agree.
struct KVComparison {
    std::int64_t new_tokens = 0;
    double ms_cached = 0, ms_recomputed = 0;
    bool same_tokens = false;
    double max_logit_diff = 0;  // over every step's [V] logits
};
inline KVComparison compare_kv_cache(nn::Transformer& model, const std::vector<std::int64_t>& prompt, int repeats) {
    nn::GenerateOptions o{.max_new_tokens = model.config().context - len(prompt)};
    const auto [ms_cached, cached] = timed_generation(model, prompt, o, repeats);
    o.use_kv_cache = false;
    const auto [ms_full, full] = timed_generation(model, prompt, o, repeats);
    KVComparison c{len(cached.tokens), ms_cached, ms_full, cached.tokens == full.tokens, 0};
    for (std::size_t k = 0; k < cached.logits.size(); ++k)
        c.max_logit_diff = std::max(c.max_logit_diff, max_abs_diff(cached.logits[k], full.logits[k]));
    return c;
}

// The k most likely next tokens under softmax(logits [V]), most likely first.
inline std::vector<std::pair<std::int64_t, double>> top_probabilities(const Tensor& logits, std::size_t k) {
    const std::vector<double> p = softmax(logits, -1).to_vector<double>();
    std::vector<std::pair<std::int64_t, double>> out;
    for (std::size_t v = 0; v < p.size(); ++v) out.emplace_back(static_cast<std::int64_t>(v), p[v]);
    k = std::min(k, out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(),
                      [](const auto& a, const auto& b) { return a.second > b.second; });
    out.resize(k);
    return out;
}

// Mean training loss over the last n steps of a run (one batch is noisy).
inline double final_train_loss(const lab::TrainResult& r, std::size_t n = 20) {
    n = std::min(n, r.curve.size());
    double s = 0;
    for (std::size_t k = r.curve.size() - n; k < r.curve.size(); ++k) s += r.curve[k].loss;
    return s / static_cast<double>(n);
}

// "L1 H1", "L1 H2", ...: head names in the layer-major order used above.
inline std::vector<std::string> head_names(const nn::Transformer& model) {
    std::vector<std::string> out;
    for (std::int64_t l = 1; l <= model.config().n_layers; ++l)
        for (std::int64_t h = 1; h <= model.config().n_heads; ++h)
            out.push_back("L" + std::to_string(l) + " H" + std::to_string(h));
    return out;
}

}  // namespace attnlab::phase4
