// architecture_comparison.hpp — attention vs RNN vs CNN vs fully connected on one long-range
// task (the usual comparison: maximum path length, parallelism, content-based routing).
//
// The task, recall k back: positions 1 … T−1 hold random symbols of a vocabulary of V
// (x_1 … x_{T−1}); position T holds a query token "?k" naming a distance k ∈ [1, T−1];
// the answer, read out at position T, is x_{T−k}. k is drawn per sequence, so one model
// must route by content (the query says where to look). Chance accuracy is exactly 1/V:
// x_{T−k} is uniform and independent of everything else in the sequence.
//
// Four models, each embed → mix positions → Linear(·, V) at position T:
//   gru        a GRU run over the sequence: its last state            (path length T − t)
//   cnn        causal Conv1d layers, kernel 3, dilations 1, 2, 4, ReLU: reads only the
//              receptive_field() positions ending at T, so k ≥ that is out of its reach
//   fc         a hidden layer on the flattened sequence of (narrower) embeddings
//   attention  learned positional embeddings + one MultiHeadAttention layer whose
//              query is position T: every position one step away            (path 1)
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "nn/module.hpp"
#include "tensor/rng.hpp"

namespace attnlab::lab {

struct RecallTask {
    std::int64_t vocab = 8;   // V symbols; chance = 1/V
    std::int64_t length = 33;  // T: T − 1 symbols and the query; k ∈ [1, T − 1]
    std::int64_t tokens() const { return vocab + length - 1; }  // symbols, then ?1 … ?(T−1)
};

struct RecallBatch {
    Tensor ids;      // [B, T] int64
    Tensor targets;  // [B] int64: x_{T−k}
    std::vector<std::int64_t> k;
};
// B sequences; k uniform in [1, T − 1], or `only_k` for every sequence when it is > 0.
RecallBatch make_recall_batch(const RecallTask& task, std::int64_t batch, Generator& gen, std::int64_t only_k = 0);

// The accuracy of a rule that sees the symbols but not where they are: guess the most frequent
// symbol of x_1 … x_{T−1} (ties shared). Above 1/V, because x_{T−k} is one of those symbols:
// the bar any model that reads the whole sequence clears without routing to position T − k.
double most_frequent_symbol_accuracy(const RecallTask& task, std::int64_t sequences, Generator& gen);

enum class Architecture { gru, cnn, fc, attention };
inline constexpr Architecture kArchitectures[] = {Architecture::attention, Architecture::gru, Architecture::cnn,
                                                  Architecture::fc};
std::string architecture_name(Architecture a);  // "attention", "gru", "cnn", "fc"

class RecallModel : public nn::Module {
public:
    // ids [B, T] -> the input embeddings x_t [B, T, d] (what the gradient is taken against)
    virtual Tensor embed(const Tensor& ids) const = 0;
    // x [B, T, d] -> logits [B, V] at position T
    virtual Tensor logits(const Tensor& x) const = 0;
    // The positions ending at T that can reach the output at all (T for all but the CNN).
    virtual std::int64_t reach(std::int64_t T) const { return T; }
    virtual std::string describe() const = 0;  // its layers and widths, one line
};
std::unique_ptr<RecallModel> make_recall_model(Architecture a, const RecallTask& task, Generator& gen);
inline constexpr std::int64_t kCnnReceptiveField = 15;  // 1 + 2·(1 + 2 + 4): k ≤ 14 reachable

// Σ_b logit_{target_b}(x)_b: the scalar whose gradient ‖∂ output_T / ∂ x_t‖ measures.
Tensor target_logit_sum(const RecallModel& m, const Tensor& x, const Tensor& targets);
// ‖∂ target_logit_sum / ∂ x_t‖ (norm over d), averaged over the batch, indexed by the distance
// T − t = 0 … T − 1 (0: the query position itself).
std::vector<double> gradient_by_distance(const RecallModel& m, const RecallBatch& batch);

struct RecallRun {
    std::string name;
    std::int64_t parameters = 0;
    std::vector<double> loss;              // per training step
    std::vector<double> accuracy_by_k;     // [k − 1], k = 1 … T − 1
    std::vector<double> gradient_init, gradient_trained;  // gradient_by_distance before and after training
    double seconds = 0;
};
struct RecallTrainConfig {
    std::int64_t steps = 300, batch = 64, eval_per_k = 64;
    double lr = 1e-2;
    std::uint64_t seed = 0;  // model init, training batches and evaluation batches derive from it
};
RecallRun train_recall(Architecture a, const RecallTask& task, const RecallTrainConfig& cfg);

// Median wall time (ms) of one training step (forward, backward, Adam) of a fresh model for
// task, batch B, over `reps` steps after one warm-up step.
double recall_step_ms(Architecture a, const RecallTask& task, std::int64_t batch, int reps, std::uint64_t seed);

}  // namespace attnlab::lab
