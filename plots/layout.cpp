// layout.cpp — see layout.hpp.
#include "plots/layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plots/text_metrics.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots::layout {

double max_text_width(const std::vector<std::string>& labels, int scale) {
    double w = 0;
    for (const auto& l : labels) w = std::max(w, text_width(l, scale));
    return w;
}

double title_band(const std::string& title) {
    return title.empty() ? 0 : text_height(kTitleScale) + kTitleGap;
}

double add_title(Figure& figure, const std::string& title, double center_x, double top) {
    if (title.empty()) return top;
    figure.add(Text{.at = {center_x, top}, .text = title, .scale = kTitleScale, .halign = HAlign::center,
                    .valign = VAlign::top});
    return top + title_band(title);
}

void check_size(const std::string& who, double width, double height) {
    if (!(width >= 1 && height >= 1 && width <= kMaxSide && height <= kMaxSide && width * height <= kMaxPixels)) {
        char size[64];
        std::snprintf(size, sizeof size, "%.0f x %.0f", std::ceil(width), std::ceil(height));
        throw ValueError(who + ": the figure would be " + size + " pixels; the limit is " + std::to_string(kMaxSide) +
                         " per side and " + std::to_string(static_cast<long long>(kMaxPixels)) +
                         " in all (fewer tokens, layers or heads make it smaller)");
    }
}

double crisp(double x) { return std::floor(x) + 0.5; }

int whole_pixels(double size) { return static_cast<int>(std::ceil(size - 1e-9)); }

std::string format_fixed(double value, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 12), value);
    std::string s = buf;
    // "-0.00" reads as a sign error; a value that rounds to zero is zero.
    if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
    return s;
}

namespace {

double nice_step(double span, int target) {
    double raw = span / std::max(target, 1);
    double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (raw <= m * power * (1 + 1e-9)) return m * power;
    return 10 * power;
}

int decimals_for(double step) {
    int d = 0;
    while (d < 8 && std::abs(step * std::pow(10.0, d) - std::round(step * std::pow(10.0, d))) > 1e-6) ++d;
    return d;
}

std::string format_log_tick(double v) {
    if (v >= 1 && v < 1e6) return format_fixed(v, 0);
    if (v < 1 && v >= 1e-3) return format_fixed(v, decimals_for(v));
    char buf[32];
    std::snprintf(buf, sizeof buf, "1e%d", static_cast<int>(std::lround(std::log10(v))));
    if (std::abs(v / std::pow(10.0, std::round(std::log10(v))) - 1) > 1e-9) std::snprintf(buf, sizeof buf, "%.0e", v);
    return buf;
}

}  // namespace

Ticks linear_ticks(double lo, double hi, int target, bool widen) {
    if (!(hi > lo)) {
        double mid = lo;
        lo = mid - 0.5, hi = mid + 0.5;
    }
    double step = nice_step(hi - lo, target);
    Ticks t;
    double first = widen ? std::floor(lo / step + 1e-9) * step : std::ceil(lo / step - 1e-9) * step;
    double last = widen ? std::ceil(hi / step - 1e-9) * step : std::floor(hi / step + 1e-9) * step;
    t.lo = widen ? first : lo;
    t.hi = widen ? last : hi;
    int decimals = decimals_for(step);
    for (int i = 0; first + i * step <= last + step * 1e-9; ++i) {
        double v = first + i * step;
        if (std::abs(v) < step * 1e-9) v = 0;
        t.values.push_back(v);
        t.labels.push_back(format_fixed(v, decimals));
    }
    return t;
}

Ticks log_ticks(double lo, double hi) {
    Ticks t;
    if (!(hi > lo)) lo /= 2, hi *= 2;
    // A small margin in log space keeps end points off the frame, without widening
    // to whole decades (which can leave most of the plot empty).
    double margin = std::pow(hi / lo, 0.04);
    t.lo = lo / margin;
    t.hi = hi * margin;
    int e0 = static_cast<int>(std::floor(std::log10(t.lo))), e1 = static_cast<int>(std::ceil(std::log10(t.hi)));
    bool fine = std::log10(t.hi / t.lo) < 3;  // few decades: label 2x and 5x too
    for (int e = e0; e <= e1; ++e) {
        for (double m : {1.0, 2.0, 5.0}) {
            double v = m * std::pow(10.0, e);
            if ((m != 1.0 && !fine) || v < t.lo * (1 - 1e-9) || v > t.hi * (1 + 1e-9)) continue;
            t.values.push_back(v);
            t.labels.push_back(format_log_tick(v));
        }
    }
    return t;
}

Ticks log_ticks_at(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (values.empty() || values.size() > kMaxValueTicks) return log_ticks(values.empty() ? 1 : values.front(), values.empty() ? 10 : values.back());
    Ticks t = log_ticks(values.front(), values.back());  // the range and its margin
    t.values = values;
    t.labels.clear();
    for (double v : values) t.labels.push_back(format_log_tick(v));
    return t;
}

}  // namespace attnlab::plots::layout
