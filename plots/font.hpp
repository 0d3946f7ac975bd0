// font.hpp — attnlab's own bitmap font: printable ASCII, 5 x 9 pixel glyphs.
//
// Every glyph sits in a 6-pixel advance (5 columns of ink + 1 of spacing) and 9
// rows: rows 0-6 are above the baseline (capitals and digits are 7 tall, lower
// case x-height is 5), rows 7-8 hold the descenders of g j p q y , ;. Text is
// scaled by an integer factor (each font pixel becomes a scale x scale block), so
// it stays crisp: scale 1 for tick labels (7 px capitals), 2 for titles.
// The SVG back end writes text as text in a monospace font at font-size 10*scale,
// whose 0.6 em advance matches our 6 px, so layouts agree between the back ends.
//
// Left out: kerning, proportional widths, anything beyond ASCII 32..126 (both back
// ends draw other bytes as '?', see text_metrics.hpp). To change a glyph, edit its
// column in the sheet in font.cpp; the sheet is checked at compile time.
#pragma once
#include <array>
#include <cstdint>

namespace attnlab::plots::font {

inline constexpr int kGlyphWidth = 5;  // columns of ink
inline constexpr int kGlyphRows = 9;   // rows, top to bottom
inline constexpr int kAscent = 7;      // rows above the baseline
inline constexpr int kDescent = 2;     // rows below it
inline constexpr int kAdvance = 6;     // pen movement per character
inline constexpr int kLineHeight = 12; // baseline-to-baseline distance for stacked lines

// Row r of a glyph is a 5-bit mask; bit 4 is the leftmost column.
using Glyph = std::array<std::uint8_t, kGlyphRows>;

// The glyph of a printable ASCII character (32..126); any other byte gets the
// "missing" glyph, a hollow box.
const Glyph& glyph(char c);

inline bool is_ink(const Glyph& g, int row, int column) { return (g[row] >> (kGlyphWidth - 1 - column)) & 1; }

}  // namespace attnlab::plots::font
