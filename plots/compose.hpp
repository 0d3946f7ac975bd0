// compose.hpp — several finished figures side by side (hstack) or one above the
// other (vstack), under one title: "three panels" figures built from the charts
// that already exist, instead of a multi-panel variant of every chart.
//
// Each figure keeps its own size and content; it is moved, not rescaled, so its
// text stays at the sizes its chart measured. Panels are top-aligned in a row and
// left-aligned in a column. Left out: shared axes and shared legends (give the
// panels the same options instead), nesting beyond calling hstack on vstacks.
#pragma once
#include <string>
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

// Panels left to right, `gap` pixels apart, under `title` (none if empty).
Figure hstack(const std::vector<Figure>& panels, const std::string& title = "", double gap = 24);
// Panels top to bottom, `gap` pixels apart, under `title`.
Figure vstack(const std::vector<Figure>& panels, const std::string& title = "", double gap = 24);

// Every primitive of `figure` moved by (dx, dy), appended to `into` (clips move too).
void place(Figure& into, const Figure& figure, double dx, double dy);

}  // namespace attnlab::plots
