// colormap.cpp — see colormap.hpp.
#include "plots/colormap.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace attnlab::plots {
namespace {

// Evenly spaced stops, first = t 0, last = t 1.
constexpr std::uint32_t kViridis[] = {0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
                                      0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725};
constexpr std::uint32_t kBlues[] = {0xf7fbff, 0xdeebf7, 0xc6dbef, 0x9ecae1, 0x6baed6,
                                    0x4292c6, 0x2171b5, 0x08519c, 0x08306b};
constexpr std::uint32_t kReds[] = {0xfff5f0, 0xfee0d2, 0xfcbba1, 0xfc9272, 0xfb6a4a,
                                   0xef3b2c, 0xcb181d, 0xa50f15, 0x67000d};
constexpr std::uint32_t kGreys[] = {0xffffff, 0xf0f0f0, 0xd9d9d9, 0xbdbdbd, 0x969696,
                                    0x737373, 0x525252, 0x252525, 0x000000};
// ColorBrewer RdBu reversed, so that negative is blue and positive is red.
constexpr std::uint32_t kRedBlue[] = {0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
                                      0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f};

std::span<const std::uint32_t> stops(Colormap map) {
    switch (map) {
        case Colormap::viridis: return kViridis;
        case Colormap::blues: return kBlues;
        case Colormap::reds: return kReds;
        case Colormap::greys: return kGreys;
        case Colormap::red_blue: return kRedBlue;
    }
    return kViridis;
}

}  // namespace

Color sample(Colormap map, double t) {
    auto s = stops(map);
    if (std::isnan(t)) t = 0;
    double pos = std::clamp(t, 0.0, 1.0) * double(s.size() - 1);
    std::size_t i = std::min(static_cast<std::size_t>(pos), s.size() - 2);
    return mix(rgb(s[i]), rgb(s[i + 1]), pos - double(i));
}

std::string colormap_name(Colormap map) {
    switch (map) {
        case Colormap::viridis: return "viridis";
        case Colormap::blues: return "blues";
        case Colormap::reds: return "reds";
        case Colormap::greys: return "greys";
        case Colormap::red_blue: return "red_blue";
    }
    return "?";
}

bool is_diverging(Colormap map) { return map == Colormap::red_blue; }

Normalizer choose_range(Colormap map, double data_min, double data_max, std::optional<double> forced_lo,
                        std::optional<double> forced_hi) {
    Normalizer n{data_min, data_max};
    if (is_diverging(map)) {
        double m = std::max(std::abs(data_min), std::abs(data_max));
        n = {-m, m};
    }
    if (forced_lo) n.lo = *forced_lo;
    if (forced_hi) n.hi = *forced_hi;
    if (!(n.hi > n.lo)) {
        double mid = n.lo;
        n = {mid - 0.5, mid + 0.5};
    }
    return n;
}

}  // namespace attnlab::plots
