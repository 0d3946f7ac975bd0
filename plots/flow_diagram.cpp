// flow_diagram.cpp — see flow_diagram.hpp.
#include "plots/flow_diagram.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"
#include "plots/font.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

using layout::kPad;

namespace {

constexpr double kBoxPadX = 12, kBoxPadY = 9, kRowGap = 26, kMinColumnGap = 56;

struct Placed {
    const FlowBox* box;
    Box rect;
};

double box_width(const FlowBox& b) {
    return std::max(layout::max_text_width(b.lines), text_width(b.note)) + 2 * kBoxPadX;
}
double box_height(const FlowBox& b) {
    double lines = double(b.lines.size()) + (b.note.empty() ? 0 : 1);
    return lines * font::kLineHeight - (font::kLineHeight - text_height()) + 2 * kBoxPadY;
}

// Evenly spaced attachment points along a side of `r`, ordered by the other ends' y.
std::vector<double> ports(const Box& r, std::size_t count) {
    std::vector<double> ys;
    double spacing = std::min(12.0, r.h / double(count + 1));
    for (std::size_t i = 0; i < count; ++i) ys.push_back(r.center().y + (double(i) - (double(count) - 1) / 2) * spacing);
    return ys;
}

}  // namespace

Figure flow_diagram(const std::vector<FlowBox>& boxes, const std::vector<FlowEdge>& edges,
                    const FlowDiagramOptions& options) {
    if (boxes.empty()) throw ValueError("flow_diagram: no boxes (0 given)");
    std::map<std::string, std::size_t> by_id;
    int columns = 0;
    double rows = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const FlowBox& b = boxes[i];
        if (b.lines.empty()) throw ValueError("flow_diagram: box '" + b.id + "' has no text lines");
        if (!by_id.emplace(b.id, i).second) throw ValueError("flow_diagram: two boxes have the id '" + b.id + "'");
        if (b.column < 0 || b.row < 0 || b.column > 64 || b.row > 64)
            throw ValueError("flow_diagram: box '" + b.id + "' is at column " + std::to_string(b.column) + ", row " +
                             std::to_string(b.row) + "; both must be in 0..64");
        columns = std::max(columns, b.column + 1);
        rows = std::max(rows, b.row + 1);
    }
    for (const FlowEdge& e : edges) {
        if (!by_id.count(e.from) || !by_id.count(e.to))
            throw ValueError("flow_diagram: edge '" + e.from + "' -> '" + e.to + "' names an unknown box (" +
                             std::to_string(boxes.size()) + " boxes)");
        if (boxes[by_id[e.to]].column <= boxes[by_id[e.from]].column)
            throw ValueError("flow_diagram: edge '" + e.from + "' -> '" + e.to +
                             "' must go to a later column (flow runs left to right)");
    }

    // Column widths from their boxes; the gap before a column from the labels of edges entering it.
    std::vector<double> col_w(columns, 0), gap_before(columns, kMinColumnGap);
    double pitch = 0;
    for (const FlowBox& b : boxes) {
        col_w[b.column] = std::max(col_w[b.column], box_width(b));
        pitch = std::max(pitch, box_height(b) + kRowGap);
    }
    for (const FlowEdge& e : edges)
        if (!e.label.empty()) {
            int c = boxes[by_id[e.to]].column;
            gap_before[c] = std::max(gap_before[c], 2 * (text_width(e.label) + 10));
        }
    std::vector<double> col_x(columns, 0);
    double content_w = 0;
    for (int c = 0; c < columns; ++c) {
        col_x[c] = content_w + (c > 0 ? gap_before[c] : 0);
        content_w = col_x[c] + col_w[c];
    }

    Figure fig;
    fig.description = options.title.empty() ? "flow diagram" : options.title;
    fig.width = layout::whole_pixels(std::max(content_w, text_width(options.title, layout::kTitleScale)) + 2 * kPad);
    double left = std::round((fig.width - content_w) / 2);
    double top = layout::add_title(fig, options.title, fig.width / 2.0, kPad);

    std::vector<Placed> placed;
    for (const FlowBox& b : boxes) {
        double w = box_width(b), h = box_height(b);
        double cx = left + col_x[b.column] + col_w[b.column] / 2, cy = top + b.row * pitch + (pitch - kRowGap) / 2;
        placed.push_back({&b, {std::round(cx - w / 2) + 0.5, std::round(cy - h / 2) + 0.5, w, h}});
    }

    // Ports: edges leaving a box share its right side, edges entering share its left,
    // each ordered by where the other end is so that arrows do not cross at the box.
    std::vector<double> start_y(edges.size()), end_y(edges.size());
    for (std::size_t b = 0; b < boxes.size(); ++b) {
        std::vector<std::size_t> out, in;
        for (std::size_t e = 0; e < edges.size(); ++e) {
            if (by_id[edges[e].from] == b) out.push_back(e);
            if (by_id[edges[e].to] == b) in.push_back(e);
        }
        auto y_of = [&](const std::string& id) { return placed[by_id[id]].rect.center().y; };
        std::stable_sort(out.begin(), out.end(), [&](auto x, auto y) { return y_of(edges[x].to) < y_of(edges[y].to); });
        std::stable_sort(in.begin(), in.end(), [&](auto x, auto y) { return y_of(edges[x].from) < y_of(edges[y].from); });
        auto po = ports(placed[b].rect, out.size()), pi = ports(placed[b].rect, in.size());
        for (std::size_t k = 0; k < out.size(); ++k) start_y[out[k]] = po[k];
        for (std::size_t k = 0; k < in.size(); ++k) end_y[in[k]] = pi[k];
    }

    for (std::size_t e = 0; e < edges.size(); ++e) {
        const Box& from = placed[by_id[edges[e].from]].rect;
        const Box& to = placed[by_id[edges[e].to]].rect;
        int target_col = boxes[by_id[edges[e].to]].column;
        double channel = std::round(left + col_x[target_col] - gap_before[target_col] / 2);
        Point a{from.right(), start_y[e]}, b{to.x, end_y[e]};
        std::vector<Point> pts = {a};
        if (std::abs(a.y - b.y) > 0.5) pts.insert(pts.end(), {{channel, a.y}, {channel, b.y}});
        pts.push_back(b);
        fig.add(Arrow{.points = pts, .stroke = Stroke{.color = rgb(0x4a4a4a), .width = 1.5}, .head_length = 8,
                      .head_width = 7});
        if (!edges[e].label.empty())
            // Over the run from the channel into the target: the gap was sized so it fits
            // there, and it is clear of other arrows' vertical segments in the channel.
            fig.add(Text{.at = {(channel + b.x) / 2, b.y - 4}, .text = edges[e].label,
                         .color = palette::muted, .halign = HAlign::center, .valign = VAlign::bottom});
    }
    for (const Placed& p : placed) {
        fig.add(Rect{.box = p.rect, .fill = p.box->fill, .stroke = Stroke{.color = rgb(0x5b7fb0), .width = 1}});
        double y = p.rect.y + kBoxPadY;
        for (const std::string& line : p.box->lines) {
            fig.add(Text{.at = {p.rect.center().x, y}, .text = line, .halign = HAlign::center, .valign = VAlign::top});
            y += font::kLineHeight;
        }
        if (!p.box->note.empty())
            fig.add(Text{.at = {p.rect.center().x, y}, .text = p.box->note, .color = palette::muted,
                         .halign = HAlign::center, .valign = VAlign::top});
    }
    fig.height = layout::whole_pixels(top + rows * pitch - kRowGap + kPad);
    return fig;
}

}  // namespace attnlab::plots
