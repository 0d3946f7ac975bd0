// data_parallel.hpp — a training step's forward and backward, split over the batch: the
// optional layer of training/step.cpp's plain step (reference mode never takes it).
//
// A toy model's ops are too small for two threads to share one (W4's largest product,
// [512, 256] @ [256, 64], is 17 MFLOP: about a tenth of a millisecond on one core), so a
// second thread pays only with coarser work: part of the batch through the whole model. DataParallel
// keeps one replica of the model per shard. A replica's parameters share the model's
// storage, so the optimiser's in-place update reaches every replica, but own their
// gradients, so two backward passes never add into one tensor at once.
//
// forward_backward(ids, targets) runs shard s on its run of rows of the batch (the rows split
// as evenly as they go, in order), the shards at once on up to `shards` threads, each
// shard's own ops serially; then adds the replicas' gradients in shard order into the model's.
// Shard s's loss is its mean cross-entropy times count_s / count, where count counts
// the targets that are not ignored, so the shards' losses add up to the batch's mean
// and their gradients to its gradient, up to rounding.
//
// The split depends on `shards` only, never on the thread count: training gives the
// same bits on one thread or two (tests/nn/test_data_parallel.cpp). A different
// `shards` adds in a different order, so its bits differ, as PyTorch's would between
// one process and DistributedDataParallel over two. shards = 1 is the plain step on the
// model itself: loss = cross_entropy(model.forward(ids, padding), targets); loss.backward().
#pragma once
#include <memory>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::nn {

class DataParallel {
public:
    // The model must outlive this; its parameters must not be replaced afterwards
    // (the replicas view their storage as it is now). shards >= 1.
    DataParallel(Transformer& model, int shards);

    int shards() const { return shards_; }

    // ids, targets [B, T] int64; padding empty or per sequence ([B, 1, T]). Adds the gradient
    // of the batch's mean cross-entropy into the model's parameters, as loss.backward()
    // would, and returns that loss. Dropout (config().dropout > 0): each shard draws from
    // its own generator, seeded from `dropout` in shard order before the shards start
    // (shards = 1: the model draws from `dropout` itself). B below `shards` runs B shards.
    double forward_backward(const Tensor& ids, const Tensor& targets, const Mask& padding = Mask(),
                            Generator* dropout = nullptr);

private:
    Transformer& model_;
    int shards_;
    std::vector<std::unique_ptr<Transformer>> replicas_;  // none when shards = 1
    std::vector<Tensor> own_;                             // the model's parameters
    std::vector<std::vector<Tensor>> theirs_;             // each replica's, in the same order
    std::vector<Generator> dropout_gens_;                 // one per shard
};

// The rows of shard s when `rows` are split into `shards` runs in order: the first
// rows % shards runs get one row more. Returns {first row, row count}.
std::pair<std::int64_t, std::int64_t> shard_rows(std::int64_t rows, int shards, int s);

}  // namespace attnlab::nn
