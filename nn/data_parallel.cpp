// data_parallel.cpp — see data_parallel.hpp.
#include "nn/data_parallel.hpp"

#include <string>

#include "autograd/node.hpp"
#include "nn/loss.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"

namespace attnlab::nn {

std::pair<std::int64_t, std::int64_t> shard_rows(std::int64_t rows, int shards, int s) {
    const std::int64_t base = rows / shards, extra = rows % shards;
    return {s * base + std::min<std::int64_t>(s, extra), base + (s < extra ? 1 : 0)};
}

DataParallel::DataParallel(Transformer& model, int shards) : model_(model), shards_(shards) {
    if (shards < 1) throw ValueError("DataParallel: shards must be at least 1, got " + std::to_string(shards));
    if (shards == 1) return;
    own_ = model.parameters();
    for (int s = 0; s < shards; ++s) {
        replicas_.push_back(std::make_unique<Transformer>(model.config()));
        theirs_.push_back(replicas_.back()->parameters());
        for (std::size_t i = 0; i < own_.size(); ++i)
            theirs_.back()[i].set_data(own_[i].detach());  // the replica's own leaf, viewing the model's storage
    }
    dropout_gens_.resize(static_cast<std::size_t>(shards));
}

double DataParallel::forward_backward(const Tensor& ids, const Tensor& targets, const Mask& padding, Generator* dropout) {
    if (!GradMode::enabled()) throw AutogradError("DataParallel::forward_backward: gradient recording is off (inside NoGradGuard)");
    if (ids.dim() != 2 || targets.shape() != ids.shape())
        throw ShapeError("DataParallel::forward_backward: ids " + ids.shape().str() + " and targets " + targets.shape().str() +
                         " must both be [B, T]");
    const std::int64_t B = ids.size(0);
    if (shards_ == 1 || B < 2) {  // the plain step
        model_.set_dropout_generator(dropout);
        Tensor loss = cross_entropy(model_.forward(ids, padding), targets);
        loss.backward();
        return loss.item();
    }

    // The shards' inputs and loss weights, prepared on this thread in shard order.
    const int n = static_cast<int>(std::min<std::int64_t>(shards_, B));
    const std::vector<std::int64_t> t = targets.contiguous().to_vector<std::int64_t>();
    const std::int64_t T = ids.size(1);
    std::int64_t count = 0;
    for (std::int64_t v : t) count += v != kIgnoreIndex;
    struct Shard {
        Tensor ids, targets;
        Mask padding;
        double weight = 0, loss = 0;
    };
    std::vector<Shard> shards(static_cast<std::size_t>(n));
    const bool drops = model_.config().dropout > 0 && model_.is_training();  // else no draw: the stream stays as it was
    for (int s = 0; s < n; ++s) {
        const auto [lo, rows] = shard_rows(B, n, s);
        const auto slot = static_cast<std::size_t>(s);
        Shard& sh = shards[slot];
        sh.ids = ids.narrow(0, lo, rows).contiguous();
        sh.targets = targets.narrow(0, lo, rows).contiguous();
        sh.padding = padding.batch_rows(lo, rows);
        std::int64_t mine = 0;
        for (std::int64_t i = lo * T; i < (lo + rows) * T; ++i) mine += t[static_cast<std::size_t>(i)] != kIgnoreIndex;
        sh.weight = count > 0 ? static_cast<double>(mine) / static_cast<double>(count) : 0.0;
        replicas_[slot]->train(model_.is_training());
        if (drops && dropout) dropout_gens_[slot].manual_seed(dropout->next_u64());
        replicas_[slot]->set_dropout_generator(dropout ? &dropout_gens_[slot] : nullptr);
    }

    // Each shard's forward and backward; parallel_for runs a chunk's ops serially.
    parallel_for(0, n, 1, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t s = lo; s < hi; ++s) {
            const auto slot = static_cast<std::size_t>(s);
            Shard& sh = shards[slot];
            Transformer& replica = *replicas_[slot];
            // Last step's gradients are freed here, by the thread that allocates the next ones:
            // a block goes back to the cache of the thread that frees it (tensor/allocator.cpp).
            replica.zero_grad();
            Tensor loss = cross_entropy(replica.forward(sh.ids, sh.padding), sh.targets);
            if (sh.weight != 1.0) loss = loss * sh.weight;
            loss.backward();
            sh.loss = loss.item();
        }
    });

    // The gradients, added in shard order after whatever the model's parameters held.
    for (std::size_t i = 0; i < own_.size(); ++i) {
        Tensor g = own_[i].grad();
        for (int s = 0; s < n; ++s) {
            const Tensor gs = theirs_[static_cast<std::size_t>(s)][i].grad();
            if (gs.defined()) g = g.defined() ? add(g, gs) : gs;
        }
        own_[i].set_grad(g);
    }
    double loss = 0;
    for (const Shard& sh : shards) loss += sh.loss;
    return loss;
}

}  // namespace attnlab::nn
