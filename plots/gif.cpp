// gif.cpp — see gif.hpp.
#include "plots/gif.hpp"

#include "plots/lzw.hpp"
#include "plots/quantize.hpp"
#include "tensor/error.hpp"

namespace attnlab::plots {
namespace {

void put_u16(std::string& out, int v) {  // GIF is little-endian
    out.push_back(static_cast<char>(v & 0xFF));
    out.push_back(static_cast<char>((v >> 8) & 0xFF));
}

void put_sub_blocks(std::string& out, std::string_view data) {
    while (!data.empty()) {
        std::size_t n = std::min<std::size_t>(data.size(), 255);
        out.push_back(static_cast<char>(n));
        out.append(data.substr(0, n));
        data.remove_prefix(n);
    }
    out.push_back('\0');  // block terminator
}

}  // namespace

std::string encode_gif(const std::vector<GifFrame>& frames, int loop_count) {
    if (frames.empty()) throw ValueError("encode_gif: no frames");
    if (loop_count < 0 || loop_count > 65535)
        throw ValueError("encode_gif: loop_count must be 0..65535, got " + std::to_string(loop_count));
    std::vector<Image> images;
    images.reserve(frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
        if (frames[i].delay_cs < 0 || frames[i].delay_cs > 65535)
            throw ValueError("encode_gif: frame " + std::to_string(i) + " has delay " +
                             std::to_string(frames[i].delay_cs) + " cs, outside 0..65535");
        images.push_back(frames[i].image);
    }
    IndexedFrames indexed = quantize(images);  // checks that the sizes agree

    // The colour table has 2^(n+1) entries; pad the palette to that size.
    int table_bits = 1;
    while ((1 << table_bits) < static_cast<int>(indexed.palette.size())) ++table_bits;
    const int width = images[0].width, height = images[0].height;

    std::string out = "GIF89a";
    put_u16(out, width);
    put_u16(out, height);
    // Global colour table present (0x80), colour resolution 8 bits (0x70), its size field.
    out.push_back(static_cast<char>(0x80 | 0x70 | (table_bits - 1)));
    out.push_back('\0');  // background colour index
    out.push_back('\0');  // pixel aspect ratio: not given
    for (int i = 0; i < (1 << table_bits); ++i) {
        Color c = i < static_cast<int>(indexed.palette.size()) ? indexed.palette[i] : Color{};
        out.push_back(static_cast<char>(c.r));
        out.push_back(static_cast<char>(c.g));
        out.push_back(static_cast<char>(c.b));
    }

    // Application extension: "NETSCAPE2.0", sub-block {1, loop count}.
    out += "\x21\xFF\x0B" "NETSCAPE2.0" "\x03\x01";
    put_u16(out, loop_count);
    out.push_back('\0');

    const int min_code_size = std::max(2, table_bits);
    for (std::size_t f = 0; f < frames.size(); ++f) {
        // Graphic control extension: disposal 1 (leave the frame in place), no transparency.
        out += "\x21\xF9\x04";
        out.push_back(static_cast<char>(1 << 2));
        put_u16(out, frames[f].delay_cs);
        out.push_back('\0');  // transparent colour index (unused)
        out.push_back('\0');
        // Image descriptor: the whole screen, no local table, not interlaced.
        out.push_back('\x2C');
        put_u16(out, 0);
        put_u16(out, 0);
        put_u16(out, width);
        put_u16(out, height);
        out.push_back('\0');
        out.push_back(static_cast<char>(min_code_size));
        put_sub_blocks(out, lzw_encode(indexed.indices[f], min_code_size));
    }
    out.push_back('\x3B');  // trailer
    return out;
}

}  // namespace attnlab::plots
