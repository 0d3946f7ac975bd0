// bar_chart.hpp — labelled bars with their values written on them.
//
// Vertical bars (categories along x) or horizontal bars (categories down the
// left, for long names). The value axis always includes zero, so bar lengths
// compare honestly. An optional dashed reference line marks a value such as the
// maximum possible entropy, with its label outside the data area where it cannot
// cover a bar. Left out: grouped and stacked bars, error bars.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

struct BarChartOptions {
    std::string title{};
    std::string value_title{};     // e.g. "entropy (nats)"
    std::string category_title{};  // e.g. "head"
    bool horizontal = false;
    bool value_labels = true;
    int decimals = 2;
    Color color = palette::categorical(0);
    std::optional<double> reference{};  // draws a dashed line at this value
    std::string reference_label{};      // e.g. "uniform max ln 6"
    std::optional<double> value_max{};  // the value axis reaches at least this: several charts on one scale
    double plot_length = 260;         // pixels along the value axis
};

// Throws ValueError (no bars, non-finite values) or ShapeError (label count differs).
Figure bar_chart(const std::vector<std::string>& labels, const std::vector<double>& values,
                 const BarChartOptions& options = {});

}  // namespace attnlab::plots
