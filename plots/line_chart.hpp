// line_chart.hpp — series of (x, y) points joined by lines: loss curves, timings.
//
// Several series with markers and a legend (beside the data, so it never covers
// a curve), linear or log-10 axes. With fit_slope on log-log axes each series
// also gets its least-squares line in log space, drawn dashed, and the slope in
// the legend — "time grows like n^2.0" is read straight off the figure.
// Left out: error bands, secondary axes, legends inside the plot.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

struct Series {
    std::string name{};
    std::vector<double> x{}, y{};
    std::optional<Color> color{};  // default: palette::categorical(index)
    bool markers = true;
    bool dashed = false;
};

struct LineChartOptions {
    std::string title{};
    std::string x_title{}, y_title{};
    bool log_x = false, log_y = false;
    bool fit_slope = false;  // needs log_x and log_y: fit log y = a + b log x per series
    int slope_decimals = 2;
    double plot_width = 420, plot_height = 260;
};

// Throws ValueError (no series, an empty series, non-finite values, values <= 0
// on a log axis, fit_slope without log-log axes) or ShapeError (x and y sizes differ).
Figure line_chart(const std::vector<Series>& series, const LineChartOptions& options = {});

// The least-squares slope b of log y = a + b log x (ValueError for < 2 points or values <= 0).
struct PowerFit {
    double slope = 0, intercept = 0;  // log10 y = intercept + slope * log10 x
};
PowerFit fit_power_law(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace attnlab::plots
