// logit_lens.hpp — what the residual stream "would predict" after each layer.
//
// The residual stream x_l after embedding (l = 0) and after each block (l = 1 … L) is read
// out as if it were the last one: p_l = softmax(head(ln_f(x_l))). p_L is the model's own
// prediction; the earlier ones show how the answer builds up layer by layer. Left out: the
// tuned lens (a learnt map per layer), which reads the early layers more faithfully.
//
// For a model of the toy grammar the right answer is known exactly (data/grammar.hpp), so each
// layer's reading is also measured against it: KL(exact ‖ p_l), the nats a predictor loses,
// on average, by predicting p_l where the Bayes-optimal predictor predicts `exact`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/grammar.hpp"
#include "nn/transformer.hpp"
#include "plots/scene.hpp"

namespace attnlab::lab {

struct LogitLens {
    std::vector<Tensor> probs;               // [L + 1] of [T, V]: p_l for every position
    std::vector<std::vector<std::int64_t>> top;  // [L + 1][T]: argmax of p_l
    std::vector<std::vector<double>> final_token_prob;  // [L + 1][T]: p_l of the token p_L ranks first
};

// ids: one row of token ids (at most the model's context). No gradient is recorded.
LogitLens logit_lens(nn::Transformer& model, const std::vector<std::int64_t>& ids);

// KL(p ‖ q) = Σ p ln(p / q) in nats over one distribution each (terms with p = 0 add nothing).
double kl_divergence(const std::vector<double>& p, const std::vector<double>& q);

// The exact next-token distribution at every position of a row "<bos> w_1 … w_n" as a causal
// model of the grammar reads it: [n + 1][V], entry i = P(next | w_1 … w_i). Training rows are
// packed (data/packing.hpp), so the row's first sentence has at most context − 1 words (its
// <eos> takes the last slot); the distribution is conditioned on that, as the model saw it.
// Throws ValueError if the row does not open with <bos> or the grammar cannot emit its words.
std::vector<std::vector<double>> exact_next_tokens(const data::Grammar& g, const std::vector<std::int64_t>& row,
                                                   std::int64_t context);

// [L + 1]: KL(exact_t ‖ p_l,t) averaged over the positions t, per layer l. exact: [T][V] as above.
std::vector<double> kl_to_exact(const LogitLens& lens, const std::vector<std::vector<double>>& exact);

// Layers x positions: each cell names the top token of p_l (`vocab`: id -> text) and is
// coloured by p_l of the token the last layer predicts; `tokens` label the positions.
plots::Figure logit_lens_figure(const LogitLens& lens, const std::vector<std::string>& tokens,
                                const std::vector<std::string>& vocab, const std::string& title);

// "embedding", "block 1", … : the names of the L + 1 readings.
std::string lens_layer_name(std::size_t l);

// One line per reading, its name and then its top token at each position (`vocab`: id -> text):
// "  block 1    the tree didn't <eos>\n".
std::string lens_top_lines(const LogitLens& lens, const std::vector<std::string>& vocab);

}  // namespace attnlab::lab
