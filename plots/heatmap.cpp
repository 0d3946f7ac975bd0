// heatmap.cpp — heatmap(): one matrix, its labels, colour bar and mask legend.
//
// Layout, left to right: y title | row labels | cells | colour bar and its labels;
// top to bottom: title | cells | column labels | x title | mask legend. Every band
// is measured first (heatmap_panel.hpp, colorbar.hpp), then the figure is made
// exactly big enough; if the title is the widest thing, the rest is centred under it.
#include <algorithm>
#include <cmath>

#include "plots/colorbar.hpp"
#include "plots/heatmap.hpp"
#include "plots/heatmap_panel.hpp"
#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"

namespace attnlab::plots {

using namespace heatmap_detail;
using layout::kGap;
using layout::kPad;

Figure heatmap(const Matrix& values, const HeatmapOptions& options) {
    check_matrix("heatmap", values, Infinities::negative_masks);
    check_panel_options("heatmap", values, options);

    constexpr double kMinCell = 44, kColorbarGap = 18;
    PanelGeometry g = measure_panel(values, options, kMinCell);
    auto [lo, hi] = unmasked_range({&values}, options);
    ColorbarSpec bar{options.colormap, choose_range(options.colormap, lo, hi, options.vmin, options.vmax),
                     options.colorbar_label};
    bool legend = any_masked(values, options);

    const double grid_w = g.cell * double(values[0].size()), grid_h = g.cell * double(values.size());
    const double y_title_band = options.y_title.empty() ? 0 : text_height() + kGap;
    const double x_title_band = options.x_title.empty() ? 0 : kGap + text_height();
    const double legend_band = legend ? kGap + kLegendSwatch : 0;

    double content_w = y_title_band + g.row_label_band + grid_w + kColorbarGap + colorbar_band(bar);
    // The x title and legend are centred under the grid; they may be wider than it.
    double under_grid = std::max(text_width(options.x_title), legend ? mask_legend_width(options) : 0.0);
    double overhang = std::max(0.0, (under_grid - grid_w) / 2 - (y_title_band + g.row_label_band));
    content_w += overhang;
    double title_w = text_width(options.title, layout::kTitleScale);

    Figure fig;
    fig.description = options.title.empty() ? "heatmap" : options.title;
    fig.width = layout::whole_pixels(std::max(content_w, title_w) + 2 * kPad);
    double left = std::round((fig.width - content_w) / 2 + overhang);
    double top = layout::add_title(fig, options.title, fig.width / 2.0, kPad);

    Point origin{std::round(left + y_title_band + g.row_label_band), std::round(top)};
    draw_panel(fig, origin, values, options, g, bar.range);
    if (!options.y_title.empty())
        fig.add(Text{.at = {left, origin.y + grid_h / 2}, .text = options.y_title, .halign = HAlign::center,
                     .valign = VAlign::top, .vertical = true});
    double below = origin.y + grid_h + g.col_label_band;
    if (!options.x_title.empty())
        fig.add(Text{.at = {origin.x + grid_w / 2, below + kGap}, .text = options.x_title, .halign = HAlign::center,
                     .valign = VAlign::top});
    below += x_title_band;
    if (legend) draw_mask_legend(fig, origin.x + grid_w / 2, below + kGap, options);
    below += legend_band;
    draw_colorbar(fig, {origin.x + grid_w + kColorbarGap, origin.y, kColorbarWidth, grid_h}, bar);

    fig.height = layout::whole_pixels(below + kPad);
    return fig;
}

}  // namespace attnlab::plots
