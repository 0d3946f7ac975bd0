// chart_fixtures.hpp — one figure of every chart type, built from small fixed
// data, shared by the tests that check properties every chart must have
// (well-formed SVG, every label inside the image). Long labels are used on
// purpose: they are what could push text off the figure.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "plots/scene.hpp"

namespace plots_test {

// (name, figure) for heatmap, heatmap grid, bar charts, line charts, both flow
// layouts, the flow diagram, the 3-D view and the table. A non-empty `title` replaces
// every chart's own (a long one is what could run off the right edge).
std::vector<std::pair<std::string, attnlab::plots::Figure>> every_chart(const std::string& title = "");

}  // namespace plots_test
