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
// Turned a quarter (top_to_bottom): the gap between boxes side by side, and between stages.
constexpr double kLaneGapDown = 20, kMinStageGapDown = 40;

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

// `count` evenly spaced attachment points along a side of length `side` centred on `centre`.
std::vector<double> ports(double centre, double side, std::size_t count) {
    std::vector<double> at;
    double spacing = std::min(12.0, side / double(count + 1));
    for (std::size_t i = 0; i < count; ++i) at.push_back(centre + (double(i) - (double(count) - 1) / 2) * spacing);
    return at;
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
            throw ValueError("flow_diagram: edge '" + e.from + "' -> '" + e.to + "' must go to a later column (flow runs " +
                             (options.top_to_bottom ? "top to bottom)" : "left to right)"));
    }

    // The grid in the flow's own terms: a stage (FlowBox::column) has a size along the flow
    // (its widest box, or tallest when turned), and rows sit `pitch` apart across it (turned:
    // in lanes, below).
    const bool down = options.top_to_bottom;
    auto along = [&](const FlowBox& b) { return down ? box_height(b) : box_width(b); };
    auto across = [&](const FlowBox& b) { return down ? box_width(b) : box_height(b); };
    const double lane_gap = down ? kLaneGapDown : kRowGap;
    // The gap before a stage is wide enough for the labels of edges entering it.
    std::vector<double> stage_size(columns, 0), gap_before(columns, down ? kMinStageGapDown : kMinColumnGap);
    double pitch = 0;
    for (const FlowBox& b : boxes) {
        stage_size[b.column] = std::max(stage_size[b.column], along(b));
        pitch = std::max(pitch, across(b) + lane_gap);
    }
    for (const FlowEdge& e : edges)
        if (!e.label.empty()) {
            int c = boxes[by_id[e.to]].column;
            gap_before[c] = std::max(gap_before[c], down ? 2 * (text_height() + 8) : 2 * (text_width(e.label) + 10));
        }
    std::vector<double> stage_at(columns, 0);
    double content_along = 0;
    for (int c = 0; c < columns; ++c) {
        stage_at[c] = content_along + (c > 0 ? gap_before[c] : 0);
        content_along = stage_at[c] + stage_size[c];
    }
    // Turned, the rows are lanes side by side, each as wide as its widest box: a lane of
    // narrow boxes (a transpose, a bias) then costs only its own width. Boxes on different
    // rows never share a lane, so they stay as clear of each other as on the row grid.
    std::map<double, double> lane_w, lane_at;
    for (const FlowBox& b : boxes) lane_w[b.row] = std::max(lane_w[b.row], box_width(b));
    for (const FlowEdge& e : edges)  // a label is written right of its arrow's last run, near the box's centre
        if (!e.label.empty()) {
            const double r = boxes[by_id[e.to]].row;
            lane_w[r] = std::max(lane_w[r], 2 * (text_width(e.label) + 5 + 12));
        }
    double lanes_w = 0;
    for (const auto& [r, w] : lane_w) lane_at[r] = lanes_w + (lanes_w > 0 ? lane_gap : 0), lanes_w = lane_at[r] + w;
    const double content_across = down ? lanes_w : rows * pitch - lane_gap;
    const double content_w = down ? content_across : content_along;

    Figure fig;
    fig.description = options.title.empty() ? "flow diagram" : options.title;
    fig.width = layout::whole_pixels(std::max(content_w, text_width(options.title, layout::kTitleScale)) + 2 * kPad);
    double left = std::round((fig.width - content_w) / 2);
    double top = layout::add_title(fig, options.title, fig.width / 2.0, kPad);

    std::vector<Placed> placed;
    for (const FlowBox& b : boxes) {
        double w = box_width(b), h = box_height(b);
        const double c_along = stage_at[b.column] + stage_size[b.column] / 2;
        const double c_across = down ? lane_at[b.row] + lane_w[b.row] / 2 : b.row * pitch + (pitch - lane_gap) / 2;
        const double cx = left + (down ? c_across : c_along), cy = top + (down ? c_along : c_across);
        placed.push_back({&b, {std::round(cx - w / 2) + 0.5, std::round(cy - h / 2) + 0.5, w, h}});
    }

    // Ports: edges leaving a box share its right side (bottom, turned), edges entering share
    // its left (top), each ordered by where the other end is so that arrows do not cross at the box.
    auto across_of = [&](const std::string& id) {
        const Point c = placed[by_id[id]].rect.center();
        return down ? c.x : c.y;
    };
    std::vector<double> start_at(edges.size()), end_at(edges.size());
    for (std::size_t b = 0; b < boxes.size(); ++b) {
        std::vector<std::size_t> out, in;
        for (std::size_t e = 0; e < edges.size(); ++e) {
            if (by_id[edges[e].from] == b) out.push_back(e);
            if (by_id[edges[e].to] == b) in.push_back(e);
        }
        std::stable_sort(out.begin(), out.end(), [&](auto x, auto y) { return across_of(edges[x].to) < across_of(edges[y].to); });
        std::stable_sort(in.begin(), in.end(), [&](auto x, auto y) { return across_of(edges[x].from) < across_of(edges[y].from); });
        const Box& r = placed[b].rect;
        const double centre = down ? r.center().x : r.center().y, side = down ? r.w : r.h;
        auto po = ports(centre, side, out.size()), pi = ports(centre, side, in.size());
        for (std::size_t k = 0; k < out.size(); ++k) start_at[out[k]] = po[k];
        for (std::size_t k = 0; k < in.size(); ++k) end_at[in[k]] = pi[k];
    }

    // Tracks: arrows that bend in the gap before one stage each run across it on a track of
    // their own, unless their runs across do not overlap, so no two arrows share a segment.
    // Greedy interval colouring, runs in order of where they start.
    std::vector<int> track(edges.size(), 0), tracks(columns, 0);
    for (int c = 0; c < columns; ++c) {
        std::vector<std::size_t> bent;
        for (std::size_t e = 0; e < edges.size(); ++e)
            if (boxes[by_id[edges[e].to]].column == c && std::abs(start_at[e] - end_at[e]) > 0.5) bent.push_back(e);
        auto lo = [&](std::size_t e) { return std::min(start_at[e], end_at[e]); };
        auto hi = [&](std::size_t e) { return std::max(start_at[e], end_at[e]); };
        std::stable_sort(bent.begin(), bent.end(), [&](std::size_t x, std::size_t y) { return lo(x) < lo(y); });
        std::vector<double> track_end;  // where each track's last run ends
        for (std::size_t e : bent) {
            std::size_t t = 0;
            while (t < track_end.size() && track_end[t] + 3 >= lo(e)) ++t;
            if (t == track_end.size()) track_end.push_back(0);
            track_end[t] = hi(e), track[e] = static_cast<int>(t);
        }
        tracks[c] = static_cast<int>(track_end.size());
    }

    for (std::size_t e = 0; e < edges.size(); ++e) {
        const Box& from = placed[by_id[edges[e].from]].rect;
        const Box& to = placed[by_id[edges[e].to]].rect;
        int target = boxes[by_id[edges[e].to]].column;
        // The channel: a line across the flow in the middle of the gap before the target's stage,
        // moved to the arrow's track (tracks at most 8 px apart, all within the gap's middle half).
        const double spacing = std::min(8.0, gap_before[target] / 2 / std::max(1, tracks[target]));
        double channel = std::round((down ? top : left) + stage_at[target] - gap_before[target] / 2 +
                                    (track[e] - (tracks[target] - 1) / 2.0) * spacing);
        const Point a = down ? Point{start_at[e], from.bottom()} : Point{from.right(), start_at[e]};
        const Point b = down ? Point{end_at[e], to.y} : Point{to.x, end_at[e]};
        std::vector<Point> pts = {a};
        if (down && std::abs(a.x - b.x) > 0.5) pts.insert(pts.end(), {{a.x, channel}, {b.x, channel}});
        if (!down && std::abs(a.y - b.y) > 0.5) pts.insert(pts.end(), {{channel, a.y}, {channel, b.y}});
        pts.push_back(b);
        fig.add(Arrow{.points = pts, .stroke = Stroke{.color = rgb(0x4a4a4a), .width = 1.5}, .head_length = 8,
                      .head_width = 7});
        if (edges[e].label.empty()) continue;
        // Beside the run from the channel into the target: the gap was sized so it fits
        // there, and it is clear of other arrows' runs in the channel.
        if (down)
            fig.add(Text{.at = {b.x + 5, (channel + b.y) / 2}, .text = edges[e].label, .color = palette::muted,
                         .halign = HAlign::left, .valign = VAlign::middle});
        else
            fig.add(Text{.at = {(channel + b.x) / 2, b.y - 4}, .text = edges[e].label, .color = palette::muted,
                         .halign = HAlign::center, .valign = VAlign::bottom});
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
    fig.height = layout::whole_pixels(top + (down ? content_along : content_across) + kPad);
    return fig;
}

}  // namespace attnlab::plots
