// colorbar.cpp — see colorbar.hpp.
#include "plots/colorbar.hpp"

#include <algorithm>
#include <cmath>

#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"

namespace attnlab::plots {

namespace {
constexpr double kBarLabelGap = 3;
layout::Ticks bar_ticks(const ColorbarSpec& spec) { return layout::linear_ticks(spec.range.lo, spec.range.hi, 5, false); }
}  // namespace

double colorbar_band(const ColorbarSpec& spec) {
    double w = kColorbarWidth + layout::kTick + kBarLabelGap + layout::max_text_width(bar_ticks(spec).labels);
    if (!spec.label.empty()) w += layout::kGap + text_height();
    return w;
}

void draw_colorbar(Figure& figure, const Box& bar, const ColorbarSpec& spec) {
    // Bands of whole pixels, top = high values; each band overlaps the next by half
    // a pixel so SVG viewers that anti-alias edges show no seams between them.
    int steps = std::max(1, static_cast<int>(bar.h / 2));
    for (int i = 0; i < steps; ++i) {
        double y0 = bar.y + bar.h * i / steps, y1 = bar.y + bar.h * (i + 1) / steps;
        double t = 1.0 - (i + 0.5) / steps;
        figure.add(Rect{.box = {bar.x, y0, bar.w, y1 - y0 + (i + 1 < steps ? 0.5 : 0)},
                        .fill = sample(spec.map, t)});
    }
    figure.add(Rect{.box = {layout::crisp(bar.x) - 0.5, layout::crisp(bar.y) - 0.5, bar.w, bar.h},
                    .stroke = Stroke{.color = palette::frame}});
    layout::Ticks ticks = bar_ticks(spec);
    for (std::size_t i = 0; i < ticks.values.size(); ++i) {
        double y = bar.bottom() - spec.range(ticks.values[i]) * bar.h;
        double py = layout::crisp(y);
        figure.add(Line{{bar.right(), py}, {bar.right() + layout::kTick, py}, Stroke{.color = palette::ink}});
        figure.add(Text{.at = {bar.right() + layout::kTick + kBarLabelGap, y}, .text = ticks.labels[i],
                        .valign = VAlign::middle});
    }
    if (!spec.label.empty())
        figure.add(Text{.at = {bar.x + colorbar_band(spec), bar.y + bar.h / 2}, .text = spec.label,
                        .halign = HAlign::center, .valign = VAlign::bottom, .vertical = true});
}

}  // namespace attnlab::plots
