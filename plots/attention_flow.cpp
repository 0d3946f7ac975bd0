// attention_flow.cpp — see attention_flow.hpp.
#include "plots/attention_flow.hpp"

#include <algorithm>
#include <cmath>

#include "plots/geometry.hpp"
#include "plots/layout.hpp"
#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {

using layout::kGap;
using layout::kPad;

namespace {

constexpr double kNodeHeight = 24;

struct Edge {
    std::size_t query, key;
    double weight;
};

Stroke edge_stroke(Color c, double weight, const AttentionFlowOptions& o) {
    // Affine in the weight: the faintest visible edge is still visible.
    return Stroke{.color = with_alpha(c, 0.25 + 0.7 * weight), .width = 1 + (o.max_width - 1) * weight,
                  .cap = LineCap::butt};
}

double head_length(double width) { return 7 + width; }

void add_node(Figure& fig, Point center, double width, const std::string& token, Color outline) {
    fig.add(Rect{.box = {std::round(center.x - width / 2) + 0.5, std::round(center.y - kNodeHeight / 2) + 0.5, width,
                         kNodeHeight},
                 .fill = palette::white, .stroke = Stroke{.color = outline, .width = 1}});
    fig.add(Text{.at = center, .text = token, .halign = HAlign::center, .valign = VAlign::middle});
}

}  // namespace

Figure attention_flow(const std::vector<std::string>& tokens, const Matrix& w, const AttentionFlowOptions& o) {
    check_matrix("attention_flow", w);
    if (w.size() != w[0].size())
        throw ShapeError("attention_flow: weights must be square (queries = keys), got " + shape_string(w));
    if (tokens.size() != w.size())
        throw ShapeError("attention_flow: " + std::to_string(tokens.size()) + " tokens for a " + shape_string(w) +
                         " weight matrix");
    for (std::size_t i = 0; i < w.size(); ++i)
        for (std::size_t j = 0; j < w.size(); ++j)
            if (w[i][j] < 0 || w[i][j] > 1)
                throw ValueError("attention_flow: weight [" + std::to_string(i) + ", " + std::to_string(j) + "] = " +
                                 std::to_string(w[i][j]) + " is outside [0, 1]");
    check_option("attention_flow", "threshold", o.threshold, 0, 1);
    check_option("attention_flow", "max_width", o.max_width, 1, 40);

    const std::size_t n = tokens.size();
    std::vector<Edge> edges;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            if (w[i][j] >= o.threshold) edges.push_back({i, j, w[i][j]});
    // Light edges first, so heavy ones are drawn on top.
    std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.weight < b.weight; });

    const double node_w = layout::max_text_width(tokens) + 16;
    const double pitch = std::max(node_w + 18, 64.0);
    const double row_label_w = o.layout == FlowLayout::two_rows ? text_width("queries") + kGap : 0;
    const std::vector<std::string> legend = {
        "query -> key; width and opacity grow with the weight; weights below " + layout::format_fixed(o.threshold, 2) +
            " are hidden",
        o.layout == FlowLayout::two_rows ? "accent colour: a token attending to itself"
                                         : "arcs above: to earlier tokens; below: to later; loops: to itself"};
    double content_w = std::max(row_label_w + pitch * double(n), layout::max_text_width(legend));

    Figure fig;
    fig.description = o.title.empty() ? "attention flow" : o.title;
    fig.width = layout::whole_pixels(std::max(content_w, text_width(o.title, layout::kTitleScale)) + 2 * kPad);
    double left = std::round((fig.width - content_w) / 2);
    double top = layout::add_title(fig, o.title, fig.width / 2.0, kPad);
    double nodes_x = left + row_label_w;
    auto node_x = [&](std::size_t i) { return nodes_x + (double(i) + 0.5) * pitch; };

    double bottom;
    if (o.layout == FlowLayout::two_rows) {
        const double gap = std::max(150.0, pitch * 1.6);  // vertical room for the edges
        double qy = top + kNodeHeight / 2, ky = qy + kNodeHeight + gap;
        for (const Edge& e : edges) {
            bool self = e.query == e.key;
            Stroke s = edge_stroke(self ? o.self_color : o.edge_color, e.weight, o);
            Point from{node_x(e.query), qy + kNodeHeight / 2 + 2}, to{node_x(e.key), ky - kNodeHeight / 2 - 2};
            // A gentle S-curve reads better than a straight line when many edges cross.
            Point mid{(from.x + to.x) / 2, (from.y + to.y) / 2};
            auto first = quadratic_curve(from, {from.x, mid.y}, mid, 12);
            auto second = quadratic_curve(mid, {to.x, mid.y}, to, 12);
            first.insert(first.end(), second.begin() + 1, second.end());
            fig.add(Arrow{.points = first, .stroke = s, .head_length = head_length(s.width),
                          .head_width = s.width + 7});
        }
        for (std::size_t i = 0; i < n; ++i) {
            add_node(fig, {node_x(i), qy}, node_w, tokens[i], palette::frame);
            add_node(fig, {node_x(i), ky}, node_w, tokens[i], palette::frame);
        }
        fig.add(Text{.at = {left, qy}, .text = "queries", .color = palette::muted, .valign = VAlign::middle});
        fig.add(Text{.at = {left, ky}, .text = "keys", .color = palette::muted, .valign = VAlign::middle});
        bottom = ky + kNodeHeight / 2;
    } else {
        // Arc height grows with the distance between the tokens, so nested arcs do not
        // overlap; the room above and below the row is that of the tallest arc drawn there.
        auto rise_of = [&](const Edge& e) { return pitch * 0.42 * std::abs(double(e.key) - double(e.query)) + 20; };
        const double loop_room = 30;
        double rise_above = 0, rise_below = 0;
        for (const Edge& e : edges) {
            if (e.key < e.query) rise_above = std::max(rise_above, rise_of(e));
            if (e.key > e.query) rise_below = std::max(rise_below, rise_of(e));
            if (e.key == e.query) rise_above = std::max(rise_above, loop_room);
        }
        double row_y = top + rise_above + o.max_width / 2 + kNodeHeight / 2 + 2;
        for (const Edge& e : edges) {
            Stroke s = edge_stroke(e.query == e.key ? o.self_color : o.edge_color, e.weight, o);
            double x0 = node_x(e.query), x1 = node_x(e.key);
            std::vector<Point> pts;
            if (e.query == e.key) {  // a loop standing on top of the node
                double r = 11;
                Point c{x0, row_y - kNodeHeight / 2 - r + 2};
                for (int k = 0; k <= 28; ++k) {
                    double a = std::acos(-1.0) * (0.62 + 1.76 * k / 28.0);
                    pts.push_back({c.x + r * std::cos(a), c.y - r * std::sin(a) - 0});
                }
            } else {
                bool above = e.key < e.query;
                double sign = above ? -1 : 1, rise = rise_of(e);
                double y = row_y + sign * (kNodeHeight / 2 + 2);
                pts = quadratic_curve({x0 + 6 * (x1 > x0 ? 1 : -1), y}, {(x0 + x1) / 2, y + sign * rise * 2},
                                      {x1 - 6 * (x1 > x0 ? 1 : -1), y}, 32);
            }
            fig.add(Arrow{.points = pts, .stroke = s, .head_length = head_length(s.width), .head_width = s.width + 7});
        }
        for (std::size_t i = 0; i < n; ++i) add_node(fig, {node_x(i), row_y}, node_w, tokens[i], palette::frame);
        bottom = row_y + kNodeHeight / 2 + 2 + rise_below + o.max_width / 2;
    }
    double y = bottom + kGap + 6;
    for (const std::string& line : legend) {
        fig.add(Text{.at = {left, y}, .text = line, .color = palette::muted, .valign = VAlign::top});
        y += text_height() + 5;
    }
    fig.height = layout::whole_pixels(y + kPad);
    return fig;
}

}  // namespace attnlab::plots
