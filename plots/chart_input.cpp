// chart_input.cpp — see chart_input.hpp.
#include "plots/chart_input.hpp"

#include <cmath>

#include "tensor/error.hpp"

namespace attnlab::plots {

namespace {
std::string str(std::string_view s) { return std::string(s); }
}  // namespace

std::string shape_string(const Matrix& m) {
    return "[" + std::to_string(m.size()) + " x " + std::to_string(m.empty() ? 0 : m[0].size()) + "]";
}

void check_matrix(std::string_view chart, const Matrix& m, Infinities inf) {
    if (m.empty() || m[0].empty())
        throw ValueError(str(chart) + ": the matrix is empty (" + std::to_string(m.size()) + " rows)");
    for (std::size_t r = 0; r < m.size(); ++r) {
        if (m[r].size() != m[0].size())
            throw ShapeError(str(chart) + ": ragged matrix: row " + std::to_string(r) + " has " +
                             std::to_string(m[r].size()) + " values but row 0 has " + std::to_string(m[0].size()));
        for (std::size_t c = 0; c < m[r].size(); ++c) {
            double v = m[r][c];
            bool allowed = std::isfinite(v) || (inf == Infinities::negative_masks && v < 0 && std::isinf(v));
            if (!allowed)
                throw ValueError(str(chart) + ": value at [" + std::to_string(r) + ", " + std::to_string(c) +
                                 "] of the " + shape_string(m) + " matrix is " + std::to_string(v) +
                                 (inf == Infinities::negative_masks ? " (only finite values or -inf are drawn)"
                                                                     : " (only finite values are drawn)"));
        }
    }
}

void check_label_count(std::string_view chart, std::string_view what, std::size_t count, std::size_t expected,
                       std::string_view of_what) {
    if (count != 0 && count != expected)
        throw ShapeError(str(chart) + ": " + std::to_string(count) + " " + str(what) + " for " +
                         std::to_string(expected) + " " + str(of_what));
}

void check_finite(std::string_view chart, std::string_view what, const std::vector<double>& values) {
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw ValueError(str(chart) + ": " + str(what) + "[" + std::to_string(i) + "] of " +
                             std::to_string(values.size()) + " is " + std::to_string(values[i]) +
                             " (only finite values are drawn)");
}

void check_option(std::string_view chart, std::string_view option, double value, double lo, double hi) {
    if (!(value >= lo && value <= hi))
        throw ValueError(str(chart) + ": option " + str(option) + " = " + std::to_string(value) +
                         " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

}  // namespace attnlab::plots
