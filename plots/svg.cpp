// svg.cpp — see svg.hpp.
#include "plots/svg.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "plots/geometry.hpp"
#include "plots/text_metrics.hpp"

namespace attnlab::plots {
namespace {

// Numbers with at most two decimals and no trailing zeros: compact and stable.
std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", std::abs(v) < 0.005 ? 0.0 : v);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

std::string points_attr(const std::vector<Point>& pts) {
    std::string s;
    for (const Point& p : pts) {
        if (!s.empty()) s += ' ';
        s += num(p.x) + "," + num(p.y);
    }
    return s;
}

std::string fill_attrs(const std::optional<Color>& fill) {
    if (!fill || fill->a <= 0) return " fill=\"none\"";
    std::string s = " fill=\"" + to_hex(*fill) + "\"";
    if (fill->a < 1) s += " fill-opacity=\"" + num(fill->a) + "\"";
    return s;
}

std::string stroke_attrs(const std::optional<Stroke>& stroke) {
    if (!stroke || stroke->width <= 0 || stroke->color.a <= 0) return "";
    std::string s = " stroke=\"" + to_hex(stroke->color) + "\" stroke-width=\"" + num(stroke->width) + "\"";
    if (stroke->color.a < 1) s += " stroke-opacity=\"" + num(stroke->color.a) + "\"";
    s += " stroke-linejoin=\"round\"";
    if (stroke->cap == LineCap::round) s += " stroke-linecap=\"round\"";
    if (!stroke->dash.empty()) {
        s += " stroke-dasharray=\"";
        for (std::size_t i = 0; i < stroke->dash.size(); ++i) s += (i ? "," : "") + num(stroke->dash[i]);
        s += "\"";
    }
    return s;
}

class SvgWriter {
public:
    explicit SvgWriter(std::ostringstream& out) : out_(out) {}

    void write(const std::vector<Primitive>& items, int depth) {
        for (const Primitive& p : items) std::visit([&](const auto& shape) { write(shape, depth); }, p.shape);
    }

private:
    std::ostringstream& out_;
    int next_clip_id_ = 0;

    void indent(int depth) { out_ << std::string(static_cast<std::size_t>(depth) * 2, ' '); }

    void write(const Line& l, int d) {
        indent(d);
        out_ << "<line x1=\"" << num(l.from.x) << "\" y1=\"" << num(l.from.y) << "\" x2=\"" << num(l.to.x)
             << "\" y2=\"" << num(l.to.y) << "\"" << stroke_attrs(l.stroke) << "/>\n";
    }
    void write(const Polyline& p, int d) {
        indent(d);
        out_ << "<polyline points=\"" << points_attr(p.points) << "\" fill=\"none\"" << stroke_attrs(p.stroke)
             << "/>\n";
    }
    void write(const Rect& r, int d) {
        indent(d);
        out_ << "<rect x=\"" << num(r.box.x) << "\" y=\"" << num(r.box.y) << "\" width=\"" << num(r.box.w)
             << "\" height=\"" << num(r.box.h) << "\"" << fill_attrs(r.fill) << stroke_attrs(r.stroke) << "/>\n";
    }
    void write(const Polygon& p, int d) {
        indent(d);
        out_ << "<polygon points=\"" << points_attr(p.points) << "\"" << fill_attrs(p.fill)
             << stroke_attrs(p.stroke) << "/>\n";
    }
    void write(const Circle& c, int d) {
        indent(d);
        out_ << "<circle cx=\"" << num(c.center.x) << "\" cy=\"" << num(c.center.y) << "\" r=\"" << num(c.radius)
             << "\"" << fill_attrs(c.fill) << stroke_attrs(c.stroke) << "/>\n";
    }
    void write(const Arrow& a, int d) {
        ArrowShape shape = arrow_shape(a);
        indent(d);
        out_ << "<g>\n";
        if (shape.shaft.size() > 1) write(Polyline{shape.shaft, a.stroke}, d + 1);
        if (!shape.head.empty()) write(Polygon{shape.head, a.stroke.color, std::nullopt}, d + 1);
        indent(d);
        out_ << "</g>\n";
    }
    void write(const Text& t, int d) {
        std::string text = printable(t.text);
        if (text.empty()) return;
        TextFrame f = text_frame(t);
        const char* anchor = t.halign == HAlign::left ? "start" : t.halign == HAlign::center ? "middle" : "end";
        indent(d);
        // x is the anchor itself (text-anchor does the alignment, so a font slightly
        // wider or narrower than ours errs symmetrically); y is the baseline.
        out_ << "<text x=\"" << num(t.at.x) << "\" y=\"" << num(t.at.y + f.baseline) << "\" font-size=\""
             << 10 * t.scale << "\" text-anchor=\"" << anchor << "\"" << fill_attrs(t.color);
        if (t.vertical) out_ << " transform=\"rotate(-90 " << num(t.at.x) << " " << num(t.at.y) << ")\"";
        out_ << ">" << xml_escape(text) << "</text>\n";
    }
    void write(const Group& g, int d) {
        indent(d);
        if (g.clip) {
            std::string id = "clip" + std::to_string(next_clip_id_++);
            out_ << "<clipPath id=\"" << id << "\"><rect x=\"" << num(g.clip->x) << "\" y=\"" << num(g.clip->y)
                 << "\" width=\"" << num(g.clip->w) << "\" height=\"" << num(g.clip->h) << "\"/></clipPath>\n";
            indent(d);
            out_ << "<g clip-path=\"url(#" << id << ")\">\n";
        } else {
            out_ << "<g>\n";
        }
        write(g.items, d + 1);
        indent(d);
        out_ << "</g>\n";
    }
};

}  // namespace

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string render_svg(const Figure& figure) {
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << figure.width << "\" height=\""
        << figure.height << "\" viewBox=\"0 0 " << figure.width << " " << figure.height << "\""
        << " font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\">\n";
    if (!figure.description.empty()) out << "  <title>" << xml_escape(printable(figure.description)) << "</title>\n";
    out << "  <rect width=\"100%\" height=\"100%\"" << fill_attrs(figure.background) << "/>\n";
    SvgWriter writer(out);
    writer.write(figure.items, 1);
    out << "</svg>\n";
    return out.str();
}

}  // namespace attnlab::plots
