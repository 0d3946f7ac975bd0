// table.cpp — see table.hpp.
#include "plots/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "io/number.hpp"
#include "plots/chart_input.hpp"
#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

namespace {

constexpr double kCellPadX = 10, kRowHeight = 22;

bool looks_numeric(const std::string& s) { return parse_real(s).has_value(); }

}  // namespace

Figure table_figure(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                    const TableOptions& o) {
    if (header.empty()) throw ValueError("table_figure: the header has no columns");
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (rows[r].size() != header.size())
            throw ShapeError("table_figure: row " + std::to_string(r) + " has " + std::to_string(rows[r].size()) +
                             " cells but the header has " + std::to_string(header.size()));
    check_label_count("table_figure", "alignments", o.align.size(), header.size(), "columns");

    const std::size_t cols = header.size();
    std::vector<double> width(cols, 0);
    std::vector<ColumnAlign> align(cols, ColumnAlign::automatic);
    for (std::size_t c = 0; c < cols; ++c) {
        width[c] = text_width(header[c]);
        for (const auto& row : rows) width[c] = std::max(width[c], text_width(row[c]));
        width[c] = std::round(width[c] + 2 * kCellPadX);
        if (!o.align.empty()) align[c] = o.align[c];
    }
    double table_w = 0;
    for (double w : width) table_w += w;
    double table_h = kRowHeight * double(rows.size() + 1);

    Figure fig;
    fig.description = o.title.empty() ? "table" : o.title;
    fig.width = layout::whole_pixels(std::max(table_w, text_width(o.title, layout::kTitleScale)) + 2 * layout::kPad);
    double left = std::round((fig.width - table_w) / 2);
    double top = std::round(layout::add_title(fig, o.title, fig.width / 2.0, layout::kPad));

    fig.add(Rect{.box = {left, top, table_w, kRowHeight}, .fill = rgb(0xe8edf4)});
    for (std::size_t r = 1; r <= rows.size(); ++r)
        if (o.zebra && r % 2 == 0) fig.add(Rect{.box = {left, top + kRowHeight * double(r), table_w, kRowHeight}, .fill = rgb(0xf6f7f9)});
    auto rule = [&](double y, Color c) { fig.add(Line{{left, layout::crisp(y)}, {left + table_w, layout::crisp(y)}, Stroke{.color = c}}); };
    rule(top + kRowHeight, palette::ink);
    rule(top + table_h, palette::frame);

    for (std::size_t r = 0; r <= rows.size(); ++r) {
        const auto& cells = r == 0 ? header : rows[r - 1];
        double x = left, cy = top + kRowHeight * (double(r) + 0.5);
        for (std::size_t c = 0; c < cols; ++c) {
            ColumnAlign a = align[c];
            if (a == ColumnAlign::automatic) {
                // A column of numbers is right-aligned, header included, so the header sits over the digits.
                bool numeric = !rows.empty() && std::all_of(rows.begin(), rows.end(), [&](const auto& row) {
                    return looks_numeric(row[c]) || row[c].empty();
                });
                a = numeric ? ColumnAlign::right : ColumnAlign::left;
            }
            double tx = a == ColumnAlign::left ? x + kCellPadX : a == ColumnAlign::right ? x + width[c] - kCellPadX
                                                                                          : x + width[c] / 2;
            HAlign h = a == ColumnAlign::left ? HAlign::left : a == ColumnAlign::right ? HAlign::right : HAlign::center;
            fig.add(Text{.at = {tx, cy}, .text = cells[c], .halign = h, .valign = VAlign::middle});
            x += width[c];
        }
    }
    fig.height = layout::whole_pixels(top + table_h + layout::kPad);
    return fig;
}

}  // namespace attnlab::plots
