// optim_fast.hpp — the fast paths of Adam::step and clip_grad_norm (nn/optim.cpp): the
// same formulas on vectors, every parameter's elements cut into segments that the threads
// share.
#pragma once
#include <span>
#include <vector>

#include "nn/optim.hpp"

namespace attnlab::nn {

// One parameter's update: Adam::update's four arrays and their length.
struct AdamSlot {
    float* w;
    const float* g;
    float* m;
    float* v;
    std::int64_t n;
};

// Adam::update for every slot, for opt's current step, with its constants folded and the
// loop on vectors (tensor/vec_math.hpp); every lane does the scalar tail's arithmetic. The
// slots' elements are spread over threads in segments; each element's update is the same
// whichever thread runs it, so the bits are the same at any thread count.
void adam_update_fast(const Adam& opt, std::span<const AdamSlot> slots);

// clip_grad_norm over contiguous float32 gradients. The squares are summed in double per
// segment of a gradient (kSegment elements, eight interleaved partial sums, so the adds do
// not wait on each other), and the segments' sums are added in parameter order: the same
// bits at any thread count, and within rounding of the reference's one running sum.
double clip_grad_norm_fast(std::span<float* const> grads, std::span<const std::int64_t> sizes, double max_norm);

}  // namespace attnlab::nn
