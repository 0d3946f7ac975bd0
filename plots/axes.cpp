// axes.cpp — see axes.hpp.
#include "plots/axes.hpp"

#include <cmath>

#include "plots/text_metrics.hpp"

namespace attnlab::plots {

using layout::crisp;
using layout::kGap;
using layout::kTick;

namespace {
constexpr double kLabelGap = 3;  // tick end to its label
}

double Scale::operator()(double v) const {
    double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return from + (to - from) * t;
}

double y_axis_band(const layout::Ticks& ticks, const std::string& title) {
    double band = kTick + kLabelGap + layout::max_text_width(ticks.labels);
    if (!title.empty()) band += kGap + text_height();
    return band;
}

double x_axis_band(const std::string& title) {
    double band = kTick + kLabelGap + text_height();
    if (!title.empty()) band += kGap + text_height();
    return band;
}

void draw_y_axis(Figure& figure, const Box& plot, const Scale& y, const layout::Ticks& ticks,
                 const std::string& title, bool grid) {
    double axis_x = crisp(plot.x);
    for (std::size_t i = 0; i < ticks.values.size(); ++i) {
        double py = crisp(y(ticks.values[i]));
        if (grid) figure.add(Line{{axis_x, py}, {plot.right(), py}, Stroke{.color = palette::grid}});
        figure.add(Line{{axis_x - kTick, py}, {axis_x, py}, Stroke{.color = palette::ink}});
        figure.add(Text{.at = {plot.x - kTick - kLabelGap, y(ticks.values[i])}, .text = ticks.labels[i],
                        .halign = HAlign::right, .valign = VAlign::middle});
    }
    figure.add(Line{{axis_x, plot.y}, {axis_x, plot.bottom()}, Stroke{.color = palette::ink}});
    if (!title.empty())
        figure.add(Text{.at = {plot.x - y_axis_band(ticks, title), plot.y + plot.h / 2}, .text = title,
                        .halign = HAlign::center, .valign = VAlign::top, .vertical = true});
}

void draw_x_axis(Figure& figure, const Box& plot, const Scale& x, const layout::Ticks& ticks,
                 const std::string& title, bool grid) {
    double axis_y = crisp(plot.bottom());
    for (std::size_t i = 0; i < ticks.values.size(); ++i) {
        double px = crisp(x(ticks.values[i]));
        if (grid) figure.add(Line{{px, plot.y}, {px, axis_y}, Stroke{.color = palette::grid}});
        figure.add(Line{{px, axis_y}, {px, axis_y + kTick}, Stroke{.color = palette::ink}});
        figure.add(Text{.at = {x(ticks.values[i]), plot.bottom() + kTick + kLabelGap}, .text = ticks.labels[i],
                        .halign = HAlign::center, .valign = VAlign::top});
    }
    figure.add(Line{{plot.x, axis_y}, {plot.right(), axis_y}, Stroke{.color = palette::ink}});
    if (!title.empty())
        figure.add(Text{.at = {plot.x + plot.w / 2, plot.bottom() + x_axis_band(title)}, .text = title,
                        .halign = HAlign::center, .valign = VAlign::bottom});
}

}  // namespace attnlab::plots
