// train.hpp — training the toy transformers: one loop shared by `tinygpt train`,
// `make train` and every phase program that needs a model.
//
// Four tasks (training/task.hpp): causal next-token prediction on the toy grammar (TinyGPT),
// masked-token prediction on it with one head or several, and next-character prediction
// on a corpus file. On the grammar every validation loss is printed beside its exact
// Bayes floor (data/lm_batches.hpp), the lowest loss any model can reach on those tokens.
//
// What a run promises:
//   - Same config and seed => the same loss curve, bit for bit.
//   - The checkpoint at `out` holds the whole run: the model, the optimizer, the data
//     stream's state, every setting of TrainConfig (training/run_config.hpp), the identity
//     of the data (a hash of the corpus and its vocabulary), the loss curve up to its
//     step, and each head's mean attention entropy on the first validation batch at step 0
//     and every evaluation ("entropy_curve", float64 [rows, 1 + L·H], the step first;
//     `tinygpt show` draws it). With keep = last it is rewritten (atomically) at every evaluation; with keep =
//     best only when the validation loss is the lowest so far, and its metadata says so
//     ("kept": "best", "best_step"). The loss CSV beside it, and its figure (x.loss.svg and
//     x.loss.png: training/loss_figure.hpp), are written from the curve after the checkpoint,
//     and rewritten from the checkpoint when a run resumes, so a kill between them cannot
//     leave them behind their checkpoint for long. They follow io/fileio's output rule as
//     `out` does: another kind of file there is refused unless `overwrite`.
//   - `out` is never another run's file: an existing file there must be a checkpoint of
//     this very run (the same task, settings, steps and data; a resumed run may have fewer
//     steps), or `overwrite` must be set. While the run writes it, it holds an OutputLock
//     (io/fileio.hpp) on it: a second trainer on the same `out` stops at once, naming this one.
//   - Resuming (`resume`) continues exactly as if the run had never stopped. Only `steps`
//     may differ from the checkpoint (to extend the run; it must exceed the checkpoint's
//     step); any other difference, or other data, is a ValueError naming both values.
//   - Divergence stops the run with TrainingDiverged naming the step: a non-finite loss,
//     gradient or weight (named), or a validation loss above both twice the best one and
//     ln V (worse than guessing uniformly). The checkpoint then left at `out` is the one of
//     the best validation step seen (written from an in-memory copy if the last evaluation
//     was not the best), recorded as such; never a diverged one.
//   - A model outside nn::ModelLimits is refused before anything is allocated.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "training/task.hpp"
#include "nn/checkpoint.hpp"
#include "nn/transformer.hpp"
#include "tensor/error.hpp"

namespace attnlab::lab {

struct DataIdentity;  // training/run_config.hpp

struct TrainConfig {
    Task task = Task::causal;
    std::string corpus;            // a UTF-8 text file to train on instead of the grammar: its characters
                                   // (Task::chars) or, with word_tokens, its words (any other task)
    bool word_tokens = false;      // corpus only: one token per whitespace-separated word (data/corpus.hpp)
    bool lowercase = false;        // word tokens only: A-Z read as a-z, in the corpus and in every prompt
    bool split_punctuation = false;  // word tokens only: punctuation marks are words of their own
                                   // (both: data::WordRules, recorded in the checkpoint)
    std::int64_t steps = 1500;     // the length of the run (the learning-rate schedule spans it)
    std::int64_t stop_after = 0;   // > 0: stop at this step, as an interrupted run would
    std::int64_t d_model = 64;
    std::int64_t n_heads = 4;      // must be 1 for Task::single_head and Task::qkv_head
    std::int64_t n_layers = 2;
    std::int64_t context = 32;     // T: tokens per training row
    std::int64_t batch = 16;       // B
    std::int64_t shards = 1;       // > 1: the batch's rows split into this many runs, one model replica
                                   // each, trained at once on up to this many threads (nn/data_parallel.hpp;
                                   // bench/ab.sh times it); the same bits at any thread count
    double lr = 3e-3;              // peak, after warm-up; cosine decay to lr × min_lr_ratio
    std::int64_t warmup = 100;
    double min_lr_ratio = 0.1;     // where the cosine ends, as a share of the peak (nanoGPT: 1e-4 of 1e-3)
    double beta1 = 0.9, beta2 = 0.999;  // AdamW's moment decay rates (nanoGPT's small recipe: 0.9, 0.99)
    double weight_decay = 0.01;
    double clip = 1.0;             // global gradient-norm limit
    std::uint64_t seed = 0;
    bool causal_mask = true;       // next-token tasks only: false trains without the mask (it cheats)
    std::int64_t window = 0, stride = 0;  // custom attention masks (see TransformerConfig)
    bool scaled = true;            // false: unscaled scores q·k (no 1/√d_k)
    nn::PositionScheme positions = nn::PositionScheme::learned;  // learned table, sinusoidal or none
    nn::Normalizer normalizer = nn::Normalizer::softmax();        // softmax or sparsemax
    double dropout = 0;            // on attention weights and residual branches, training steps only;
                                   // it draws from the data stream, so a resumed run drops the same units
    double mask_prob = 0.15;       // masked-token tasks: share of words hidden
    std::int64_t eval_every = 100;
    std::int64_t val_batches = 8;
    std::string out;               // checkpoint path ("" = don't save), rewritten at evaluations (see
                                   // keep) so a killed run can resume; the loss CSV goes beside it
    std::string resume;            // checkpoint to continue from (see above: only steps may differ)
    enum class Keep { last, best } keep = Keep::last;  // which evaluation's model `out` holds
    bool overwrite = false;        // replace whatever file is at `out` (another run's checkpoint included)
    enum class Progress { automatic, plain, quiet } progress = Progress::automatic;
    // Called after each evaluation (and at step 0), e.g. to record attention entropy.
    std::function<void(std::int64_t step, nn::Transformer& model)> on_eval;
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
    std::vector<TrainPoint> curve;  // this run's steps (a resumed run: from the checkpoint's step on)
    Evaluation final_eval;
    double seconds = 0, tokens_per_second = 0;
    std::unique_ptr<nn::Transformer> model;
    std::vector<std::string> vocab;
    Task task = Task::causal;
    std::int64_t start_step = 0;    // > 0 when resumed
};

// A loss, gradient or weight became NaN or ±inf, or the validation loss ran away: training
// stopped, and `out` holds the best validation step seen.
struct TrainingDiverged : ValueError {
    using ValueError::ValueError;
};

// Throws ValueError naming the setting and its value if c cannot be trained: a value out
// of its range (training/run_config.hpp), a model outside nn::ModelLimits, a corpus without
// Task::chars or the reverse. train() calls it first; tinygpt calls it to reject flags.
void validate(const TrainConfig& c);

TrainResult train(const TrainConfig& config);

// Validation loss / accuracy / floor of a trained grammar model on the fixed
// validation batches of its task (T = the model's context).
Evaluation evaluate(nn::Transformer& model, Task task, std::int64_t batch = 16, std::int64_t n_batches = 8,
                    double mask_prob = 0.15);

// The models of `make train` (out/checkpoints/<info(task).model_name>.safetensors):
//   causal       TinyGPT, d_model 64, 4 heads, 2 layers, next-token prediction
//   single_head  bidirectional, 1 head, masked-token prediction
//   multi_head   bidirectional, 4 heads, masked-token prediction
// standard_config gives the exact recipe; tinygpt train uses it for its defaults.
TrainConfig standard_config(Task task);

// Loads dir/<model_name>.safetensors, training it first (with standard_config) if it is
// missing — so a phase program works from a clean checkout.
nn::LoadedCheckpoint load_or_train(Task task, const std::string& dir = "out/checkpoints");

// The grammar's vocabulary as token strings (id -> text).
std::vector<std::string> grammar_vocab();

// The loss-curve CSV written beside a checkpoint: "x.safetensors" -> "x.loss.csv".
std::string loss_csv_path(const std::string& checkpoint);

// Throws ValueError if `out` holds a file this run may not replace: anything but an attnlab
// checkpoint of the same run (task, settings, data identity; steps too unless `resuming`),
// unless c.overwrite. The message names the file and the first setting that differs.
void check_out_is_this_run(const TrainConfig& c, const DataIdentity& data, bool resuming);

}  // namespace attnlab::lab
