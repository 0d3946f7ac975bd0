// colormap.hpp — continuous colour maps: a number in [0, 1] -> a colour.
//
// Each map is a short list of evenly spaced stops (published reference colours:
// matplotlib's viridis, ColorBrewer's Blues/Reds/Greys/RdBu) interpolated linearly
// in sRGB, which is visually indistinguishable from the full 256-entry tables at
// chart sizes. `Normalizer` turns data values into t, and knows that a diverging
// map must be centred on zero. Left out: discrete/categorical maps (see
// palette::categorical) and perceptual interpolation in CAM02-UCS. To add a map,
// add an enumerator, its stops in colormap.cpp, and its name in colormap_name.
#pragma once
#include <optional>
#include <string>

#include "plots/color.hpp"

namespace attnlab::plots {

enum class Colormap {
    viridis,   // dark purple -> yellow; perceptually uniform, the default
    blues,     // white -> dark blue
    reds,      // white -> dark red
    greys,     // white -> black
    red_blue,  // diverging: blue (negative) -> white (zero) -> red (positive)
};

// t is clamped to [0, 1]; NaN maps to t = 0.
Color sample(Colormap map, double t);
std::string colormap_name(Colormap map);
bool is_diverging(Colormap map);

// Maps data values onto [0, 1] for a colour map.
struct Normalizer {
    double lo = 0, hi = 1;
    double operator()(double v) const { return hi > lo ? (v - lo) / (hi - lo) : 0.5; }
};

// The value range a chart shows: [data_min, data_max] unless overridden; for a
// diverging map it is widened to [-m, m] with m = max |value| so that zero sits on
// the map's neutral centre; a degenerate range (all values equal) is widened by
// 0.5 on each side so the colour bar still has a span.
Normalizer choose_range(Colormap map, double data_min, double data_max, std::optional<double> forced_lo = {},
                        std::optional<double> forced_hi = {});

}  // namespace attnlab::plots
