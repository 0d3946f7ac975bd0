// checkpoint.hpp — saving and loading a Transformer (and its training state) as .safetensors.
//
// Tensors: every model parameter under its own name (tok_emb.weight, blocks.0.attn.w_q.weight,
// ...), so `safetensors.torch.load_file` gives a state dict for the equivalent PyTorch
// module; when training state is saved, the optimizer's buffers follow as
// "optim.exp_avg.<param>" / "optim.exp_avg_sq.<param>".
// Metadata (all strings, as the format requires): format ("attnlab-checkpoint"),
// format_version, kind (causal | single-head | multi-head | char), every hyper-parameter,
// the vocabulary as a JSON array, and — with training state — the step and the data
// generator's state, so a resumed run continues exactly where it stopped.
//
// Loading validates the file (nn/safetensors.cpp), then that every tensor the model
// expects is present with the right shape and dtype; failures name the file and tensor.
#pragma once
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nn/optim.hpp"
#include "nn/transformer.hpp"

namespace attnlab::nn {

inline constexpr const char* kCheckpointFormat = "attnlab-checkpoint";
inline constexpr int kCheckpointVersion = 1;

struct TrainingState {
    const Optimizer* optimizer = nullptr;
    std::int64_t step = 0;
    std::array<std::uint64_t, 4> data_rng{};  // Generator::state() of the batch stream
};

struct CheckpointInfo {
    std::string kind;                 // causal | single-head | multi-head | char
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
    std::vector<NamedParameter> optimizer_state;  // names without the "optim." prefix
    std::map<std::string, std::string> metadata;  // everything, as stored
};

LoadedCheckpoint load_checkpoint(const std::string& path);

}  // namespace attnlab::nn
