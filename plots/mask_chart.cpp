// mask_chart.cpp — see mask_chart.hpp.
//
// Layout, left to right: y title | per panel (row labels | cells) | ...; top to
// bottom: title | panel titles | cells | column labels | x title | legend. The
// panel itself (cells, labels, frame) is heatmap's (heatmap_panel.hpp), drawn
// with the grey map over "blocked" = 1 − allowed, so 0 -> white and 1 -> black;
// then each cell gets the mask's own 0/1 written in the contrasting colour.
#include "plots/mask_chart.hpp"

#include <algorithm>
#include <cmath>

#include "plots/heatmap_panel.hpp"
#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

using namespace heatmap_detail;
using layout::kGap;
using layout::kPad;

namespace {
constexpr double kMinCell = 26, kPanelGap = 28, kLegendGap = 24;

// One legend entry: a framed swatch and its label; returns the x after it.
double legend_entry(Figure& fig, double x, double top, Color fill, const std::string& label) {
    Box swatch{x, top, kLegendSwatch, kLegendSwatch};
    fig.add(Rect{.box = swatch, .fill = fill, .stroke = Stroke{.color = palette::frame}});
    fig.add(Text{.at = {swatch.right() + 6, swatch.center().y}, .text = label, .valign = VAlign::middle});
    return swatch.right() + 6 + text_width(label);
}
}  // namespace

Figure mask_chart(const std::vector<Matrix>& masks, const MaskChartOptions& options) {
    if (masks.empty()) throw ValueError("mask_chart: no masks (0 panels)");
    for (std::size_t p = 0; p < masks.size(); ++p) {
        check_matrix("mask_chart", masks[p]);
        if (masks[p].size() != masks[0].size() || masks[p][0].size() != masks[0][0].size())
            throw ShapeError("mask_chart: panel " + std::to_string(p) + " is " + shape_string(masks[p]) +
                             " but panel 0 is " + shape_string(masks[0]));
        for (const auto& row : masks[p])
            for (double v : row)
                if (v != 0 && v != 1)
                    throw ValueError("mask_chart: panel " + std::to_string(p) + " holds " + std::to_string(v) +
                                     "; a mask holds only 0 (blocked) and 1 (allowed)");
    }
    check_label_count("mask_chart", "panel titles", options.panel_titles.size(), masks.size(), "panels");
    for (const auto* per_panel : {&options.panel_row_labels, &options.panel_col_labels})
        check_label_count("mask_chart", "per-panel label lists", per_panel->size(), masks.size(), "panels");

    // Per panel: the heatmap options it is drawn with, and its measured geometry.
    const std::size_t n = masks.size();
    std::vector<HeatmapOptions> panel_options(n);
    std::vector<PanelGeometry> geometry(n);
    std::vector<Matrix> blocked(n, masks[0]);
    double title_w = 0, panels_w = 0, panel_h = 0;
    for (std::size_t p = 0; p < n; ++p) {
        HeatmapOptions& o = panel_options[p];
        o.colormap = Colormap::greys;
        o.row_labels = options.panel_row_labels.empty() ? options.row_labels : options.panel_row_labels[p];
        o.col_labels = options.panel_col_labels.empty() ? options.col_labels : options.panel_col_labels[p];
        check_panel_options("mask_chart", masks[p], o);
        geometry[p] = measure_panel(masks[p], o, kMinCell);
        for (std::size_t r = 0; r < masks[p].size(); ++r)
            for (std::size_t c = 0; c < masks[p][r].size(); ++c) blocked[p][r][c] = 1 - masks[p][r][c];
        const double grid_w = geometry[p].cell * double(masks[p][0].size());
        const double own_title = options.panel_titles.empty() ? 0 : text_width(options.panel_titles[p]) + 4;
        panels_w += std::max(geometry[p].row_label_band + grid_w, own_title) + (p ? kPanelGap : 0);
        panel_h = std::max(panel_h, geometry[p].cell * double(masks[p].size()) + geometry[p].col_label_band);
        title_w = std::max(title_w, own_title);
    }
    const double panel_title_band = options.panel_titles.empty() ? 0 : text_height() + 6;
    const double y_title_band = options.y_title.empty() ? 0 : text_height() + kGap;
    const double legend_w = kLegendSwatch + 6 + text_width(options.allowed_label) + kLegendGap + kLegendSwatch + 6 +
                            text_width(options.blocked_label);
    const double under = std::max(text_width(options.x_title), legend_w);
    const double overhang = std::max(0.0, (under - panels_w) / 2 - y_title_band);
    const double content_w = y_title_band + panels_w + 2 * overhang;

    Figure fig;
    fig.description = options.title.empty() ? "attention mask" : options.title;
    fig.width = layout::whole_pixels(std::max(content_w, text_width(options.title, layout::kTitleScale)) + 2 * kPad);
    const double left = std::round((fig.width - content_w) / 2 + overhang);
    const double top = layout::add_title(fig, options.title, fig.width / 2.0, kPad);
    const double panels_x = left + y_title_band;

    double px = panels_x;
    for (std::size_t p = 0; p < n; ++p) {
        const PanelGeometry& g = geometry[p];
        const double grid_w = g.cell * double(masks[p][0].size());
        const double own_title = options.panel_titles.empty() ? 0 : text_width(options.panel_titles[p]) + 4;
        const double panel_w = std::max(g.row_label_band + grid_w, own_title);
        Point origin{std::round(px + panel_w - grid_w), std::round(top + panel_title_band)};
        if (!options.panel_titles.empty())
            fig.add(Text{.at = {origin.x + grid_w / 2, top}, .text = options.panel_titles[p], .halign = HAlign::center,
                         .valign = VAlign::top});
        draw_panel(fig, origin, blocked[p], panel_options[p], g, Normalizer{0, 1});
        for (std::size_t r = 0; r < masks[p].size(); ++r)
            for (std::size_t c = 0; c < masks[p][r].size(); ++c) {
                const bool allowed = masks[p][r][c] == 1;
                fig.add(Text{.at = {origin.x + (double(c) + 0.5) * g.cell, origin.y + (double(r) + 0.5) * g.cell},
                             .text = allowed ? "1" : "0", .color = allowed ? palette::ink : palette::white,
                             .halign = HAlign::center, .valign = VAlign::middle});
            }
        px += panel_w + kPanelGap;
    }
    if (!options.y_title.empty())
        fig.add(Text{.at = {left, top + panel_title_band + (panel_h - panel_title_band) / 2}, .text = options.y_title,
                     .halign = HAlign::center, .valign = VAlign::top, .vertical = true});
    double below = top + panel_title_band + panel_h;
    if (!options.x_title.empty()) {
        fig.add(Text{.at = {panels_x + panels_w / 2, below + kGap}, .text = options.x_title, .halign = HAlign::center,
                     .valign = VAlign::top});
        below += kGap + text_height();
    }
    double x = std::round(panels_x + panels_w / 2 - legend_w / 2);
    x = legend_entry(fig, x, below + kGap, palette::white, options.allowed_label) + kLegendGap;
    legend_entry(fig, x, below + kGap, sample(Colormap::greys, 1), options.blocked_label);
    below += kGap + kLegendSwatch;
    fig.height = layout::whole_pixels(below + kPad);
    return fig;
}

}  // namespace attnlab::plots
