// positional.hpp — positional encodings: telling a model where each token sits.
//
// Attention by itself is permutation invariant: shuffle the keys and
// the weights shuffle with them. Two standard fixes, both added to the token
// embeddings:
//
//   sinusoidal (Vaswani et al., 2017, section 3.5), fixed:
//     PE(pos, 2i)   = sin(pos / 10000^(2i / d_model))
//     PE(pos, 2i+1) = cos(pos / 10000^(2i / d_model))
//   Dimension pair i is a sinusoid of wavelength 2π · 10000^(2i/d_model): from 2π
//   (the first pair) to nearly 10000 · 2π (the last), a geometric progression.
//
//   learned: a trainable [max_len, d_model] table (GPT-2, BERT), one row per position;
//   it cannot say anything about positions past max_len.
//
// A common slip in notebook code loops `for i in range(0, d_model, 2)` and then writes
// 10000 ** (2*i / d_model) with that already-even i — i.e. 10000^(4k/d) for pair k,
// squaring every pair's wavelength factor. The top half of the pairs then have
// wavelengths beyond 10000 · 2π and are almost constant over any real sequence, so
// half the dimensions carry nearly no position information. squared_wavelength_positional_encoding
// keeps that form only so phase 5 can show the difference.
#pragma once
#include <optional>
#include <string_view>

#include "nn/layers.hpp"

namespace attnlab::nn {

// How a Transformer (nn/transformer.hpp) tells its tokens apart by position: a learned
// table (pos_emb), the fixed sinusoidal encoding, or nothing at all (then only the mask,
// if any, breaks the symmetry: a causal model can still count the keys it sees).
enum class PositionScheme { learned, sinusoidal, none };
const char* position_scheme_name(PositionScheme p);                   // "learned", "sinusoidal", "none"
std::optional<PositionScheme> parse_position_scheme(std::string_view text);  // nullopt for anything else

// The paper's encoding: [T, d_model] float32 (d_model even).
Tensor sinusoidal_positional_encoding(std::int64_t T, std::int64_t d_model);
// That slip (exponent 2·(2i)/d_model for pair i), for comparison only.
Tensor squared_wavelength_positional_encoding(std::int64_t T, std::int64_t d_model);

// A trainable table, initialised N(0, 1) as torch.nn.Embedding.
class LearnedPositionalEmbedding : public Module {
public:
    LearnedPositionalEmbedding(std::int64_t max_len, std::int64_t d_model, Generator& gen = default_generator());
    Tensor forward(std::int64_t T) const;  // rows 0 .. T−1: [T, d_model]; T ≤ max_len
    Tensor weight;                         // [max_len, d_model]
};

}  // namespace attnlab::nn
