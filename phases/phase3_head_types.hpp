// phase3_head_types.hpp — the patterns a trained model's heads are expected to show, measured.
//
// For the toy sentence the seed expects: head 1 subject-verb ("sat" attends to "cat"),
// head 2 verb-object ("sat" to "mat"), head 3 determiner-noun ("the" to "cat"), head 4
// sequential (each token to the previous one). The toy grammar knows these dependencies
// in every sentence it generates (data/grammar.hpp: toy_gold_pairs), plus pronoun ->
// antecedent; analyses/head_roles measures, per head of both trained models, the mean weight
// on the gold key over sentences drawn from the grammar, beside uniform attention's.
// Semantic heads (related nouns): each noun has a meaning (data/grammar.hpp: noun_class), and
// analyses/head_roles scores the mass a noun puts on related nouns and on nouns of other classes,
// each beside uniform's; a head that lifts related nouns above twice chance and above the
// other nouns (1.5 times their lift) is called semantic. Then attention on generated text: the same weights on text the
// causal model writes itself (greedy from a prompt), per layer.
// Bodies in phases/sections/phase3_head_types.cpp.
#pragma once
#include "phases/phase_common.hpp"

namespace attnlab::phase3 {

using namespace attnlab::phase;

// Attention on generated text: greedy text from the causal model, its pronoun -> antecedent and
// verb -> subject weights per layer (mean and best head).
void generated_text_roles(Frame& p, nn::Transformer& model, const std::vector<std::string>& prompts);

void section7_head_types(Frame& p, nn::LoadedCheckpoint& causal, nn::LoadedCheckpoint& bidirectional,
                        std::int64_t n_sentences = 200);

}  // namespace attnlab::phase3
