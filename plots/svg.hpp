// svg.hpp — the vector back end: a Figure as an SVG 1.1 document.
//
// Text stays text (selectable, searchable), in a monospace font at font-size
// 10 * scale, which has the same 6 px advance as the bitmap font, so labels take
// the room the layout measured. Arrow heads and dashes come from geometry.hpp,
// like in the raster back end. Output is deterministic (same figure, same bytes)
// and uses only elements every browser and xmllint accept. Left out: CSS classes,
// <defs> reuse, embedded fonts. To support a new primitive, add a write_ overload
// in svg.cpp.
#pragma once
#include <string>

#include "plots/scene.hpp"

namespace attnlab::plots {

std::string render_svg(const Figure& figure);

// Escapes & < > " ' for use in XML text and attribute values.
std::string xml_escape(std::string_view text);

}  // namespace attnlab::plots
