// head_analysis.hpp — what each head of a multi-head layer does, in a few numbers
// (entropy, self, local, global), and the heads sweep (the same model with 1, 2, 4, ... heads at a fixed d_model).
//
// A head's pattern is its [T, T] weights on one sequence (query i at position i).
// Per head, each a mean over the T queries:
//   entropy   −Σ_j w_ij ln w_ij (nats); ln T is uniform attention, 0 one key only
//   self      w_ii                        attention to itself ("self")
//   local     Σ_{|i−j|≤1} w_ij            itself and its neighbours ("local")
//   global    1 − local                   everything further away ("global")
//   previous  w_{i,i−1}                   the previous token (0 for the first query)
// A head is called focused when its entropy is below ½ ln T — it spreads its weight
// over fewer than √T keys' worth (e^entropy is the "effective number of keys") —
// and diffuse otherwise. The threshold is a convention, stated wherever it is used.
#pragma once
#include <string>
#include <vector>

#include "training/train.hpp"

namespace attnlab::lab {

struct HeadProfile {
    std::vector<double> entropy, self, local, global, previous;  // one entry per head
    std::vector<std::string> kind;                               // "focused" | "diffuse"
    double max_entropy = 0;                                      // ln T
};

// weights [H, T, T] (rows sum to 1) -> one profile entry per head.
HeadProfile profile_heads(const Tensor& weights);

struct SweepPoint {
    std::int64_t n_heads = 0, d_k = 0;
    std::int64_t parameters = 0;  // of the whole model (the same for every H: 4·d² + 4·d per layer)
    Evaluation eval;              // validation loss / accuracy / Bayes floor after training
    double seconds = 0;           // wall-clock training time
    std::vector<double> losses;   // the training loss of every step (lab::far_from_trained reads it)
};

// Trains `base` once per head count (everything else — steps, data, seed — equal)
// and evaluates each on the task's fixed validation batches.
std::vector<SweepPoint> heads_sweep(const TrainConfig& base, const std::vector<std::int64_t>& heads);

}  // namespace attnlab::lab
