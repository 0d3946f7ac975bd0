// transformer_spec.hpp — what a TransformerConfig implies, known before anything is allocated:
// the parameters it will have (names and shapes, in registration order), how many, and
// whether it is within the limits attnlab trains and loads.
//
// One set of limits serves both sides: the trainer checks a config with check_limits
// before it builds the model, and the checkpoint loader checks the config a file claims
// before it builds anything — so everything the trainer accepts, the loader loads, and a
// file whose header claims a huge model fails in microseconds instead of allocating it.
//
// The limits are generous for a CPU teaching framework (GPT-2 small, 124 M parameters,
// fits) and stop typos and hostile headers: a d_model of 100000 would need 40 GB for its
// first block alone.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::nn {

struct ModelLimits {
    static constexpr std::int64_t max_d_model = 4096;
    static constexpr std::int64_t max_heads = 256;
    static constexpr std::int64_t max_layers = 64;
    static constexpr std::int64_t max_context = 8192;      // rows of pos_emb
    static constexpr std::int64_t max_vocab = 1 << 21;     // every Unicode code point fits (0x10FFFF + <pad>)
    static constexpr std::int64_t max_parameters = 1 << 28;  // 268 M: 1 GiB of float32 weights
};

struct ParameterSpec {
    std::string name;  // as Transformer::named_parameters() names it, e.g. "blocks.0.attn.w_q.weight"
    Shape shape;
};

// The attention normalizers a Transformer takes: softmax and sparsemax, the two that the
// explorer's JavaScript forward computes (top-k is seq2seq's). The parser reads their names
// and returns nullopt for anything else, "topk:2" included.
bool transformer_normalizer(const Normalizer& n);
std::optional<Normalizer> parse_transformer_normalizer(std::string_view text);

// Throws ValueError naming `who`, the setting, its value and the limit, if c is outside
// ModelLimits or inconsistent (d_model not divisible by n_heads, a negative window, ...).
// Runs in O(n_layers) without allocating tensors.
void check_limits(const TransformerConfig& c, const std::string& who);

// The parameters Transformer(c) registers, in order (tested against a real model).
// Call check_limits first: the shapes are not checked here.
std::vector<ParameterSpec> parameter_specs(const TransformerConfig& c);

// Sum of the elements of parameter_specs(c), in closed form (no list built).
std::int64_t parameter_count(const TransformerConfig& c);

}  // namespace attnlab::nn
