// step.hpp — one training step, plain: forward, loss.backward(), clip, opt.step().
//
// The loop of training/train.cpp calls this once per batch; everything else there
// (batches, evaluation, checkpoints, progress) is around it. Splitting the batch over
// threads is an optional layer (nn/data_parallel.hpp) that replaces the forward and
// backward only; reference mode (tensor/reference.hpp) never takes it.
#pragma once
#include "nn/data_parallel.hpp"
#include "nn/optim.hpp"

namespace attnlab::lab {

struct StepResult {
    double loss;       // the batch's mean cross-entropy, before the update
    double grad_norm;  // the gradient's global L2 norm before clipping; NaN when the loss is not finite
    bool applied;      // the optimizer stepped: false when the loss or the gradient is not finite
};

// ids, targets [B, T] int64; padding empty or per sequence ([B, 1, T]). Zeroes the
// gradients, runs forward and backward (dropout drawing from *dropout, when the model
// has any), clips the gradient's norm to `clip`, then steps `opt`, unless the loss or the
// gradient is not finite: then the weights are left as they were, for the caller to report.
// parallel (optional, shards > 1): the forward and backward split over the batch.
StepResult train_step(nn::Transformer& model, nn::Optimizer& opt, const Tensor& ids, const Tensor& targets,
                      const nn::Mask& padding, double clip, Generator* dropout, nn::DataParallel* parallel = nullptr);

}  // namespace attnlab::lab
