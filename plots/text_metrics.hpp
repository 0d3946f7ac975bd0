// text_metrics.hpp — how much room a Text primitive takes, and where.
//
// Layout code sizes figures from these numbers (label widths decide margins), the
// back ends place glyphs with them, and the tests check every label's box lies
// inside its figure — one set of metrics for all three, so they cannot disagree.
// A Text is laid out in its own frame (u to the right along the reading direction,
// v down), relative to its anchor; a vertical text maps that frame onto the figure
// turned 90° counter-clockwise. Left out: multi-line text (charts stack Text
// primitives kLineHeight apart). To support another rotation, extend to_figure and
// text_bounds, and the SVG transform in svg.cpp.
#pragma once
#include <string>
#include <string_view>

#include "plots/scene.hpp"

namespace attnlab::plots {

// The text as both back ends draw it: bytes outside printable ASCII become '?'.
std::string printable(std::string_view text);

// Width of the ink (no trailing spacing column) at an integer scale; 0 for "".
double text_width(std::string_view text, int scale = 1);
// Height from the top of the capitals to the bottom of the descenders.
double text_height(int scale = 1);

// The text's box in its own frame, relative to the anchor.
struct TextFrame {
    double left = 0, top = 0;  // offsets of the box's top-left corner from the anchor
    double width = 0, height = 0;
    double baseline = 0;  // offset of the baseline from the anchor (v axis)
};
TextFrame text_frame(const Text& text);

// Maps a point (u, v) of the text's own frame (relative to the anchor) into the figure.
Point to_figure(const Text& text, double u, double v);

// The box the text covers in figure coordinates.
Box text_bounds(const Text& text);

}  // namespace attnlab::plots
