// step.cpp — see step.hpp.
#include "training/step.hpp"

#include <cmath>

#include "nn/loss.hpp"
#include "tensor/reference.hpp"

namespace attnlab::lab {

StepResult train_step(nn::Transformer& model, nn::Optimizer& opt, const Tensor& ids, const Tensor& targets,
                      const nn::Mask& padding, double clip, Generator* dropout, nn::DataParallel* parallel) {
    opt.zero_grad();  // backward adds into .grad: last step's gradients must go first
    double loss_value;
    if (parallel && parallel->shards() > 1 && !reference_mode()) {
        // The optional layer: the batch's rows split over model replicas, one thread each.
        loss_value = parallel->forward_backward(ids, targets, padding, dropout);
    } else {
        model.set_dropout_generator(dropout);
        Tensor logits = model.forward(ids, padding);      // [B, T, V]
        Tensor loss = nn::cross_entropy(logits, targets);  // []: the mean over the targets
        loss.backward();                                   // dloss/dθ into every parameter's .grad
        loss_value = loss.item();
    }
    if (!std::isfinite(loss_value)) return {loss_value, NAN, false};
    // Clipping bounds one bad batch's step; the norm is computed anyway, and a non-finite
    // one means some gradient is.
    const double norm = nn::clip_grad_norm(model.parameters(), clip);
    if (!std::isfinite(norm)) return {loss_value, norm, false};
    opt.step();  // θ ← θ − lr · AdamW's update
    return {loss_value, norm, true};
}

}  // namespace attnlab::lab
