// line_chart.cpp — see line_chart.hpp.
#include "plots/line_chart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plots/axes.hpp"
#include "plots/chart_input.hpp"
#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

using layout::kGap;
using layout::kPad;

namespace {

constexpr double kSwatch = 24;     // legend line sample length
constexpr double kLegendRow = 16;  // legend line pitch

struct LegendEntry {
    std::string text;
    Color color;
    bool marker, dashed;
};

Stroke series_stroke(Color c, bool dashed) {
    return Stroke{.color = c, .width = 2, .cap = LineCap::round, .dash = dashed ? std::vector<double>{6, 4} : std::vector<double>{}};
}

layout::Ticks axis_ticks(double lo, double hi, bool log) {
    if (log) return layout::log_ticks(lo, hi);
    // Loss curves start at step 0 and positive data reads best from zero only when
    // close to it; otherwise let the data fill the plot.
    return layout::linear_ticks(lo, hi, 5);
}

}  // namespace

PowerFit fit_power_law(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.size() < 2)
        throw ValueError("fit_power_law: need at least 2 points with matching sizes, got " + std::to_string(x.size()) +
                         " x and " + std::to_string(y.size()) + " y");
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = double(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!(x[i] > 0) || !(y[i] > 0))
            throw ValueError("fit_power_law: point " + std::to_string(i) + " is (" + std::to_string(x[i]) + ", " +
                             std::to_string(y[i]) + "); both must be > 0");
        double lx = std::log10(x[i]), ly = std::log10(y[i]);
        sx += lx, sy += ly, sxx = std::fma(lx, lx, sxx), sxy = std::fma(lx, ly, sxy);
    }
    // The fused multiply-adds are written out, as GCC's -O2 contracts the plain formulas, so
    // that a fitted exponent phase 5 records has the same bits at any optimisation level
    // (the library's narrative folders build at -Og, which contracts nothing: see the Makefile).
    double denom = std::fma(n, sxx, -(sx * sx));
    if (std::abs(denom) < 1e-12) throw ValueError("fit_power_law: all x are equal; the slope is undefined");
    PowerFit f;
    f.slope = std::fma(-sx, sy, n * sxy) / denom;
    f.intercept = std::fma(-f.slope, sx, sy) / n;
    return f;
}

Figure line_chart(const std::vector<Series>& series, const LineChartOptions& o) {
    if (series.empty()) throw ValueError("line_chart: no series (0 given)");
    if (o.fit_slope && !(o.log_x && o.log_y))
        throw ValueError("line_chart: fit_slope needs log_x and log_y (got log_x = " + std::to_string(o.log_x) +
                         ", log_y = " + std::to_string(o.log_y) + ")");
    check_option("line_chart", "plot_width", o.plot_width, 60, 4000);
    check_option("line_chart", "plot_height", o.plot_height, 60, 4000);
    double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
    for (std::size_t s = 0; s < series.size(); ++s) {
        const Series& sr = series[s];
        if (sr.x.empty()) throw ValueError("line_chart: series " + std::to_string(s) + " ('" + sr.name + "') is empty");
        if (sr.x.size() != sr.y.size())
            throw ShapeError("line_chart: series " + std::to_string(s) + " ('" + sr.name + "') has " +
                             std::to_string(sr.x.size()) + " x values but " + std::to_string(sr.y.size()) + " y values");
        check_finite("line_chart", "series '" + sr.name + "' x", sr.x);
        check_finite("line_chart", "series '" + sr.name + "' y", sr.y);
        for (std::size_t i = 0; i < sr.x.size(); ++i) {
            if ((o.log_x && sr.x[i] <= 0) || (o.log_y && sr.y[i] <= 0))
                throw ValueError("line_chart: series '" + sr.name + "' point " + std::to_string(i) + " is (" +
                                 std::to_string(sr.x[i]) + ", " + std::to_string(sr.y[i]) +
                                 "), which a log axis cannot show");
            x_lo = std::min(x_lo, sr.x[i]), x_hi = std::max(x_hi, sr.x[i]);
            y_lo = std::min(y_lo, sr.y[i]), y_hi = std::max(y_hi, sr.y[i]);
        }
    }
    // A log x axis is a sweep (d_k, heads, T): its ticks sit at the swept values.
    std::vector<double> xs;
    if (o.log_x)
        for (const Series& sr : series) xs.insert(xs.end(), sr.x.begin(), sr.x.end());
    layout::Ticks xt = o.log_x ? layout::log_ticks_at(xs) : axis_ticks(x_lo, x_hi, false);
    layout::Ticks yt = axis_ticks(y_lo, y_hi, o.log_y);

    // Legend entries: each series, then (with fit_slope) its fitted line.
    std::vector<LegendEntry> legend;
    std::vector<PowerFit> fits;
    for (std::size_t s = 0; s < series.size(); ++s) {
        Color c = series[s].color.value_or(palette::categorical(s));
        legend.push_back({series[s].name, c, series[s].markers, series[s].dashed});
        if (o.fit_slope) {
            fits.push_back(fit_power_law(series[s].x, series[s].y));
            legend.push_back({"fit: slope " + layout::format_fixed(fits.back().slope, o.slope_decimals), c, false, true});
        }
    }
    double legend_w = 0;
    for (const auto& e : legend) legend_w = std::max(legend_w, kSwatch + 6 + text_width(e.text));

    Figure fig;
    fig.description = o.title.empty() ? "line chart" : o.title;
    double y_band = y_axis_band(yt, o.y_title);
    // The last x tick label is centred on the plot's right edge: half of it sticks out.
    double content_w = y_band + o.plot_width + std::max(text_width(xt.labels.back()) / 2, 0.0) + 2 * kGap + legend_w;
    fig.width = layout::whole_pixels(std::max(content_w, text_width(o.title, layout::kTitleScale)) + 2 * kPad);
    double left = std::round((fig.width - content_w) / 2 + y_band);
    double top = std::max(layout::add_title(fig, o.title, fig.width / 2.0, kPad), kPad + text_height() / 2);
    Box plot{left, std::round(top), o.plot_width, o.plot_height};
    Scale x{xt.lo, xt.hi, plot.x, plot.right(), o.log_x}, y{yt.lo, yt.hi, plot.bottom(), plot.y, o.log_y};
    draw_y_axis(fig, plot, y, yt, o.y_title, true);
    draw_x_axis(fig, plot, x, xt, o.x_title, true);

    // Data is clipped to the plot box (a little beyond, so markers on the edge stay round).
    Group data{.clip = Box{plot.x - 4, plot.y - 4, plot.w + 8, plot.h + 8}, .items = {}};
    for (std::size_t s = 0; s < series.size(); ++s) {
        const Series& sr = series[s];
        Color c = series[s].color.value_or(palette::categorical(s));
        if (o.fit_slope) {
            const PowerFit& f = fits[s];
            // Drawn a little past the data at both ends, so the dashes show beside the markers.
            double a = *std::min_element(sr.x.begin(), sr.x.end()), b = *std::max_element(sr.x.begin(), sr.x.end());
            double reach = std::pow(b / a, 0.04);
            a /= reach, b *= reach;
            auto at = [&](double xv) { return Point{x(xv), y(std::pow(10.0, f.intercept + f.slope * std::log10(xv)))}; };
            data.add(Polyline{{at(a), at(b)}, Stroke{.color = with_alpha(c, 0.6), .width = 1.5, .dash = {6, 4}}});
        }
        std::vector<Point> pts;
        for (std::size_t i = 0; i < sr.x.size(); ++i) pts.push_back({x(sr.x[i]), y(sr.y[i])});
        data.add(Polyline{pts, series_stroke(c, sr.dashed)});
        if (sr.markers)
            for (const Point& p : pts)
                data.add(Circle{.center = p, .radius = 3.5, .fill = c, .stroke = Stroke{.color = palette::white, .width = 1}});
    }
    fig.add(std::move(data));

    // Legend, top-aligned with the plot, right of it.
    double lx = plot.right() + std::max(text_width(xt.labels.back()) / 2, 0.0) + 2 * kGap, ly = plot.y + 6;
    for (const auto& e : legend) {
        fig.add(Line{{lx, ly}, {lx + kSwatch, ly}, series_stroke(e.color, e.dashed)});
        if (e.marker)
            fig.add(Circle{.center = {lx + kSwatch / 2, ly}, .radius = 3.5, .fill = e.color,
                           .stroke = Stroke{.color = palette::white, .width = 1}});
        fig.add(Text{.at = {lx + kSwatch + 6, ly}, .text = e.text, .valign = VAlign::middle});
        ly += kLegendRow;
    }
    fig.height = layout::whole_pixels(std::max(plot.bottom() + x_axis_band(o.x_title), ly) + kPad);
    return fig;
}

}  // namespace attnlab::plots
