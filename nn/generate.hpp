// generate.hpp — autoregressive decoding with a causal Transformer.
//
// The decoding loop of phase 4: start from the prompt, predict the next token, append it,
// repeat. With the KV cache (the default) the prompt is run once and each later
// step feeds only the newest token: every layer keeps the keys and values of the
// positions it has seen, so a step costs O(T) instead of recomputing O(T²).
// Without it, every step recomputes the whole prefix; both give the same tokens.
// Generation stops at stop_token, after max_new_tokens, or when the model's
// context (its learned positions) is full; Generation::stop says which. By default the
// window does not slide: a position past the context has no learned embedding. With
// slide_window the oldest tokens drop out instead and the last context − 1 tokens are run
// again from position 0 each step (nanoGPT's crop): a model trained on rows cut anywhere
// in a text (a character model) has seen such windows; the KV cache cannot be kept, as
// every remaining token moves to a new position.
#pragma once
#include <string>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::nn {

struct GenerateOptions {
    std::int64_t max_new_tokens = 20;
    double temperature = 0;    // 0: greedy argmax; otherwise sample from softmax(logits / temperature)
    std::int64_t top_k = 0;    // > 0: sample among the k most likely tokens only
    double top_p = 1;          // < 1: sample among the fewest most likely tokens whose probability reaches top_p
    bool slide_window = false; // when the context is full, drop the oldest token instead of stopping
    std::uint64_t seed = 0;    // sampling stream
    bool use_kv_cache = true;
    std::int64_t stop_token = -1;  // e.g. <eos>; included in the output when produced
};

// Why generation stopped.
enum class Stop { count, stop_token, context_full };

struct Generation {
    std::vector<std::int64_t> tokens;  // the new tokens only
    Stop stop = Stop::count;
    std::vector<Tensor> logits;        // the [V] logits each new token was chosen from
    double milliseconds = 0;
};

// Both throw ValueError for options that would sample silently wrong: a temperature that is
// NaN, infinite or negative, a negative top_k or max_new_tokens, a top_p outside (0, 1]. generate also refuses an
// empty prompt, a bidirectional model and a prompt that fills the context (nothing would
// be generated).
Generation generate(Transformer& model, const std::vector<std::int64_t>& prompt, const GenerateOptions& options = {});

// The tokens the choice rule may pick from one row of logits [V], most likely first (ties: the
// lower id first), with their weights exp((z − z_max) / temperature): the k most likely with
// top-k, then the fewest of those whose weight reaches top_p of theirs (at least one). Weights
// are not normalised; total is their sum, added in this order. Temperature 0 keeps the argmax alone.
struct Candidates {
    std::vector<std::int64_t> tokens;
    std::vector<double> weights;
    double total = 0;
};
Candidates sampling_candidates(const Tensor& logits, const GenerateOptions& options);

// The choice rule on one row of logits [V] (greedy, or sampled with temperature, top-k and top-p):
// one draw among sampling_candidates, each with probability weight / total.
std::int64_t choose_token(const Tensor& logits, const GenerateOptions& options, Generator& gen);

// The distribution choose_token draws from, over all V tokens: weight / total for each
// candidate, 0 for every token the cut-offs leave out (one-hot at the argmax for temperature 0).
std::vector<double> next_token_distribution(const Tensor& logits, const GenerateOptions& options);

// "3 tokens: <eos> was produced", "28 of 200 tokens: the context of 32 positions is full".
std::string describe_stop(const Generation& g, const GenerateOptions& options, std::int64_t context);

// The check both run first (who names the caller in the message).
void check_options(const GenerateOptions& options, const std::string& who);

}  // namespace attnlab::nn
