// chart_input.hpp — the data types charts accept and the checks they all run.
//
// Charts take plain standard containers (so plots/ does not depend on the tensor
// library) and validate them before drawing anything: an empty matrix or a value
// that cannot be drawn is a ValueError, sizes that do not fit together are a
// ShapeError. Every message starts with the chart's name and gives the sizes, e.g.
//   "heatmap: 5 row labels for 6 rows".
// Left out: coercion (NaN is never silently skipped). To add a check, add a
// function here so every chart words it the same way.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::plots {

using Matrix = std::vector<std::vector<double>>;

enum class Infinities {
    rejected,        // every value must be finite
    negative_masks,  // -inf is allowed and means "masked" (what a causal mask leaves in the scores)
};

// Non-empty, rectangular, no NaN, no +inf; -inf only if allowed.
void check_matrix(std::string_view chart, const Matrix& m, Infinities inf = Infinities::rejected);
// A list of labels must be empty (= use numbers) or have exactly `expected` entries.
void check_label_count(std::string_view chart, std::string_view what, std::size_t count, std::size_t expected,
                       std::string_view of_what);
// Every value finite; `what` names the list in the message.
void check_finite(std::string_view chart, std::string_view what, const std::vector<double>& values);
// An option that must lie in [lo, hi].
void check_option(std::string_view chart, std::string_view option, double value, double lo, double hi);

// "[rows x cols]" of a matrix already checked to be rectangular.
std::string shape_string(const Matrix& m);

}  // namespace attnlab::plots
