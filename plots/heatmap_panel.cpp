// heatmap_panel.cpp — see heatmap_panel.hpp.
#include "plots/heatmap_panel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots::heatmap_detail {

namespace {
constexpr double kLabelGap = 6;        // grid edge to its labels
constexpr Color kMaskFill = rgb(0xf2f2f2);
constexpr Color kMaskHatch = rgb(0xb4b4b4);

std::vector<std::string> numbered(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(std::to_string(i));
    return out;
}

// Diagonal hatching clipped to the box: reads as "no value here" in any colour map.
void add_hatch(Figure& figure, const Box& box) {
    figure.add(Rect{.box = box, .fill = kMaskFill});
    Group hatch{.clip = box, .items = {}};
    for (double d = -box.h; d < box.w; d += 5)
        hatch.add(Line{{box.x + d, box.bottom()}, {box.x + d + box.h, box.y}, Stroke{.color = kMaskHatch}});
    figure.add(std::move(hatch));
}
}  // namespace

void check_panel_options(const char* chart, const Matrix& m, const HeatmapOptions& options) {
    check_label_count(chart, "row labels", options.row_labels.size(), m.size(), "rows");
    check_label_count(chart, "column labels", options.col_labels.size(), m[0].size(), "columns");
    if (!options.mask.empty()) {
        bool fits = options.mask.size() == m.size();
        for (std::size_t r = 0; fits && r < m.size(); ++r) fits = options.mask[r].size() == m[r].size();
        if (!fits)
            throw ShapeError(std::string(chart) + ": mask is [" + std::to_string(options.mask.size()) + " x " +
                             std::to_string(options.mask[0].size()) + "(row 0)] but the matrix is " + shape_string(m));
    }
    if (!options.cell_text.empty()) {
        bool fits = options.cell_text.size() == m.size();
        for (std::size_t r = 0; fits && r < m.size(); ++r) fits = options.cell_text[r].size() == m[r].size();
        if (!fits)
            throw ShapeError(std::string(chart) + ": cell_text has " + std::to_string(options.cell_text.size()) +
                             " rows of differing or wrong length; the matrix is " + shape_string(m));
    }
    check_option(chart, "decimals", options.decimals, 0, 6);
    check_option(chart, "cell_size", options.cell_size, 0, 400);
}

PanelGeometry measure_panel(const Matrix& m, const HeatmapOptions& options, double min_cell) {
    PanelGeometry g;
    g.row_labels = options.row_labels.empty() ? numbered(m.size()) : options.row_labels;
    g.col_labels = options.col_labels.empty() ? numbered(m[0].size()) : options.col_labels;
    g.cell = options.cell_size > 0 ? options.cell_size : min_cell;
    if (options.cell_size <= 0 && options.annotate)
        g.cell = std::max(g.cell, text_width("-" + layout::format_fixed(0, options.decimals)) + 10);
    for (const auto& row : options.cell_text)  // words: the cell grows to the widest
        if (options.cell_size <= 0) g.cell = std::max(g.cell, layout::max_text_width(row) + 10);
    g.cell = std::round(g.cell);  // whole pixels keep every cell edge crisp
    double widest_col = layout::max_text_width(g.col_labels);
    g.vertical_col_labels = widest_col > g.cell - 6;
    g.row_label_band = layout::max_text_width(g.row_labels) + kLabelGap;
    g.col_label_band = kLabelGap + (g.vertical_col_labels ? widest_col : text_height());
    return g;
}

bool is_masked(const Matrix& m, const HeatmapOptions& options, std::size_t r, std::size_t c) {
    return (!options.mask.empty() && options.mask[r][c]) || std::isinf(m[r][c]);
}

bool any_masked(const Matrix& m, const HeatmapOptions& options) {
    for (std::size_t r = 0; r < m.size(); ++r)
        for (std::size_t c = 0; c < m[r].size(); ++c)
            if (is_masked(m, options, r, c)) return true;
    return false;
}

std::pair<double, double> unmasked_range(const std::vector<const Matrix*>& ms, const HeatmapOptions& options) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Matrix* m : ms)
        for (std::size_t r = 0; r < m->size(); ++r)
            for (std::size_t c = 0; c < (*m)[r].size(); ++c)
                if (!is_masked(*m, options, r, c)) lo = std::min(lo, (*m)[r][c]), hi = std::max(hi, (*m)[r][c]);
    return lo <= hi ? std::pair{lo, hi} : std::pair{0.0, 0.0};
}

void draw_panel(Figure& figure, Point origin, const Matrix& m, const HeatmapOptions& options,
                const PanelGeometry& g, const Normalizer& range) {
    const double cell = g.cell;
    for (std::size_t r = 0; r < m.size(); ++r) {
        for (std::size_t c = 0; c < m[r].size(); ++c) {
            Box box{origin.x + double(c) * cell, origin.y + double(r) * cell, cell, cell};
            if (is_masked(m, options, r, c)) {
                add_hatch(figure, box);
                continue;
            }
            Color fill = sample(options.colormap, range(m[r][c]));
            figure.add(Rect{.box = box, .fill = fill});
            if (!options.cell_text.empty())
                figure.add(Text{.at = box.center(), .text = options.cell_text[r][c], .color = contrasting_text(fill),
                                .halign = HAlign::center, .valign = VAlign::middle});
            else if (options.annotate)
                figure.add(Text{.at = box.center(), .text = layout::format_fixed(m[r][c], options.decimals),
                                .color = contrasting_text(fill), .halign = HAlign::center,
                                .valign = VAlign::middle});
        }
    }
    Box grid{origin.x, origin.y, cell * double(m[0].size()), cell * double(m.size())};
    // A 1 px frame just outside the cells (the half-pixel offset keeps it on whole pixels).
    figure.add(Rect{.box = {grid.x - 0.5, grid.y - 0.5, grid.w + 1, grid.h + 1}, .stroke = Stroke{.color = palette::frame}});
    for (std::size_t r = 0; r < m.size(); ++r)
        figure.add(Text{.at = {grid.x - kLabelGap, grid.y + (double(r) + 0.5) * cell}, .text = g.row_labels[r],
                        .halign = HAlign::right, .valign = VAlign::middle});
    for (std::size_t c = 0; c < m[0].size(); ++c) {
        Point at{grid.x + (double(c) + 0.5) * cell, grid.bottom() + kLabelGap};
        if (g.vertical_col_labels)
            figure.add(Text{.at = at, .text = g.col_labels[c], .halign = HAlign::right, .valign = VAlign::middle,
                            .vertical = true});
        else
            figure.add(Text{.at = at, .text = g.col_labels[c], .halign = HAlign::center, .valign = VAlign::top});
    }
}

double mask_legend_width(const HeatmapOptions& options) {
    return kLegendSwatch + 6 + text_width(options.mask_label);
}

void draw_mask_legend(Figure& figure, double center_x, double top, const HeatmapOptions& options) {
    double x = std::round(center_x - mask_legend_width(options) / 2);
    Box swatch{x, top, kLegendSwatch, kLegendSwatch};
    add_hatch(figure, swatch);
    figure.add(Rect{.box = swatch, .stroke = Stroke{.color = palette::frame}});
    figure.add(Text{.at = {swatch.right() + 6, swatch.center().y}, .text = options.mask_label,
                    .valign = VAlign::middle});
}

}  // namespace attnlab::plots::heatmap_detail
