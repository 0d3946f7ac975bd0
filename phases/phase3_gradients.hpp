// phase3_gradients.hpp — phase 3, step 8: gradients through attention.
//
// For the studied sentence's next-token loss under the causal model: dL/dA for every layer
// and head (diverging colours centred on 0) beside A itself; the gradient-weighted
// attention max(-A ⊙ dL/dA, 0) (weight that helps the prediction), heads averaged, rolled out through the layers beside
// plain rollout; and a check that the drawn dL/dA equals central differences on the
// largest entry of every head. The numbers go to metrics.json ("attention_gradients"); the
// explorer page carries the matrices, rounded, for every listed sentence (section 6 and
// lab::explorer_gradients).
// Bodies in phases/sections/phase3_gradients.cpp.
#pragma once
#include "phases/phase_common.hpp"

namespace attnlab::phase3 {

using namespace attnlab::phase;

// ids [T] as the model reads them (<bos> words <eos> for the toy grammar), tokens their labels,
// text the sentence as printed.
void section8_attention_gradients(Frame& f, nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                  const std::vector<std::string>& tokens, const std::string& text);

}  // namespace attnlab::phase3
