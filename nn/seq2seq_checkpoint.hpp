// seq2seq_checkpoint.hpp — saving and loading a Seq2Seq (nn/seq2seq.hpp) as .safetensors.
//
// Tensors: every parameter under its own name (src_emb.weight, encoder_fwd.cell.weight_ih,
// scoring.w_h.bias, out.weight, ...). Metadata (strings, as the format requires): format
// ("attnlab-seq2seq"), format_version, the model's configuration (vocab, embed, hidden, attn,
// attention, positions, scoring, normalizer) and whatever the caller adds (the trainer keeps
// its task and run settings there: experiments/seq2seq_experiment.hpp).
//
// Loading treats the file as hostile, as nn/checkpoint.hpp does for the transformer, and
// checks before the model is allocated:
//   1. the safetensors container (io/safetensors.cpp);
//   2. the configuration against Seq2SeqLimits (every width bounded, hidden even);
//   3. every tensor the configuration implies (seq2seq_parameter_specs) is there as float32
//      with exactly that shape, and there is nothing else;
//   4. every weight is finite.
// Every failure is an IOError naming the file and the setting or tensor. Saving goes
// through save_safetensors, so the file is replaced atomically.
//
// Version 2 may carry a run's training state, so `seq2seq train --resume` continues it:
// "optim.<buffer>.<parameter>" tensors (the optimizer's moments), and metadata "step" and
// "data_rng_0..3" (the batch stream's generator). Loading checks them like the weights:
// each buffer belongs to a parameter and has its shape and finite values, every buffer kind
// covers every parameter, the step is in [1, kMaxTrainingSteps], the generator state is hex.
// Version 1 files (no training state) still load.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nn/checkpoint.hpp"
#include "nn/seq2seq.hpp"
#include "nn/transformer_spec.hpp"

namespace attnlab::nn {

inline constexpr const char* kSeq2SeqFormat = "attnlab-seq2seq";
inline constexpr int kSeq2SeqVersion = 2;
inline constexpr int kOldestSeq2SeqVersion = 1;

struct Seq2SeqLimits {
    static constexpr std::int64_t max_vocab = 4096;
    static constexpr std::int64_t max_width = 2048;  // embed, hidden, attn
};

// ValueError naming `who`, the setting and its value if c is outside Seq2SeqLimits or
// inconsistent (odd hidden, dot scoring without attention is fine, top-k with k < 1 is not).
void check_seq2seq_limits(const Seq2SeqConfig& c, const std::string& who);
// The parameters Seq2Seq(c) registers, in order (tested against a real model).
std::vector<ParameterSpec> seq2seq_parameter_specs(const Seq2SeqConfig& c);

// Spellings of the choices, as flags and metadata write them: dot, scaled_dot, additive,
// multiplicative (the normalizer's: normalizer_flag in nn/sparse_attention.hpp). The parser
// returns false on anything else.
std::string score_kind_flag(ScoreKind kind);
bool parse_score_kind(const std::string& s, ScoreKind& out);

// With `training`, its optimizer's buffers, step and data_rng are saved too (its `tensors` are not).
void save_seq2seq(const std::string& path, const Seq2Seq& model, const std::map<std::string, std::string>& extra = {},
                  const TrainingState* training = nullptr);

struct LoadedSeq2Seq {
    std::unique_ptr<Seq2Seq> model;
    std::map<std::string, std::string> extra;  // the caller's metadata, without the model's own keys
    bool has_training_state = false;
    std::int64_t step = 0;
    std::array<std::uint64_t, 4> data_rng{};
    std::vector<NamedParameter> optimizer_state;  // names without the "optim." prefix
};
LoadedSeq2Seq load_seq2seq(const std::string& path);

}  // namespace attnlab::nn
