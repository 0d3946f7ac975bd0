// colorbar.hpp — the colour bar: which colour means which value.
//
// A vertical strip of the colour map (drawn as thin bands, so both back ends show
// the same discrete steps), a frame, ticks with labels on its right, and an
// optional turned label. colorbar_band says how wide all of that is, so charts
// reserve the room before placing it. Left out: horizontal bars, extension
// triangles for clipped values, log-scaled bars.
#pragma once
#include <string>

#include "plots/colormap.hpp"
#include "plots/scene.hpp"

namespace attnlab::plots {

struct ColorbarSpec {
    Colormap map = Colormap::viridis;
    Normalizer range;
    std::string label;  // e.g. "attention weight"; empty = none
};

inline constexpr double kColorbarWidth = 14;

// Width from the bar's left edge to the right end of its labels.
double colorbar_band(const ColorbarSpec& spec);
// `bar` is the coloured strip; labels go to its right (colorbar_band - bar width).
void draw_colorbar(Figure& figure, const Box& bar, const ColorbarSpec& spec);

}  // namespace attnlab::plots
