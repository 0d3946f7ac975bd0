// gallery_order.hpp — the order in which out/index.html shows each phase's figures: the
// figure that sums the phase up first (the one the summary sheet redraws), then the rest in
// the order the phase draws them, which is the order of its steps. tools/gallery.cpp reads
// it; tests/tools/test_gallery.cpp checks that every name here is a figure its phase draws
// and that the page follows this order.
//
// To add a figure: put its name (the stem its phase passes to Output::figure or ::animation)
// after the figures of the steps before it. A figure missing here still appears, after the
// listed ones, by name.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

namespace attnlab::gallery {

inline const std::map<int, std::vector<std::string>>& figure_order() {
    static const std::map<int, std::vector<std::string>> order = {
        {1, {"attention_heatmap",                                                     // 2. the matrix form
             "qkv_flow",                                                              // 3. the flow for one token
             "scaling_variance", "scaling_saturation", "scaling_gradients", "scaling_training",  // 5. why sqrt(d_k)
             "permutation_equivariance",                                              // 6.
             "three_tokens", "random_self_attention",                                 // 7, 8. nothing learned
             "autograd_graph"}},                                                      // 9. the graph backward() walks
        {2, {"multi_head_grid",                                                       // 2. one heatmap per head
             "attention_entropy", "head_specialization", "head_similarity",           // 3, 4.
             "concat_projection",                                                     // 5.
             "single_vs_multi_parameters", "heads_sweep", "heads_time_per_step",      // 6b, 6c.
             "untrained_dropout", "structured_embeddings_heads", "three_cases", "untrained_single_vs_multi"}},  // 7a-7d.
        {3, {"attention_rollout",                                                     // 4. (the summary's figure)
             "attention_flow", "3d_attention",                                        // 2, 3.
             "attention_distance", "head_types",                                      // 5, 7.
             "attention_gradients", "gradient_weighted_rollout"}},                    // 8.
        {4, {"causal_mask",                                                           // 1. the causal mask
             "bidirectional_vs_causal",                                               // 2.
             "causality_experiment", "causality_table",                               // 4. break causality
             "padding_mask", "combined_mask", "custom_masks",                         // 6, 7.
             "entropy_evolution", "head_pruning", "pruning_to_minimum",               // 8, 8b.
             "attention_while_it_learns", "attention_while_it_learns_animated",       // 9.
             "experimental_setting_heads",                                            // 10.
             "model_graph", "model_graph_attention"}},                                // 11.
        {5, {"reversal_attention",                                                    // 6. the alignment it learned
             "positional_encoding", "positional_encoding_dims",                       // 4.
             "reversal_attention_digits",                                             // 6.
             "attention_vs_none", "attention_vs_none_by_length",                      // 7.
             "scoring_functions", "scoring_accuracy",                                 // 8.
             "sparse_attention_loss", "sparse_attention", "sparse_attention_weights", // 9.
             "attention_cost", "fused_attention_cost", "online_softmax",              // 10, 11.
             "hard_vs_soft", "attention_dropout", "learned_vs_sinusoidal",            // 12, 12b, 13.
             "architectures_accuracy", "architectures_gradient", "architectures_time"}},  // 14.
        {6, {"induction_heads_before_after",                                          // 1. the two heads of the circuit
             "induction_loss", "induction_scores", "induction_heads_animated",        // 1.
             "patching_residual", "patching_heads",                                   // 2. activation patching
             "logit_lens", "logit_lens_kl",                                           // 3. the logit lens
             "sampling"}},                                                            // 4. temperature, top-k, top-p
    };
    return order;
}

// The figures of `phase` to show, out of the stems it wrote: the listed ones in their order,
// then any others by name.
inline std::vector<std::string> ordered_figures(int phase, const std::set<std::string>& stems) {
    std::vector<std::string> shown;
    std::set<std::string> rest = stems;
    const auto listed = figure_order().find(phase);
    if (listed != figure_order().end())
        for (const std::string& name : listed->second)
            if (rest.erase(name)) shown.push_back(name);
    shown.insert(shown.end(), rest.begin(), rest.end());
    return shown;
}

}  // namespace attnlab::gallery
