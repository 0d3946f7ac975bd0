// layout.hpp — the spacing rules and measuring helpers every chart shares.
//
// Charts are sized from their content: a chart adds up the widths of its labels
// (text_metrics.hpp), these fixed gaps and its data area, and makes the figure
// exactly that big. Nothing is hand-placed per figure, so long labels grow the
// margin instead of running off the image. Tick positions come from the classic
// "nice numbers" rule (steps of 1, 2 or 5 times a power of ten). Left out: legends
// inside the data area (charts put them beside it, where they cannot cover data)
// and automatic label thinning. To change the look of every chart at once, change
// the constants here.
#pragma once
#include <string>
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots::layout {

inline constexpr double kPad = 16;         // figure edge to content
inline constexpr double kGap = 8;          // between a label and what it labels
inline constexpr double kTick = 4;         // tick mark length
inline constexpr int kTitleScale = 2;      // figure titles
inline constexpr double kTitleGap = 14;    // below the title

// Widest of the labels at the given scale (0 for none).
double max_text_width(const std::vector<std::string>& labels, int scale = 1);

// Height the figure title takes, including the gap below it (0 for no title).
double title_band(const std::string& title);
// Adds the title centred at x with its top at y; returns the y below its band.
double add_title(Figure& figure, const std::string& title, double center_x, double top);

// Pixel coordinate for a crisp 1 px line: the centre of the pixel containing x.
double crisp(double x);
// Rounds a content size up to whole pixels for the figure.
int whole_pixels(double size);

// The largest figure any chart draws: 16384 pixels a side (PNG and GIF encoders, and
// width * height * 3 far from overflow) and 2^25 pixels in all (a 96 MiB raster). Charts
// whose size grows with their data call check_size once the layout is measured and before
// a primitive is added, so a drawing too large to render fails before it costs anything.
inline constexpr int kMaxSide = 1 << 14;
inline constexpr double kMaxPixels = double(1 << 25);
// ValueError naming `who` and the size if width x height is beyond those limits (or not positive).
void check_size(const std::string& who, double width, double height);

// Numbers for labels: fixed decimals, with "-0.00" shown as "0.00".
std::string format_fixed(double value, int decimals);

struct Ticks {
    std::vector<double> values;
    std::vector<std::string> labels;
    double lo = 0, hi = 1;  // the axis range the ticks were made for (may be widened to whole steps)
};
// Ticks on a linear axis: about `target` steps of 1, 2 or 5 x 10^k. With widen,
// the range grows to whole steps (for value axes); without, ticks stay inside.
Ticks linear_ticks(double lo, double hi, int target = 5, bool widen = true);
// Ticks on a log-10 axis over [lo, hi] (both > 0) plus a small margin: every power
// of ten in range, and 2x, 5x when the range spans fewer than three decades.
Ticks log_ticks(double lo, double hi);
// Ticks on a log-10 axis at the data's own values (a sweep over 1, 2, 4, 8, 16 or 8, 32, 128
// reads best at those numbers, not at 1, 2, 5, 10), with log_ticks' margin; log_ticks when
// there are more than kMaxValueTicks distinct values (then they are a curve, not a sweep).
inline constexpr std::size_t kMaxValueTicks = 10;
Ticks log_ticks_at(std::vector<double> values);

}  // namespace attnlab::plots::layout
