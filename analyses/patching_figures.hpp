// patching_figures.hpp — activation patching's results as heatmaps and tables (analyses/patching.hpp):
// phase 6 and `tinygpt patch` draw and print them the same way. Values are shown in percent of the logit
// difference restored, on a diverging scale centred on 0 (blue: patching pushes the other way).
#pragma once
#include <string>
#include <vector>

#include "app/report.hpp"
#include "plots/scene.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::lab {

// The colour range, in percent, that shows every fraction of `results` and at least ±100 %.
double patching_range(const std::vector<Tensor>& results);

// residual [L, T] fractions -> rows "after L1" ..., one column per position (labels: its tokens).
plots::Figure patching_residual_heatmap(const Tensor& residual, const std::vector<std::string>& labels,
                                        const std::string& title, double range);

// residual [L, T] fractions, printed (header and rows, indented) and kept: one row per layer,
// one column per position, keyed position_0, position_1, ... in metrics.
Table patching_residual_table(const Tensor& residual, const std::vector<std::string>& labels);

// One panel per [L, H] result (each head's output at the last position), on one colour scale.
plots::Figure patching_heads_heatmap(const std::vector<Tensor>& panels, const std::vector<std::string>& panel_titles,
                                     const std::string& title);

}  // namespace attnlab::lab
