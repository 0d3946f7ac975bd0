// text_metrics.cpp — see text_metrics.hpp.
#include "plots/text_metrics.hpp"

#include "plots/font.hpp"

namespace attnlab::plots {

std::string printable(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
    return out;
}

double text_width(std::string_view text, int scale) {
    if (text.empty()) return 0;
    return double(text.size() * font::kAdvance - (font::kAdvance - font::kGlyphWidth)) * scale;
}

double text_height(int scale) { return double(font::kAscent + font::kDescent) * scale; }

TextFrame text_frame(const Text& text) {
    TextFrame f;
    f.width = text_width(text.text, text.scale);
    f.height = text_height(text.scale);
    switch (text.halign) {
        case HAlign::left: f.left = 0; break;
        case HAlign::center: f.left = -f.width / 2; break;
        case HAlign::right: f.left = -f.width; break;
    }
    double ascent = double(font::kAscent) * text.scale;
    switch (text.valign) {
        case VAlign::top: f.top = 0; break;
        case VAlign::middle: f.top = -ascent / 2; break;  // centre of the capitals on the anchor
        case VAlign::baseline: f.top = -ascent; break;
        case VAlign::bottom: f.top = -f.height; break;
    }
    f.baseline = f.top + ascent;
    return f;
}

Point to_figure(const Text& text, double u, double v) {
    // Turning the frame 90° counter-clockwise on screen (y down): u runs up, v runs right.
    if (text.vertical) return {text.at.x + v, text.at.y - u};
    return {text.at.x + u, text.at.y + v};
}

Box text_bounds(const Text& text) {
    TextFrame f = text_frame(text);
    if (!text.vertical) return {text.at.x + f.left, text.at.y + f.top, f.width, f.height};
    Point top_left = to_figure(text, f.left + f.width, f.top);  // the frame's top-right corner ends up top-left
    return {top_left.x, top_left.y, f.height, f.width};
}

}  // namespace attnlab::plots
