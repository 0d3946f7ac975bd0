// sampling.hpp — what temperature, top-k and top-p do to a model's next-token distribution.
//
// Generation draws the next token from softmax(z / T), cut to the k most likely tokens
// (top-k) or to the fewest most likely whose probability reaches p (top-p), renormalised.
// This file shows that distribution rather than one draw from it, with its entropy:
// T < 1 sharpens it (lower entropy, the argmax gains), T > 1 flattens it, T → 0 is greedy
// decoding, and both cut-offs give the tail's mass back to the tokens they keep. The rule
// itself is nn::next_token_distribution, the one nn::generate draws from, so what is shown
// here is what generation does. Left out: repetition penalties, beam search.
#pragma once
#include <string>
#include <vector>

#include "nn/generate.hpp"

namespace attnlab::lab {

// One way of choosing the next token: its name in tables and figures ("T 0.5", "top-k 5").
struct SamplingSetting {
    std::string name;
    nn::GenerateOptions options;  // temperature, top_k, top_p are read
};

// T 0.5, 1 and 2 (all tokens), then top-k 5 and top-p 0.9 at T 1.
std::vector<SamplingSetting> standard_sampling_settings();

struct SampledDistribution {
    std::string name;
    std::vector<double> probs;  // [V], summing to 1
    double entropy = 0;         // nats
    std::int64_t kept = 0;      // tokens with probability > 0
};

// logits [V] -> one distribution per setting, in their order.
std::vector<SampledDistribution> sampling_distributions(const Tensor& logits, const std::vector<SamplingSetting>& settings);

// H(p) = −Σ p ln p in nats (terms with p = 0 add nothing).
double entropy(const std::vector<double>& p);

// Total variation distance ½ Σ |p − q|: the probability mass that would have to move to turn one
// into the other. Finite where KL is not (a cut-off gives 0 to a token the other keeps).
double total_variation(const std::vector<double>& p, const std::vector<double>& q);

}  // namespace attnlab::lab
