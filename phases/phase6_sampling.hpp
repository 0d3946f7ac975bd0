// phase6_sampling.hpp — Phase 6, step 4: what temperature, top-k and top-p do to the next-token
// distribution of the grammar's causal model, beside the grammar's exact distribution
// (analyses/sampling.hpp; the rule is the one tinygpt generate draws from).
#pragma once
#include "phases/phase_common.hpp"

namespace attnlab::phase6 {

void section4_sampling(phase::Frame& p);

}  // namespace attnlab::phase6
