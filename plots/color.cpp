// color.cpp — see color.hpp.
#include "plots/color.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace attnlab::plots {

Color with_alpha(Color c, double alpha) {
    c.a = std::clamp(alpha, 0.0, 1.0);
    return c;
}

Color mix(Color from, Color to, double t) {
    t = std::clamp(t, 0.0, 1.0);
    auto channel = [t](std::uint8_t x, std::uint8_t y) {
        return static_cast<std::uint8_t>(std::lround(x + (double(y) - x) * t));
    };
    return Color{channel(from.r, to.r), channel(from.g, to.g), channel(from.b, to.b), from.a + (to.a - from.a) * t};
}

Color darker(Color c, double factor) {
    factor = std::clamp(factor, 0.0, 1.0);
    auto scale = [factor](std::uint8_t x) { return static_cast<std::uint8_t>(std::lround(x * factor)); };
    return Color{scale(c.r), scale(c.g), scale(c.b), c.a};
}

std::string to_hex(Color c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

double relative_luminance(Color c) {
    auto linear = [](std::uint8_t v) {
        double s = v / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

Color contrasting_text(Color background) {
    // WCAG contrast ratio (L1 + 0.05) / (L2 + 0.05) against each candidate.
    double l = relative_luminance(background);
    double against_ink = (l + 0.05) / (relative_luminance(palette::ink) + 0.05);
    double against_white = (1.0 + 0.05) / (l + 0.05);
    return against_ink >= against_white ? palette::ink : palette::white;
}

namespace palette {
Color categorical(std::size_t i) {
    static constexpr std::array<std::uint32_t, 10> tab10 = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                                            0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    return rgb(tab10[i % tab10.size()]);
}
}  // namespace palette

}  // namespace attnlab::plots
