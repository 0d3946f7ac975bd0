// heatmap_grid.cpp — heatmap_grid(): one panel per head, shared colour range.
//
// Panels sit on a rows x columns grid; each has its title above and its own row
// and column labels (so any panel can be read alone), the axis titles appear once
// for the whole grid, and one colour bar on the right spans all rows. Because all
// panels share one Normalizer, equal colours mean equal weights across heads.
#include <algorithm>
#include <cmath>

#include "plots/colorbar.hpp"
#include "plots/heatmap.hpp"
#include "plots/heatmap_panel.hpp"
#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

using namespace heatmap_detail;
using layout::kGap;
using layout::kPad;

Figure heatmap_grid(const std::vector<Matrix>& panels, const HeatmapGridOptions& options) {
    if (panels.empty()) throw ValueError("heatmap_grid: no panels (0 matrices)");
    for (std::size_t i = 0; i < panels.size(); ++i) {
        check_matrix("heatmap_grid", panels[i], Infinities::negative_masks);
        if (panels[i].size() != panels[0].size() || panels[i][0].size() != panels[0][0].size())
            throw ShapeError("heatmap_grid: panel " + std::to_string(i) + " is " + shape_string(panels[i]) +
                             " but panel 0 is " + shape_string(panels[0]));
    }
    check_panel_options("heatmap_grid", panels[0], options);
    check_label_count("heatmap_grid", "panel titles", options.panel_titles.size(), panels.size(), "panels");
    check_option("heatmap_grid", "columns", options.columns, 0, 64);

    check_option("heatmap_grid", "max_width", options.max_width, 0.0, 1e6);

    const int count = static_cast<int>(panels.size());
    int cols = options.columns > 0 ? std::min(options.columns, count)
                                   : static_cast<int>(std::ceil(std::sqrt(double(count))));
    std::vector<std::string> titles = options.panel_titles;
    for (int i = static_cast<int>(titles.size()); i < count; ++i) titles.push_back("Head " + std::to_string(i + 1));

    constexpr double kMinCell = 26, kPanelGap = 22, kColorbarGap = 18;
    PanelGeometry g = measure_panel(panels[0], options, kMinCell);
    std::vector<const Matrix*> all;
    for (const Matrix& m : panels) all.push_back(&m);
    auto [lo, hi] = unmasked_range(all, options);
    ColorbarSpec bar{options.colormap, choose_range(options.colormap, lo, hi, options.vmin, options.vmax),
                     options.colorbar_label};
    bool legend = std::any_of(panels.begin(), panels.end(), [&](const Matrix& m) { return any_masked(m, options); });

    const double grid_w = g.cell * double(panels[0][0].size()), grid_h = g.cell * double(panels[0].size());
    // A panel's cell width must also hold its title.
    const double panel_w = std::max(g.row_label_band + grid_w, layout::max_text_width(titles) + 4);
    const double panel_title_band = text_height() + 6;
    const double panel_h = panel_title_band + grid_h + g.col_label_band;
    const double y_title_band = options.y_title.empty() ? 0 : text_height() + kGap;

    // The content's width with `c` panels a row: the panels, the y title and colour bar
    // beside them, and what hangs out under them (x title, mask legend) when it is wider.
    const double under = std::max(text_width(options.x_title), legend ? mask_legend_width(options) : 0.0);
    auto overhang_at = [&](int c) { return std::max(0.0, (under - (c * panel_w + (c - 1) * kPanelGap)) / 2 - y_title_band); };
    auto content_at = [&](int c) {
        return y_title_band + c * panel_w + (c - 1) * kPanelGap + kColorbarGap + colorbar_band(bar) + 2 * overhang_at(c);
    };
    while (cols > 1 && options.max_width > 0 && content_at(cols) + 2 * kPad > options.max_width) --cols;
    const int rows = (count + cols - 1) / cols;
    const double panels_w = cols * panel_w + (cols - 1) * kPanelGap;
    const double panels_h = rows * panel_h + (rows - 1) * kPanelGap;
    const double overhang = overhang_at(cols);
    const double content_w = content_at(cols);

    layout::check_size("heatmap_grid", std::max(content_w, text_width(options.title, layout::kTitleScale)) + 2 * kPad,
                       layout::title_band(options.title) + panels_h + 2 * kPad);
    Figure fig;
    fig.description = options.title.empty() ? "heatmap grid" : options.title;
    fig.width = layout::whole_pixels(std::max(content_w, text_width(options.title, layout::kTitleScale)) + 2 * kPad);
    double left = std::round((fig.width - content_w) / 2 + overhang);
    double top = layout::add_title(fig, options.title, fig.width / 2.0, kPad);
    double panels_x = left + y_title_band;

    for (int i = 0; i < count; ++i) {
        int r = i / cols, c = i % cols;
        double px = panels_x + c * (panel_w + kPanelGap), py = top + r * (panel_h + kPanelGap);
        // Right-align the grid in its cell so row labels share the left margin.
        Point origin{std::round(px + panel_w - grid_w), std::round(py + panel_title_band)};
        fig.add(Text{.at = {origin.x + grid_w / 2, py}, .text = titles[i], .halign = HAlign::center,
                     .valign = VAlign::top});
        draw_panel(fig, origin, panels[i], options, g, bar.range);
    }
    if (!options.y_title.empty())
        fig.add(Text{.at = {left, top + panels_h / 2}, .text = options.y_title, .halign = HAlign::center,
                     .valign = VAlign::top, .vertical = true});
    double below = top + panels_h;
    if (!options.x_title.empty()) {
        fig.add(Text{.at = {panels_x + panels_w / 2, below + kGap}, .text = options.x_title,
                     .halign = HAlign::center, .valign = VAlign::top});
        below += kGap + text_height();
    }
    if (legend) {
        draw_mask_legend(fig, panels_x + panels_w / 2, below + kGap, options);
        below += kGap + kLegendSwatch;
    }
    draw_colorbar(fig, {std::round(panels_x + panels_w + kColorbarGap), std::round(top + panel_title_band),
                        kColorbarWidth, std::round(panels_h - panel_title_band - g.col_label_band)},
                  bar);
    fig.height = layout::whole_pixels(below + kPad);
    return fig;
}

}  // namespace attnlab::plots
