// optim_fast.hpp — the fast path of Adam::step (nn/optim.cpp): its update vectorised.
#pragma once
#include "nn/optim.hpp"

namespace attnlab::nn {

// Adam::update(w, g, m, v, n) for opt's current step, with its constants folded and the
// loop on vectors (tensor/vec_math.hpp); every lane does the scalar tail's arithmetic.
void adam_update_fast(const Adam& opt, float* w, const float* g, float* m, float* v, std::int64_t n);

}  // namespace attnlab::nn
