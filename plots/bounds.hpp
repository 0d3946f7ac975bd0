// bounds.hpp — the box a list of primitives covers, text and stroke widths included.
//
// Used to fit content whose size depends on its own scale (the 3-D view: the
// scene grows with the scale, its labels do not) and by the tests to check that
// nothing is drawn outside the figure. Clip groups are not applied: the bounds
// are of what was asked to be drawn. Left out: exact curve and arrow-head
// extents (points are used, widened by half the stroke and the head width).
#pragma once
#include <optional>
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

// std::nullopt if nothing is drawn.
std::optional<Box> content_bounds(const std::vector<Primitive>& items);

}  // namespace attnlab::plots
