// bar_chart.cpp — see bar_chart.hpp.
//
// Both orientations share one plan: measure labels, choose a slot size per bar,
// make a nice value axis that includes 0 and the reference, widen it by a step if
// the longest bar's value label would not fit, then place everything.
#include "plots/bar_chart.hpp"

#include <algorithm>
#include <cmath>

#include "plots/axes.hpp"
#include "plots/chart_input.hpp"
#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

using layout::kGap;
using layout::kPad;

namespace {

constexpr double kValueLabelGap = 4;

// Nice ticks over [min(0, values, ref), max(0, values, ref)], widened by one step
// while a value label would stick out past the end of the axis.
layout::Ticks value_ticks(const std::vector<double>& values, const BarChartOptions& o, double label_room) {
    double lo = 0, hi = 0;
    for (double v : values) lo = std::min(lo, v), hi = std::max(hi, v);
    if (o.reference) lo = std::min(lo, *o.reference), hi = std::max(hi, *o.reference);
    if (o.value_max) hi = std::max(hi, *o.value_max);
    layout::Ticks t = layout::linear_ticks(lo, hi, 5);
    double step = t.values.size() > 1 ? t.values[1] - t.values[0] : 1;
    for (int guard = 0; guard < 4; ++guard) {
        double px_per_unit = o.plot_length / (t.hi - t.lo);
        bool fits = true;
        for (double v : values) {
            if (!o.value_labels) break;
            if (v >= 0 && (t.hi - v) * px_per_unit < label_room) fits = false;
            if (v < 0 && (v - t.lo) * px_per_unit < label_room) fits = false;
        }
        if (fits) break;
        bool top = hi > 0 && (t.hi - hi) * px_per_unit < label_room;
        t = layout::linear_ticks(top ? t.lo : t.lo - step, top ? t.hi + step : t.hi, 5);
    }
    return t;
}

}  // namespace

Figure bar_chart(const std::vector<std::string>& labels, const std::vector<double>& values,
                 const BarChartOptions& o) {
    if (values.empty()) throw ValueError("bar_chart: no bars (0 values)");
    check_finite("bar_chart", "values", values);
    if (labels.size() != values.size())
        throw ShapeError("bar_chart: " + std::to_string(labels.size()) + " labels for " +
                         std::to_string(values.size()) + " values");
    if (o.reference) check_finite("bar_chart", "reference", {*o.reference});
    if (o.value_max) check_finite("bar_chart", "value_max", {*o.value_max});
    check_option("bar_chart", "plot_length", o.plot_length, 40, 4000);
    check_option("bar_chart", "decimals", o.decimals, 0, 6);

    std::vector<std::string> value_text;
    for (double v : values) value_text.push_back(layout::format_fixed(v, o.decimals));
    const double value_w = o.value_labels ? layout::max_text_width(value_text) : 0;
    const double label_w = layout::max_text_width(labels);
    const double n = double(values.size());

    Figure fig;
    fig.description = o.title.empty() ? "bar chart" : o.title;
    const Stroke ref_stroke{.color = palette::highlight, .width = 1.5, .dash = {6, 4}};
    const double ref_label_w = o.reference ? text_width(o.reference_label) : 0;

    if (!o.horizontal) {
        // Slot per bar: wide enough for its value label; category labels turn if they do not fit.
        double slot = std::max(40.0, value_w + 14);
        if (label_w + 8 > slot && label_w + 8 <= 90) slot = label_w + 8;
        bool turned = label_w + 8 > slot;
        layout::Ticks t = value_ticks(values, o, text_height() + kValueLabelGap + 2);
        double cat_band = 6 + (turned ? label_w : text_height()) +
                          (o.category_title.empty() ? 0 : kGap + text_height());
        double left = kPad + y_axis_band(t, o.value_title);
        double plot_w = slot * n;
        double right_band = o.reference && !o.reference_label.empty() ? 6 + ref_label_w : 0;
        double content_w = left - kPad + plot_w + right_band;
        fig.width = layout::whole_pixels(std::max(content_w, text_width(o.title, layout::kTitleScale)) + 2 * kPad);
        left = std::round((fig.width - content_w) / 2 + left - kPad);
        double top = layout::add_title(fig, o.title, fig.width / 2.0, kPad);
        top = std::max(top, kPad + text_height() / 2);  // room for the top tick label
        Box plot{left, std::round(top), plot_w, o.plot_length};
        Scale y{t.lo, t.hi, plot.bottom(), plot.y};
        draw_y_axis(fig, plot, y, t, o.value_title, true);
        for (std::size_t i = 0; i < values.size(); ++i) {
            double cx = plot.x + (double(i) + 0.5) * slot, bw = std::round(slot * 0.7);
            double y0 = y(0), y1 = y(values[i]);
            fig.add(Rect{.box = {std::round(cx - bw / 2), std::min(y0, y1), bw, std::abs(y1 - y0)}, .fill = o.color});
            if (o.value_labels)
                fig.add(Text{.at = {cx, values[i] >= 0 ? y1 - kValueLabelGap : y1 + kValueLabelGap},
                             .text = value_text[i], .halign = HAlign::center,
                             .valign = values[i] >= 0 ? VAlign::baseline : VAlign::top});
            Point at{cx, plot.bottom() + 6};
            if (turned)
                fig.add(Text{.at = at, .text = labels[i], .halign = HAlign::right, .valign = VAlign::middle,
                             .vertical = true});
            else
                fig.add(Text{.at = at, .text = labels[i], .halign = HAlign::center, .valign = VAlign::top});
        }
        // The zero line drawn over the bars' bases, so negative bars read as below it.
        fig.add(Line{{plot.x, layout::crisp(y(0))}, {plot.right(), layout::crisp(y(0))}, Stroke{.color = palette::ink}});
        if (o.reference) {
            double ry = y(*o.reference);
            fig.add(Line{{plot.x, ry}, {plot.right(), ry}, ref_stroke});
            if (!o.reference_label.empty())
                fig.add(Text{.at = {plot.right() + 6, ry}, .text = o.reference_label, .color = palette::highlight,
                             .valign = VAlign::middle});
        }
        if (!o.category_title.empty())
            fig.add(Text{.at = {plot.x + plot.w / 2, plot.bottom() + cat_band}, .text = o.category_title,
                         .halign = HAlign::center, .valign = VAlign::bottom});
        fig.height = layout::whole_pixels(plot.bottom() + cat_band + kPad);
        return fig;
    }

    // Horizontal: categories down the left, values along the bottom.
    const double slot = 26;
    layout::Ticks t = value_ticks(values, o, value_w + kValueLabelGap + 2);
    double cat_band = label_w + 6 + (o.category_title.empty() ? 0 : kGap + text_height());
    double plot_h = slot * n;
    double ref_band = o.reference && !o.reference_label.empty() ? text_height() + 6 : 0;
    double content_w = cat_band + o.plot_length + text_width(t.labels.back()) / 2;
    fig.width = layout::whole_pixels(std::max(content_w, text_width(o.title, layout::kTitleScale)) + 2 * kPad);
    double left = std::round((fig.width - content_w) / 2 + cat_band);
    double top = layout::add_title(fig, o.title, fig.width / 2.0, kPad) + ref_band;
    Box plot{left, std::round(top), o.plot_length, plot_h};
    Scale x{t.lo, t.hi, plot.x, plot.right()};
    draw_x_axis(fig, plot, x, t, o.value_title, true);
    for (std::size_t i = 0; i < values.size(); ++i) {
        double cy = plot.y + (double(i) + 0.5) * slot, bh = std::round(slot * 0.68);
        double x0 = x(0), x1 = x(values[i]);
        fig.add(Rect{.box = {std::min(x0, x1), std::round(cy - bh / 2), std::abs(x1 - x0), bh}, .fill = o.color});
        if (o.value_labels)
            fig.add(Text{.at = {values[i] >= 0 ? x1 + kValueLabelGap : x1 - kValueLabelGap, cy},
                         .text = value_text[i], .halign = values[i] >= 0 ? HAlign::left : HAlign::right,
                         .valign = VAlign::middle});
        fig.add(Text{.at = {plot.x - 6, cy}, .text = labels[i], .halign = HAlign::right, .valign = VAlign::middle});
    }
    fig.add(Line{{layout::crisp(x(0)), plot.y}, {layout::crisp(x(0)), plot.bottom()}, Stroke{.color = palette::ink}});
    if (o.reference) {
        double rx = x(*o.reference);
        fig.add(Line{{rx, plot.y}, {rx, plot.bottom()}, ref_stroke});
        if (!o.reference_label.empty()) {
            // Centred over the line, but never past the figure's edges.
            double cx = std::clamp(rx, kPad + ref_label_w / 2, fig.width - kPad - ref_label_w / 2);
            fig.add(Text{.at = {cx, plot.y - 6}, .text = o.reference_label, .color = palette::highlight,
                         .halign = HAlign::center, .valign = VAlign::bottom});
        }
    }
    if (!o.category_title.empty())
        fig.add(Text{.at = {plot.x - cat_band, plot.y + plot.h / 2}, .text = o.category_title,
                     .halign = HAlign::center, .valign = VAlign::top, .vertical = true});
    fig.height = layout::whole_pixels(plot.bottom() + x_axis_band(o.value_title) + kPad);
    return fig;
}

}  // namespace attnlab::plots
