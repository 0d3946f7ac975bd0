// axes.hpp — numeric axes for Cartesian charts (bar and line charts).
//
// A Scale maps data to pixels (linear or log-10). An axis is drawn outside its
// plot box: tick marks, tick labels, a title, and optional light grid lines
// across the box. Each draw_ function has a matching _band function that says
// how much room the axis takes, so a chart can size its margins before drawing.
// Left out: top/right axes, minor ticks, date axes. Categorical axes (bar names)
// are drawn by the bar chart, which knows its slots.
#pragma once
#include <string>

#include "plots/layout.hpp"
#include "plots/scene.hpp"

namespace attnlab::plots {

struct Scale {
    double lo = 0, hi = 1;    // data range (both > 0 for a log scale)
    double from = 0, to = 1;  // pixel positions of lo and hi
    bool log = false;
    double operator()(double v) const;
};

// Room left of the plot box for a y axis: tick marks, labels and a vertical title.
double y_axis_band(const layout::Ticks& ticks, const std::string& title);
// Room below the plot box for an x axis: tick marks, labels and a title.
double x_axis_band(const std::string& title);

// Both draw grid lines across `plot` (if grid), the axis line on the plot's edge,
// ticks, labels, and the title (the y title turned, reading upwards).
void draw_y_axis(Figure& figure, const Box& plot, const Scale& y, const layout::Ticks& ticks,
                 const std::string& title, bool grid);
void draw_x_axis(Figure& figure, const Box& plot, const Scale& x, const layout::Ticks& ticks,
                 const std::string& title, bool grid);

}  // namespace attnlab::plots
