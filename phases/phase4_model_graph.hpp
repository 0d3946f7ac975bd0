// phase4_model_graph.hpp — phase 4, step 11: the graph backward() walks for the whole model.
//
// Phase 1 step 9 drew the graph of one head. Here it is the loaded causal model's, from the
// token ids to the next-token loss on the studied sentence: too many ops for one picture, so
// it is folded one box per module (analyses/model_graph.hpp), and a second figure opens block 0's
// attention op by op. The heads are one box: the layer computes them at once as a batch axis.
// Bodies in phases/sections/phase4_model_graph.cpp.
#pragma once
#include <vector>

#include "phases/phase_common.hpp"

namespace attnlab::phase4 {

using namespace attnlab::phase;

void section11_whole_model_graph(Frame& f, nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                 const std::string& checkpoint);

}  // namespace attnlab::phase4
