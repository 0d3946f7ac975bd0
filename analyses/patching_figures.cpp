// patching_figures.cpp — see patching_figures.hpp.
#include "analyses/patching_figures.hpp"

#include <algorithm>

#include "analyses/show.hpp"
#include "plots/heatmap.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

double patching_range(const std::vector<Tensor>& results) {
    double range = 1.0;
    for (const Tensor& r : results) range = std::max(range, max(abs(r)).item());
    return 100 * range;
}

plots::Figure patching_residual_heatmap(const Tensor& residual, const std::vector<std::string>& labels,
                                        const std::string& title, double range) {
    plots::HeatmapOptions o;
    o.title = title, o.col_labels = labels, o.annotate = true, o.decimals = 0;
    for (std::int64_t l = 0; l < residual.size(0); ++l) o.row_labels.push_back("after L" + std::to_string(l + 1));
    o.x_title = "position patched", o.y_title = "residual stream";
    o.colormap = plots::Colormap::red_blue, o.vmin = -range, o.vmax = range;
    o.colorbar_label = "% restored";
    return plots::heatmap(to_matrix(residual * 100.0), o);
}

Table patching_residual_table(const Tensor& residual, const std::vector<std::string>& labels) {
    std::vector<Column> cols{{"layer", "after", 6, -1}};
    for (std::size_t t = 0; t < labels.size(); ++t)
        cols.push_back({"position_" + std::to_string(t), labels[t], std::max<int>(7, int(labels[t].size())), 2});
    Table table(cols, "  ");
    table.print_header();
    for (std::int64_t l = 0; l < residual.size(0); ++l) {
        std::vector<Json> row{"L" + std::to_string(l + 1)};
        for (std::int64_t t = 0; t < residual.size(1); ++t) row.push_back(residual.at({l, t}));
        table.row(row);
    }
    return table;
}

plots::Figure patching_heads_heatmap(const std::vector<Tensor>& panels, const std::vector<std::string>& panel_titles,
                                     const std::string& title) {
    plots::HeatmapGridOptions o;
    o.title = title, o.panel_titles = panel_titles;
    for (std::int64_t l = 0; l < panels.front().size(0); ++l) o.row_labels.push_back("L" + std::to_string(l + 1));
    for (std::int64_t h = 0; h < panels.front().size(1); ++h) o.col_labels.push_back("H" + std::to_string(h + 1));
    o.x_title = "head", o.y_title = "layer", o.annotate = true, o.decimals = 0, o.columns = static_cast<int>(panels.size());
    o.colormap = plots::Colormap::red_blue, o.colorbar_label = "% restored";
    const double range = patching_range(panels);
    o.vmin = -range, o.vmax = range;
    std::vector<plots::Matrix> m;
    for (const Tensor& p : panels) m.push_back(to_matrix(p * 100.0));
    return plots::heatmap_grid(m, o);
}

}  // namespace attnlab::lab
