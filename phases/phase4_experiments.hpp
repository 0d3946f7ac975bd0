// phase4_experiments.hpp — the measurements behind phase 4 (causal masking), kept
// out of phases/phase4_causal.cpp so that the program reads as the course's narrative.
// tests/phases/test_phase4.cpp runs the same functions on small models.
//
//   with_mask, check_causality, logits_of, max_abs_diff   analyses/causality.hpp, shared with tinygpt heads
//   greedy_recompute     greedy decoding by re-running the whole sequence each step,
//                        so it works for bidirectional models too (nn::generate refuses them)
//   layer_weights        one layer's attention weights for one sequence, per head
//   mean_entropy_per_head   the entropy experiment (head pruning: analyses/head_pruning.hpp)
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
#include "analyses/attention_stats.hpp"
#include "analyses/causality.hpp"
#include "analyses/head_pruning.hpp"
#include "nn/generate.hpp"
#include "training/mask_spec.hpp"
#include "phases/phase_common.hpp"
#include "training/train.hpp"
#include "io/json.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

namespace attnlab::phase4 {

using lab::head_names;
using lab::logits_of;
using lab::max_abs_diff;
using lab::with_mask;

inline std::int64_t len(const auto& v) { return static_cast<std::int64_t>(v.size()); }
Tensor row(const std::vector<std::int64_t>& ids);


// "<bos> w1 w2 ...": a sentence as the models saw sentences in training, and back to text.
std::vector<std::int64_t> with_bos(const std::string& text);
// The tokens as text: words joined by spaces, characters (sep "") as they are.
std::string text_of(const std::vector<std::int64_t>& ids, const std::vector<std::string>& vocab = lab::grammar_vocab(),
                    const std::string& sep = " ");

std::string fixed3(double x);
Json json_of(const std::vector<double>& v);

// Sequences of different lengths as one batch [B, T_max], <pad> after each, and the lengths.
struct PaddedBatch {
    Tensor ids;                         // int64 [B, T_max]
    std::vector<std::int64_t> lengths;  // real tokens per row
};
PaddedBatch pad_batch(std::vector<std::vector<std::int64_t>> seqs);

// Greedy decoding that re-runs the whole sequence at every step and takes the last
// position's argmax. For a causal model this is nn::generate without a KV cache;
// for a bidirectional one (a causal model with its mask switched off) it is the only
// way to decode at all. Stops after n tokens or at stop_token (included).
std::vector<std::int64_t> greedy_recompute(nn::Transformer& model, std::vector<std::int64_t> seq,
                                           std::int64_t n, std::int64_t stop_token);

// Layer `layer`'s attention weights for a batch: [B, H, T, T]. `extra` is ANDed
// with the model's own mask (padding).
Tensor layer_weights(nn::Transformer& model, const Tensor& ids, std::size_t layer, const nn::Mask& extra = {});

// The largest weight any layer and head gives to a padded key (key j >= lengths[b] of
// sequence b) when `padding` is applied: exactly 0 if the mask works.
double max_weight_on_padding(nn::Transformer& model, const Tensor& ids, const nn::Mask& padding,
                             const std::vector<std::int64_t>& lengths);

// Mean attention entropy (nats) of every head over the queries of a batch: L·H values,
// layer-major (L1 H1, L1 H2, ..., L2 H1, ...).
std::vector<double> mean_entropy_per_head(nn::Transformer& model, const Tensor& ids);

// Mean entropy of uniform causal attention over T queries: query i spreads over i + 1
// keys, ln(i + 1) nats. The reference line for attention that has learned nothing.
double uniform_causal_entropy(std::int64_t T);

// One of the compared TinyGPTs: the causal_model recipe (lab::standard_config) with
// its mask changed, stopped after `steps` of its schedule. The causal variant is then
// exactly the first `steps` steps of causal_model's own training run (same seed,
// same batches), which the program checks against the checkpoint's loss curve.
// `base` (causal_model's recipe, or the loaded model's architecture) with the mask `v`
// (training/mask_spec.hpp: its name() is what the printout and metrics.json call it).
lab::TrainResult train_variant(const lab::TrainConfig& base, const lab::MaskSpec& v, std::int64_t steps, std::int64_t eval_every,
                              std::function<void(std::int64_t, nn::Transformer&)> on_eval = {});

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
EntropyRun entropy_over_training(const lab::TrainConfig& base, std::int64_t every, const Tensor& probe,
                                 std::function<void(std::int64_t, nn::Transformer&)> also = {});

// How many leading steps of `curve` appear, with the same training loss to the CSV's
// six decimals, in a loss CSV written by lab::train ("step,loss,val_loss" rows).
std::int64_t matching_steps(const std::string& csv, const std::vector<lab::TrainPoint>& curve);

// Median wall time (ms) of `repeats` generations, and the last generation itself.
std::pair<double, nn::Generation> timed_generation(nn::Transformer& model, const std::vector<std::int64_t>& prompt,
                                                   nn::GenerateOptions o, int repeats);

// The same greedy generation with and without the KV cache until the context is full:
// median times of `repeats` runs, and whether the two agree.
struct KVComparison {
    std::int64_t new_tokens = 0;
    double ms_cached = 0, ms_recomputed = 0;
    bool same_tokens = false;
    double max_logit_diff = 0;  // over every step's [V] logits
};
KVComparison compare_kv_cache(nn::Transformer& model, const std::vector<std::int64_t>& prompt, int repeats);

// The k most likely next tokens under softmax(logits [V]), most likely first.
std::vector<std::pair<std::int64_t, double>> top_probabilities(const Tensor& logits, std::size_t k);

// Mean training loss over the last n steps of a run (one batch is noisy).
double final_train_loss(const lab::TrainResult& r, std::size_t n = 20);


}  // namespace attnlab::phase4
