// checkpoint.hpp — saving and loading a Transformer (and its training state) as .safetensors.
//
// Tensors: every model parameter under its own name (tok_emb.weight, blocks.0.attn.w_q.weight,
// ...), so `safetensors.torch.load_file` gives a state dict for the equivalent PyTorch
// module; when training state is saved, the optimizer's buffers follow as
// "optim.exp_avg.<param>" / "optim.exp_avg_sq.<param>", and the trainer's own tensors
// (the loss curve) as "train.<name>".
// Metadata (all strings, as the format requires): format ("attnlab-checkpoint"),
// format_version, kind (causal | single-head | multi-head | qkv-head | char: a task's, which
// lab::task_from_kind checks where the task is used, since nn/ knows no tasks), every hyper-parameter
// (positions: learned | sinusoidal | none and normalizer: softmax | sparsemax among them; a file
// without them is learned / softmax, as every model was before they could be chosen),
// the vocabulary as a JSON array, and — with training state — the step and the data
// generator's state, so a resumed run continues exactly where it stopped. The trainer
// adds its whole run configuration (training/run_config.hpp) through CheckpointInfo::extra.
//
// Loading treats the file as hostile and checks, in this order, before the model is built:
//   1. the safetensors container (io/safetensors.cpp: header, offsets, sizes);
//   2. the header's configuration against nn::ModelLimits (nn/transformer_spec.hpp) — the
//      same limits the trainer enforces, so a file claiming a huge model fails here;
//   3. every tensor the configuration implies (parameter_specs) is present as float32 with
//      exactly that shape, and nothing else is there but optimizer and trainer state; the
//      container already checked that each tensor's bytes are in the file, so the file
//      holds every byte the model will occupy;
//      The optimizer's state is AdamW's two buffers for every parameter, or absent;
//   4. every weight and optimizer value is finite, the step is in [0, kMaxTrainingSteps];
//      booleans are "true" or "false", and the vocabulary holds each token once.
// Only then is the model allocated. Every failure is an IOError naming the file and the
// tensor or setting.
#pragma once
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nn/optim.hpp"
#include "io/safetensors.hpp"
#include "nn/transformer.hpp"

namespace attnlab::nn {

inline constexpr const char* kCheckpointFormat = "attnlab-checkpoint";
// Version 2 adds the trainer's state (run configuration, "train.*" tensors). Version 1
// files still load for inference; they cannot be resumed.
inline constexpr int kCheckpointVersion = 2;
inline constexpr int kOldestCheckpointVersion = 1;
// The buffers of Adam and AdamW (nn/optim.cpp), the optimizers the trainers save, as
// "optim.<buffer>.<param>".
inline constexpr std::array<const char*, 2> kOptimizerBuffers{"exp_avg", "exp_avg_sq"};
// No run is longer; a larger step in a file is corrupt (the trainer refuses longer runs too).
inline constexpr std::int64_t kMaxTrainingSteps = 1'000'000'000;

struct TrainingState {
    const Optimizer* optimizer = nullptr;
    std::int64_t step = 0;
    std::array<std::uint64_t, 4> data_rng{};  // Generator::state() of the batch stream
    std::vector<NamedTensor> tensors;         // the trainer's own, saved as "train.<name>"
};

struct CheckpointInfo {
    std::string kind;                 // causal | single-head | multi-head | qkv-head | char
    std::vector<std::string> vocab;   // id -> token text
    std::map<std::string, std::string> extra;  // anything else the caller wants kept (e.g. val_loss)
};

void save_checkpoint(const std::string& path, const Transformer& model, const CheckpointInfo& info,
                     const TrainingState* training = nullptr);

struct LoadedCheckpoint {
    std::unique_ptr<Transformer> model;
    CheckpointInfo info;
    bool has_training_state = false;
    std::int64_t step = 0;
    std::array<std::uint64_t, 4> data_rng{};
    std::vector<NamedParameter> optimizer_state;       // names without the "optim." prefix
    std::map<std::string, Tensor> training_tensors;    // names without the "train." prefix
    std::map<std::string, std::string> metadata;       // everything, as stored
};

LoadedCheckpoint load_checkpoint(const std::string& path);

// The first NaN or ±inf of a float32 tensor, as "nan at element 12"; "" if every value is
// finite. The loader refuses such weights; the trainer stops before it would save them.
std::string first_non_finite(const Tensor& t);

}  // namespace attnlab::nn
