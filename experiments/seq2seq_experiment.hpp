// seq2seq_experiment.hpp — training a Seq2Seq on the reversal task and measuring it:
// the loop phase 5 runs for every variant, so each comparison changes one thing.
//
// Training: batches of training-split sources (data/reversal.hpp), teacher forcing,
// cross-entropy over the target tokens, Adam with warm-up and cosine decay,
// gradient clipping at norm 1. The
// loss is recorded every step; at the steps listed in `checkpoints` the model is
// evaluated on the held-out set, so one run yields the numbers of a shorter run
// too (the comparisons read the main model at the comparison length).
//
// Evaluation: greedy decoding, exact-sequence accuracy (every digit and the <eos>
// right), by source length, and the share of attention mass on the anti-diagonal.
#pragma once
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/reversal.hpp"
#include "nn/optim.hpp"
#include "nn/seq2seq_checkpoint.hpp"
#include "plots/heatmap.hpp"

namespace attnlab::lab {

struct ReversalEval {
    double accuracy = 0;                          // exact-sequence, over the held-out set
    std::map<std::int64_t, double> by_length;     // source length -> accuracy
    double anti_diagonal = 0;                     // mean weight on source position L−1−t at output step t < L
    double zero_fraction = 0;                     // share of weights exactly 0 among the real (unpadded) keys
    double loss = 0;                              // teacher-forced cross-entropy per target token (nats)
};

// Greedy-decodes `sources` (in batches of up to 256) and scores them. The attention
// measurements use teacher forcing, so every row has the same alignment to compare.
ReversalEval evaluate_reversal(const nn::Seq2Seq& model, const std::vector<data::Digits>& sources);

struct ReversalTrainConfig {
    std::int64_t steps = 1000;
    std::int64_t batch_size = 64;
    double lr = 3e-3;             // peak; linear warm-up, then cosine decay to lr / 100
    std::int64_t warmup = 50;
    std::uint64_t data_seed = 1;
    std::vector<std::int64_t> checkpoints;  // steps (1-based, ≤ steps) after which to evaluate
    std::int64_t stop_after = 0;  // > 0: stop after this step, as if interrupted (the schedule stays `steps`')
    // A run to continue (load_seq2seq's training state, the model already holding its weights):
    // training starts after resume->step with its optimizer moments and batch stream.
    const nn::LoadedSeq2Seq* resume = nullptr;
};

struct ReversalTrainResult {
    std::vector<double> loss;                         // one per step
    std::map<std::int64_t, ReversalEval> evals;       // checkpoint step -> evaluation
    double seconds = 0;                               // wall-clock of the whole run
    // Where the run stopped, to save with the model (save_seq2seq's TrainingState).
    std::int64_t first_step = 1, last_step = 0;       // loss[i] is step first_step + i
    std::shared_ptr<nn::Adam> optimizer;
    std::array<std::uint64_t, 4> data_rng{};
};

ReversalTrainResult train_reversal(nn::Seq2Seq& model, const ReversalTrainConfig& config, const std::vector<data::Digits>& held_out,
                           const data::ReversalConfig& task = {});

// Mean of each window of `window` consecutive values, every `every` steps: (step, mean) pairs
// for a readable loss curve (the raw per-batch loss is noisy). Steps are 1-based.
struct Curve {
    std::vector<double> step, value;
};
Curve smooth(const std::vector<double>& values, std::size_t window, std::size_t every);

// A reversal model in a checkpoint (nn/seq2seq_checkpoint.hpp) with the task it learned:
// the source lengths are kept in the metadata ("min_len", "max_len"), beside anything else
// the caller adds (its run settings).
struct ReversalModel {
    std::unique_ptr<nn::Seq2Seq> model;
    data::ReversalConfig task;
    std::map<std::string, std::string> extra;  // the metadata besides the model's own and the task
};
inline constexpr std::int64_t kLongestReversal = 30;  // the longest source anything here trains on

void save_reversal_model(const std::string& path, const nn::Seq2Seq& model, const data::ReversalConfig& task,
                         std::map<std::string, std::string> extra = {}, const nn::TrainingState* training = nullptr);
// IOError naming the file if it is not a seq2seq checkpoint, is corrupt (load_seq2seq's
// checks), has another vocabulary than the task's, or lengths outside [1, kLongestReversal].
ReversalModel load_reversal_model(const std::string& path);
// The same checks on a file already read (`path` names it in errors): takes `loaded`'s model
// and metadata, and leaves its training state for a resumed run (seq2seq train --resume).
ReversalModel reversal_model(nn::LoadedSeq2Seq& loaded, const std::string& path);

// One source decoded greedily (at most L + 1 steps), and where each output step looked.
struct ReversalDecode {
    data::Digits source, output;  // output: the tokens emitted, up to and including <eos>
    bool is_reversal = false;     // output is the source backwards, then <eos>
    Tensor weights;               // [output steps, L] (undefined without attention)
};
ReversalDecode decode_reversal(const nn::Seq2Seq& model, const data::Digits& source);
// "source ..., output ..., reversal yes|no" and the weights, as `seq2seq show` and phase 5 print them.
void print_decode(const ReversalDecode& d);
// The weights as a heatmap: rows the emitted tokens (y1=5 ...), columns the source digits (x1=3 ...).
plots::Figure alignment_heatmap(const ReversalDecode& d);
// "3 1 4 1 5" (spaces or commas between digits) -> digits; returns why not ("" when fine).
std::string parse_digits(const std::string& text, data::Digits& out);

// Runs the jobs on up to `threads` threads at once. Each job must own everything it
// touches (its model, its generators); autograd's recording switch is per thread.
void run_concurrently(const std::vector<std::function<void()>>& jobs, int threads);

}  // namespace attnlab::lab
