// quantize.cpp — see quantize.hpp.
#include "plots/quantize.hpp"

#include <algorithm>
#include <unordered_map>

#include "tensor/error.hpp"

namespace attnlab::plots {
namespace {

struct Entry {
    std::uint32_t rgb;  // 0xRRGGBB
    std::uint64_t count;
};

int channel(std::uint32_t rgb, int c) { return static_cast<int>((rgb >> (16 - 8 * c)) & 0xFF); }

std::uint32_t pack(const std::uint8_t* p) { return std::uint32_t(p[0]) << 16 | std::uint32_t(p[1]) << 8 | p[2]; }

// Visits every pixel; consecutive equal pixels (most of a chart) are counted in one step.
template <class F>
void for_each_run(const Image& image, F&& visit) {
    std::size_t n = image.rgb.size() / 3;
    std::size_t i = 0;
    while (i < n) {
        std::uint32_t c = pack(&image.rgb[i * 3]);
        std::size_t j = i + 1;
        while (j < n && pack(&image.rgb[j * 3]) == c) ++j;
        visit(c, i, j);
        i = j;
    }
}

struct Span {  // a median-cut box: a range of the entries vector
    std::size_t begin, end;
};

// The channel with the widest range in the box, and that range.
std::pair<int, int> widest_channel(const std::vector<Entry>& e, Span s) {
    int best = 0, best_range = -1;
    for (int c = 0; c < 3; ++c) {
        int lo = 255, hi = 0;
        for (std::size_t i = s.begin; i < s.end; ++i) {
            lo = std::min(lo, channel(e[i].rgb, c));
            hi = std::max(hi, channel(e[i].rgb, c));
        }
        if (hi - lo > best_range) best_range = hi - lo, best = c;
    }
    return {best, best_range};
}

std::vector<std::uint32_t> median_cut(std::vector<Entry>& entries, std::size_t max_colors) {
    std::vector<Span> boxes = {{0, entries.size()}};
    while (boxes.size() < max_colors) {
        // Split the box with the widest channel range; it has the worst representative.
        std::size_t pick = boxes.size();
        int pick_channel = 0, pick_range = 0;
        for (std::size_t b = 0; b < boxes.size(); ++b) {
            if (boxes[b].end - boxes[b].begin < 2) continue;
            auto [c, range] = widest_channel(entries, boxes[b]);
            if (range > pick_range) pick = b, pick_channel = c, pick_range = range;
        }
        if (pick == boxes.size()) break;  // every box is a single colour
        Span s = boxes[pick];
        std::sort(entries.begin() + s.begin, entries.begin() + s.end, [&](const Entry& a, const Entry& b) {
            return channel(a.rgb, pick_channel) < channel(b.rgb, pick_channel);
        });
        std::uint64_t total = 0, running = 0;
        for (std::size_t i = s.begin; i < s.end; ++i) total += entries[i].count;
        std::size_t cut = s.begin + 1;
        for (std::size_t i = s.begin; i + 1 < s.end; ++i) {
            running += entries[i].count;
            cut = i + 1;
            if (running * 2 >= total) break;
        }
        boxes[pick] = {s.begin, cut};
        boxes.push_back({cut, s.end});
    }
    std::vector<std::uint32_t> palette;
    for (Span s : boxes) {
        auto most = std::max_element(entries.begin() + s.begin, entries.begin() + s.end,
                                     [](const Entry& a, const Entry& b) { return a.count < b.count; });
        palette.push_back(most->rgb);
    }
    return palette;
}

}  // namespace

IndexedFrames quantize(const std::vector<Image>& frames, int max_colors) {
    if (max_colors < 2 || max_colors > 256)
        throw ValueError("quantize: max_colors must be 2..256, got " + std::to_string(max_colors));
    if (frames.empty()) throw ValueError("quantize: no frames");
    for (std::size_t f = 1; f < frames.size(); ++f)
        if (frames[f].width != frames[0].width || frames[f].height != frames[0].height)
            throw ShapeError("quantize: frame " + std::to_string(f) + " is " + std::to_string(frames[f].width) + " x " +
                             std::to_string(frames[f].height) + " but frame 0 is " + std::to_string(frames[0].width) +
                             " x " + std::to_string(frames[0].height));

    std::unordered_map<std::uint32_t, std::uint64_t> histogram;
    for (const Image& image : frames)
        for_each_run(image, [&](std::uint32_t c, std::size_t i, std::size_t j) { histogram[c] += j - i; });
    std::vector<Entry> entries;
    entries.reserve(histogram.size());
    for (auto [rgb, count] : histogram) entries.push_back({rgb, count});
    // Most frequent first (ties by value), so the palette order is deterministic.
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.count != b.count ? a.count > b.count : a.rgb < b.rgb; });

    std::vector<std::uint32_t> palette;
    if (entries.size() <= static_cast<std::size_t>(max_colors)) {
        for (const Entry& e : entries) palette.push_back(e.rgb);
    } else {
        std::vector<Entry> work = entries;
        palette = median_cut(work, static_cast<std::size_t>(max_colors));
    }

    // Nearest palette entry for every distinct colour (green weighs most, as the eye does).
    std::unordered_map<std::uint32_t, std::uint8_t> nearest;
    nearest.reserve(entries.size());
    for (const Entry& e : entries) {
        long best = -1;
        std::size_t best_i = 0;
        for (std::size_t p = 0; p < palette.size(); ++p) {
            long dr = channel(e.rgb, 0) - channel(palette[p], 0), dg = channel(e.rgb, 1) - channel(palette[p], 1),
                 db = channel(e.rgb, 2) - channel(palette[p], 2);
            long d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
            if (best < 0 || d < best) best = d, best_i = p;
        }
        nearest[e.rgb] = static_cast<std::uint8_t>(best_i);
    }

    IndexedFrames out;
    for (std::uint32_t c : palette)
        out.palette.push_back(Color{std::uint8_t(c >> 16), std::uint8_t(c >> 8), std::uint8_t(c), 1.0});
    for (const Image& image : frames) {
        std::vector<std::uint8_t> idx(image.rgb.size() / 3);
        for_each_run(image, [&](std::uint32_t c, std::size_t i, std::size_t j) {
            std::fill(idx.begin() + static_cast<std::ptrdiff_t>(i), idx.begin() + static_cast<std::ptrdiff_t>(j),
                      nearest.at(c));
        });
        out.indices.push_back(std::move(idx));
    }
    return out;
}

}  // namespace attnlab::plots
