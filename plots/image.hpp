// image.hpp — an 8-bit RGB raster image, and the simplest file format for it (PPM).
//
// Pixels are stored row-major, top row first, 3 bytes per pixel — the layout PNG,
// GIF and PPM all want, so the encoders read it directly. There is no alpha
// channel: figures are composited onto their background. Left out: other pixel
// formats and PPM variants (P3 ASCII, 16-bit). To add a format, write an encoder
// taking `const Image&` and returning the file's bytes (see png.hpp, gif.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "plots/color.hpp"

namespace attnlab::plots {

struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb;  // width * height * 3 bytes

    Image() = default;
    // Throws ValueError for a non-positive or absurdly large size.
    Image(int width, int height, Color fill = palette::white);

    Color at(int x, int y) const {
        const std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
        return Color{p[0], p[1], p[2], 1.0};
    }
};

// A binary PPM ("P6"): a text header "P6 <w> <h> 255\n", then the raw RGB bytes.
std::string encode_ppm(const Image& image);

}  // namespace attnlab::plots
