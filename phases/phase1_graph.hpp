// phase1_graph.hpp — phase 1, step 9: the graph backward() walks, and the ops as they run.
//
// One attention head of the trained model's first layer is run again with recording
// on: q, k, v projections -> scores -> scale -> mask -> softmax -> weighted sum,
// reduced to a scalar L = sum(output ⊙ R) with a fixed random R (a stand-in for the
// rest of the network, so every output entry matters). The graph is drawn numbered
// in the engine's order and shaded by ‖dL/d(tensor)‖; the op trace (ATTNLAB_TRACE,
// autograd/trace.hpp) of the same forward and backward is written beside it.
// Bodies in phases/sections/phase1_graph.cpp.
#pragma once
#include "nn/attention.hpp"
#include "phases/phase_common.hpp"

namespace attnlab::phase1 {

using namespace attnlab::phase;

// attn: a one-head layer; X: its input, (T, d_model), a constant here.
void section9_graph_backward_walks(Frame& f, const nn::MultiHeadAttention& attn, const Tensor& X);

}  // namespace attnlab::phase1
