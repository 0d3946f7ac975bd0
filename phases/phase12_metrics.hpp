// phase12_metrics.hpp — what out/phase1/metrics.json and out/phase2/metrics.json must
// hold: every number issue #5 names, as dotted paths ("scaling_training.scaled.final_loss").
// Each phase checks its metrics against its list before writing them, so a phase
// that forgot a number fails instead of writing an incomplete file; the test
// checks the checker. Header-only because every .cpp in phases/ is a program.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tensor/json.hpp"

namespace attnlab::phase {

inline const std::vector<std::string> kPhase1MetricKeys{
    "seed", "tokens", "d_k", "shapes.X", "shapes.Q", "shapes.K", "shapes.V", "shapes.scores", "shapes.output",
    "scores", "scaled_scores", "weights", "row_sums", "output", "layer_check.max_abs_diff_weights",
    "layer_check.max_abs_diff_output", "sat.scaled_scores", "sat.weights", "worked_examples",
    "scaling.cells", "scaling_training.scaled.final_loss", "scaling_training.unscaled.final_loss",
    "scaling_training.scaled.loss_curve", "scaling_training.unscaled.loss_curve", "scaling_training.steps",
    "scaling_training.seed"};

inline const std::vector<std::string> kPhase2MetricKeys{
    "seed", "tokens", "parameter_counts", "shapes.q_split", "shapes.concat", "shapes.projected",
    "layer_check.max_abs_diff_weights", "layer_check.max_abs_diff_output", "weights", "heads", "head_similarity",
    "single_vs_multi.single_head_model.val_loss", "single_vs_multi.single_head_model.val_accuracy",
    "single_vs_multi.multi_head_model.val_loss", "single_vs_multi.multi_head_model.val_accuracy",
    "heads_sweep.steps", "heads_sweep.seed", "heads_sweep.results"};

// The paths of `keys` that `metrics` lacks (or that hold null).
inline std::vector<std::string> missing_keys(const Json& metrics, const std::vector<std::string>& keys) {
    std::vector<std::string> missing;
    for (const std::string& key : keys) {
        const Json* node = &metrics;
        std::string_view rest = key;
        while (node && !rest.empty()) {
            const std::size_t dot = rest.find('.');
            node = node->is_object() ? node->find(rest.substr(0, dot)) : nullptr;
            rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
        }
        if (!node || node->is_null()) missing.push_back(key);
    }
    return missing;
}

// Throws ValueError naming every missing path.
inline void require_keys(const Json& metrics, const std::vector<std::string>& keys, const std::string& what) {
    const std::vector<std::string> missing = missing_keys(metrics, keys);
    if (missing.empty()) return;
    std::string list;
    for (const std::string& k : missing) list += (list.empty() ? "" : ", ") + k;
    throw ValueError(what + ": metrics.json would lack " + list);
}

}  // namespace attnlab::phase
