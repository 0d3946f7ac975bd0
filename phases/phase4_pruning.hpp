// phase4_pruning.hpp — the ablation claim that removing any head hurts performance,
// taken to its end: how few heads does the trained causal model need?
//
// Each head's importance is the validation-loss increase with that head alone switched off
// (step 8's one-at-a-time experiment). Then the heads go off one after another, least
// important first, each staying off, until none is left; the minimum is the fewest heads
// still on before the loss first rises more than `tolerance` (0.05 nats) above the full
// model's. The measurement is analyses/head_pruning.hpp's, on the toy grammar's validation
// set; `tinygpt heads` runs the same on any trained model's held-out data.
#pragma once
#include "analyses/head_pruning.hpp"
#include "phases/phase_common.hpp"

namespace attnlab::phase4 {

// The toy grammar's validation loss of a causal model: what phase 4 prunes by.
double grammar_val_loss(nn::Transformer& model);

void section8b_pruning_to_minimum(phase::Frame& p, nn::Transformer& model, double tolerance = 0.05);

}  // namespace attnlab::phase4
