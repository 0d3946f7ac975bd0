// attention_weights.cpp — see attention_weights.hpp.
#include "analyses/attention_weights.hpp"

#include <utility>

#include "autograd/node.hpp"

namespace attnlab::lab {

namespace {

// Saves the trace and the mode on construction and puts them back on destruction, also when
// the forward throws (a context overflow, a bad id), so a caller that catches finds the model as it was.
class TraceOn {
public:
    explicit TraceOn(nn::Transformer& model) : model_(model), saved_(model.trace()), was_training_(model.is_training()) {
        nn::AttentionTrace& t = model.trace();
        t.enabled = true, t.keep_graph = false;  // detached weights: nothing is retained for a backward
        t.nudges.clear(), t.clear();
        model.eval();
    }
    ~TraceOn() {
        model_.trace() = std::move(saved_);
        model_.train(was_training_);
    }
    TraceOn(const TraceOn&) = delete;
    TraceOn& operator=(const TraceOn&) = delete;

private:
    nn::Transformer& model_;
    nn::AttentionTrace saved_;
    bool was_training_;
};

}  // namespace

std::vector<Tensor> recorded_attention(nn::Transformer& model, const std::function<void()>& forward) {
    NoGradGuard no_grad;
    TraceOn on(model);
    forward();
    return std::move(model.trace().layers);
}

TracedForward traced_forward(nn::Transformer& model, const Tensor& ids, const nn::Mask& extra) {
    TracedForward r;
    r.layers = recorded_attention(model, [&] { r.logits = model.forward(ids, extra); });  // [B, T] -> [B, T, V]
    return r;
}

std::vector<Tensor> attention_weights(nn::Transformer& model, const std::vector<std::int64_t>& ids) {
    const Tensor row = from_vector(ids, {1, static_cast<std::int64_t>(ids.size())});  // [1, T]
    std::vector<Tensor> layers;
    for (const Tensor& w : traced_forward(model, row).layers) layers.push_back(w.select(0, 0).contiguous());  // [1, H, T, T] -> [H, T, T]
    return layers;
}

}  // namespace attnlab::lab
