// color.hpp — an sRGB colour with straight (not premultiplied) alpha, and the
// few named colours every chart shares.
//
// Colours are 8-bit sRGB because both back ends speak it natively (SVG "#rrggbb",
// PNG/GIF bytes); opacity is a separate double so SVG can say fill-opacity and the
// rasteriser can blend. Left out: colour spaces other than sRGB, and blending in
// linear light (we blend sRGB bytes, as browsers do for SVG). To add a named
// colour, add it to `palette` below; to add a colour map, see colormap.hpp.
#pragma once
#include <cstdint>
#include <string>

namespace attnlab::plots {

struct Color {
    std::uint8_t r = 0, g = 0, b = 0;
    double a = 1.0;  // opacity in [0, 1]; 0 draws nothing
    bool operator==(const Color&) const = default;
};

// 0xRRGGBB -> Color, so colours read like the hex codes designers use.
constexpr Color rgb(std::uint32_t hex, double alpha = 1.0) {
    return Color{static_cast<std::uint8_t>(hex >> 16), static_cast<std::uint8_t>(hex >> 8),
                 static_cast<std::uint8_t>(hex), alpha};
}

Color with_alpha(Color c, double alpha);
// Linear interpolation of the sRGB bytes (and alpha); t is clamped to [0, 1].
Color mix(Color from, Color to, double t);
// Scales r, g, b towards black by `factor` in [0, 1] (1 = unchanged); used to shade 3-D faces.
Color darker(Color c, double factor);
// "#rrggbb" (alpha is written separately by the SVG back end).
std::string to_hex(Color c);
// WCAG relative luminance in [0, 1] (sRGB bytes decoded to linear light first).
double relative_luminance(Color c);
// Black-ish ink or white, whichever contrasts more with `background` (WCAG contrast ratio).
Color contrasting_text(Color background);

// Shared named colours, so every chart has the same look.
namespace palette {
inline constexpr Color white = rgb(0xffffff);
inline constexpr Color ink = rgb(0x222222);        // text and axis lines
inline constexpr Color muted = rgb(0x666666);      // secondary text (dimension notes, captions)
inline constexpr Color grid = rgb(0xe3e3e3);       // grid lines behind data
inline constexpr Color frame = rgb(0x9a9a9a);      // plot frames, box outlines
inline constexpr Color highlight = rgb(0xe8590c);  // the one accent colour (self-loops, fits)
// matplotlib's "tab10": the categorical colours for series i = 0, 1, ... (cycles after 10).
Color categorical(std::size_t i);
}  // namespace palette

}  // namespace attnlab::plots
