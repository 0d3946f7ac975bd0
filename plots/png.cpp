// png.cpp — see png.hpp.
#include "plots/png.hpp"

#include <array>
#include <cstdlib>

#include "plots/checksum.hpp"
#include "plots/deflate.hpp"

namespace attnlab::plots {
namespace {

void put_u32(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

// length, type, data, CRC-32 over type + data.
void write_chunk(std::string& out, std::string_view type, std::string_view data) {
    put_u32(out, static_cast<std::uint32_t>(data.size()));
    std::string body(type);
    body += data;
    out += body;
    put_u32(out, crc32(body));
}

std::uint8_t paeth(int a, int b, int c) {  // a = left, b = above, c = upper left
    int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    if (pa <= pb && pa <= pc) return static_cast<std::uint8_t>(a);
    return static_cast<std::uint8_t>(pb <= pc ? b : c);
}

// Appends the filter-type byte and the filtered row that scores lowest.
void filter_row(std::string& out, const std::uint8_t* row, const std::uint8_t* above, std::size_t n) {
    constexpr int kBpp = 3;  // bytes per pixel: filters look one pixel to the left
    std::array<std::string, 5> candidates;
    for (int type = 0; type < 5; ++type) {
        std::string& f = candidates[type];
        f.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            int a = i >= kBpp ? row[i - kBpp] : 0, b = above ? above[i] : 0;
            int c = (above && i >= kBpp) ? above[i - kBpp] : 0;
            int predicted = type == 0 ? 0 : type == 1 ? a : type == 2 ? b : type == 3 ? (a + b) / 2 : paeth(a, b, c);
            f[i] = static_cast<char>(static_cast<std::uint8_t>(row[i] - predicted));
        }
    }
    // Score: bytes as signed values, summed in absolute value (small residuals win).
    int best = 0;
    long best_score = -1;
    for (int type = 0; type < 5; ++type) {
        long score = 0;
        for (char ch : candidates[type]) score += std::abs(static_cast<int>(static_cast<signed char>(ch)));
        if (best_score < 0 || score < best_score) best_score = score, best = type;
    }
    out.push_back(static_cast<char>(best));
    out += candidates[best];
}

}  // namespace

std::string encode_png(const Image& image) {
    std::string out = "\x89PNG\r\n\x1a\n";  // the signature: detects 7-bit and line-ending mangling

    std::string ihdr;
    put_u32(ihdr, static_cast<std::uint32_t>(image.width));
    put_u32(ihdr, static_cast<std::uint32_t>(image.height));
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // bit depth 8, truecolour, deflate, adaptive filter, no interlace
    write_chunk(out, "IHDR", ihdr);

    std::size_t stride = static_cast<std::size_t>(image.width) * 3;
    std::string filtered;
    filtered.reserve((stride + 1) * image.height);
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* row = image.rgb.data() + y * stride;
        filter_row(filtered, row, y > 0 ? row - stride : nullptr, stride);
    }
    write_chunk(out, "IDAT", zlib_compress(filtered));
    write_chunk(out, "IEND", "");
    return out;
}

}  // namespace attnlab::plots
