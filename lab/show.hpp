// show.hpp — drawing what a model attends to, for any model and any text: the figures
// `tinygpt show` and `tinygpt generate --show` write.
//
//   attention_heads      every layer × every head, one heatmap each (rows: layers)
//   attention_flow       every layer × head as query -> key lines, width = weight
//   attention_rollout    the last layer (heads averaged) beside the rollout through all layers
//   attention_entropy    mean entropy of each head's rows (0 = one key, ln T = uniform)
// Each as .svg and .png in the output folder, from one sequence's weights. write_explorer
// puts any number of sequences into the explorer page (lab/explorer/), as phase 3 does.
#pragma once
#include <string>
#include <vector>

#include "plots/chart_input.hpp"
#include "plots/scene.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::lab {

struct AttentionOf {
    std::string title;                // "causal_model on \"the cat sat\""
    std::string text;                 // the text itself, as the explorer lists it
    std::vector<std::string> tokens;  // one per position
    std::vector<Tensor> layers;       // layers[l]: [H, T, T], rows sum to 1 (0 where fully masked)
};

// Checks the shapes (ShapeError naming the layer) and the values (ValueError: outside [0, 1]).
void check(const AttentionOf& a);

// Writes the four figures into dir (created); returns their stems ("dir/attention_heads", ...).
std::vector<std::string> draw_attention(const AttentionOf& a, const std::string& dir);

// One figure per layer, heads averaged: the rows of the generated positions (from
// `first_generated` on) against every position before them: what each new token read.
std::vector<std::string> draw_generation(const AttentionOf& a, std::size_t first_generated, const std::string& dir);

// dir/explorer.html (self-contained) and dir/explorer_data.json: one model (`name`; `causal`
// greys the blocked pairs) on every sequence of `sequences` (same layer and head counts).
// Returns the page's path.
std::string write_explorer(const std::string& name, bool causal, const std::vector<AttentionOf>& sequences, const std::string& dir);

// A 2-D tensor as a plots::Matrix (rows of doubles).
plots::Matrix to_matrix(const Tensor& t);

}  // namespace attnlab::lab
