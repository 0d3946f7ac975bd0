// held_out.hpp — where a run's batches come from, whatever its task, and the held-out
// data it is validated on: the toy grammar's fixed validation batches, or windows of the
// last tenth of a corpus file (the first nine tenths train). train() draws from here at
// every step and evaluation; `tinygpt heads` rebuilds a finished run's validation batches
// from its checkpoint (held_out_of), so the loss it reports for the whole model is the one
// train() validated it with, and every ablation it measures is on text the model never saw.
//
//   BatchSource        the run's data: training batches, the fixed validation batches, the
//                      vocabulary and the identity of the corpus
//   evaluate_batches   mean loss and accuracy over the predicted tokens of some batches,
//                      optionally with the attention further restricted by a mask
//   held_out_of        a checkpoint's own validation batches, its corpus checked to be the
//                      very text it was trained on
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nn/checkpoint.hpp"
#include "nn/mask.hpp"
#include "tensor/rng.hpp"
#include "training/run_config.hpp"
#include "training/train.hpp"

namespace attnlab::lab {

// One training or validation batch, whatever the task.
struct Batch {
    Tensor ids, targets;                // [B, T] int64; targets kIgnoreIndex where nothing is predicted
    nn::Mask padding;                   // masked-token task: keys past each row's length
    std::vector<std::int64_t> lengths;  // tokens before the padding, per row; empty: every row is whole
};

// Where a task's batches come from, and which data that is (DataIdentity). A corpus is read
// and split once, here: its last tenth is held out for validation.
class BatchSource {
public:
    explicit BatchSource(const TrainConfig& c);
    const std::vector<std::string>& vocab() const { return vocab_; }
    const DataIdentity& identity() const { return identity_; }
    const std::vector<std::int64_t>& counts() const { return counts_; }  // per token id; empty for the grammar

    Batch next(Generator& gen) const;  // a training batch
    // Fixed validation batches (the same at every call), and their exact floor (NaN for a corpus).
    std::vector<Batch> validation(double* floor) const;

private:
    Batch from_stream(const std::vector<std::int64_t>& tokens, Generator& gen) const;
    const TrainConfig& config_;
    DataIdentity identity_;
    std::vector<std::int64_t> train_tokens_, val_tokens_;
    std::vector<std::string> vocab_;
    std::vector<std::int64_t> counts_;
};

// Mean loss and accuracy over the predicted (non-ignored) tokens of `batches`, in eval mode,
// without a graph. `extra` ([T, T], e.g. nn::Mask::local) is ANDed with the model's own mask
// and each batch's padding: the same weights, reading fewer keys.
Evaluation evaluate_batches(nn::Transformer& model, const std::vector<Batch>& batches, const nn::Mask& extra = nn::Mask());

// The corpus a checkpoint names is not there, or is not the text it was trained on.
struct CorpusMismatch : ValueError {
    using ValueError::ValueError;
};

// A trained model's held-out data, as its run validated it.
struct HeldOut {
    std::vector<Batch> batches;
    double floor = 0;          // the grammar's exact floor on them; NaN for a corpus
    std::string description;   // "the toy grammar's validation set: 8 batches of 16 x 32 tokens"
};

// The validation batches of the run recorded in `ck` (read from `path`): its task, batch,
// val_batches, context and mask_prob. A corpus run's text is read from `corpus` if given,
// else from the path the checkpoint records; its bytes must be the ones it was trained on.
// CorpusMismatch if the text is missing or changed, or given for a model of the grammar;
// ValueError naming the checkpoint if it records no run.
HeldOut held_out_of(const nn::LoadedCheckpoint& ck, const std::string& path, const std::string& corpus = "");

}  // namespace attnlab::lab
