// image.cpp — see image.hpp.
#include "plots/image.hpp"

#include "tensor/error.hpp"

namespace attnlab::plots {

Image::Image(int w, int h, Color fill) : width(w), height(h) {
    // 2^14 per side keeps width * height * 3 far from overflow and inside PNG/GIF limits.
    if (w <= 0 || h <= 0 || w > (1 << 14) || h > (1 << 14) || double(w) * h > double(1 << 25))
        throw ValueError("Image: size must be 1..16384 per side and at most 2^25 pixels (layout::kMaxPixels), got " +
                         std::to_string(w) + " x " + std::to_string(h));
    rgb.resize(static_cast<std::size_t>(w) * h * 3);
    for (std::size_t i = 0; i < rgb.size(); i += 3) {
        rgb[i] = fill.r;
        rgb[i + 1] = fill.g;
        rgb[i + 2] = fill.b;
    }
}

std::string encode_ppm(const Image& image) {
    std::string out = "P6\n" + std::to_string(image.width) + " " + std::to_string(image.height) + "\n255\n";
    out.append(image.rgb.begin(), image.rgb.end());
    return out;
}

}  // namespace attnlab::plots
