// train.hpp — training the toy transformers: one loop shared by `tinygpt train`,
// `make train` and every phase program that needs a model.
//
// Three tasks:
//   causal       next-token prediction on the toy grammar (TinyGPT)
//   single-head  masked-token prediction on the grammar, bidirectional, 1 head
//   multi-head   the same with n_heads heads (4 by default)
// and, with a corpus file, next-token prediction on its characters (kind "char").
//
// On the grammar every validation loss is printed beside its exact Bayes floor
// (data/lm_batches.hpp), the lowest loss any model can reach on those tokens.
// Same config and seed => the same loss curve, bit for bit; a run resumed from a
// checkpoint continues exactly as if it had never stopped.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nn/checkpoint.hpp"
#include "nn/transformer.hpp"

namespace attnlab::nn {

struct TrainConfig {
    std::string model = "causal";  // causal | single-head | multi-head
    std::string corpus;            // a UTF-8 text file: character-level LM instead of the grammar
    std::int64_t steps = 1500;     // the length of the run (the learning-rate schedule spans it)
    std::int64_t stop_after = 0;   // > 0: stop at this step, as an interrupted run would
    std::int64_t d_model = 64;
    std::int64_t n_heads = 4;      // forced to 1 for single-head
    std::int64_t n_layers = 2;
    std::int64_t context = 32;     // T: tokens per training row
    std::int64_t batch = 16;       // B
    double lr = 3e-3;              // peak, after warm-up; cosine decay to lr/10
    std::int64_t warmup = 100;
    double weight_decay = 0.01;
    double clip = 1.0;             // global gradient-norm limit
    std::uint64_t seed = 0;
    bool causal_mask = true;       // causal task only: false trains without the mask (it cheats)
    std::int64_t window = 0, stride = 0;  // custom attention masks (see TransformerConfig)
    double mask_prob = 0.15;       // masked-token task: share of words hidden
    std::int64_t eval_every = 100;
    std::int64_t val_batches = 8;
    std::string out;               // checkpoint path ("" = don't save), rewritten at every evaluation
                                   // so a killed run can resume; the loss CSV goes beside it
    std::string resume;            // checkpoint to continue from (its hyper-parameters win)
    enum class Progress { automatic, plain, quiet } progress = Progress::automatic;
    // Called after each evaluation (and at step 0), e.g. to record attention entropy.
    std::function<void(std::int64_t step, Transformer& model)> on_eval;
};

struct TrainPoint {
    std::int64_t step;
    double loss;      // training loss of that step's batch
    double val_loss;  // NaN where no evaluation ran
};

struct Evaluation {
    double loss = 0;      // mean over predicted tokens
    double accuracy = 0;  // argmax = target, over predicted tokens
    double floor = 0;     // exact Bayes floor on the same tokens (NaN for a char corpus)
};

struct TrainResult {
    std::vector<TrainPoint> curve;
    Evaluation final_eval;
    double seconds = 0, tokens_per_second = 0;
    std::unique_ptr<Transformer> model;
    std::vector<std::string> vocab;
    std::string kind;
};

TrainResult train(const TrainConfig& config);

// Validation loss / accuracy / floor of a trained grammar model on the fixed
// validation batches of its task (T = the model's context).
Evaluation evaluate(Transformer& model, const std::string& kind, std::int64_t batch = 16, std::int64_t n_batches = 8,
                    double mask_prob = 0.15);

// The three models of `make train` (out/checkpoints/<name>.safetensors):
//   causal_model       TinyGPT, d_model 64, 4 heads, 2 layers, next-token prediction
//   single_head_model  bidirectional, 1 head, masked-token prediction
//   multi_head_model   bidirectional, 4 heads, masked-token prediction
// standard_config gives the exact recipe; tinygpt train uses it for its defaults.
inline const std::vector<std::string> kStandardModels{"causal_model", "single_head_model", "multi_head_model"};
TrainConfig standard_config(const std::string& name);

// Loads dir/<name>.safetensors, training it first (with standard_config) if it is
// missing — so a phase program works from a clean checkout.
LoadedCheckpoint load_or_train(const std::string& name, const std::string& dir = "out/checkpoints");

// The grammar's vocabulary as token strings (id -> text).
std::vector<std::string> grammar_vocab();

// The loss-curve CSV written beside a checkpoint: "x.safetensors" -> "x.loss.csv".
std::string loss_csv_path(const std::string& checkpoint);

}  // namespace attnlab::nn
