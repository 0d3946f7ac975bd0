// phase6_lens.hpp — Phase 6, step 3: the logit lens on the toy grammar's causal model.
//
// The residual stream after the embedding and after each block is read out through the final
// LayerNorm and the output head, as if the model stopped there (analyses/logit_lens.hpp). The
// figure shows, per layer and position, the token each reading ranks first and how much
// probability it already gives the model's final prediction; the line chart measures each
// reading against the grammar's exact next-word distribution, KL(exact ‖ layer), averaged over
// the positions of many sentences the grammar draws.
#pragma once
#include "phases/phase_common.hpp"

namespace attnlab::phase6 {

// What steps 3 and 4 study: the grammar's causal model of --checkpoint (by default
// out/checkpoints/causal_model.safetensors, trained first if missing, as phase 4 reads it) and
// the row "<bos> the cat sat on the mat".
struct GrammarStudy {
    nn::LoadedCheckpoint ck;
    std::vector<std::int64_t> row;    // <bos> and the sentence's words
    std::vector<std::string> labels;  // the row's tokens, for axes
};
GrammarStudy grammar_study(const lab::Options& opt);

void section3_logit_lens(phase::Frame& p);

}  // namespace attnlab::phase6
