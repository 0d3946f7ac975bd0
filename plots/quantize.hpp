// quantize.hpp — reduces RGB frames to one shared palette of at most 256 colours,
// as a GIF's global colour table requires.
//
// If the frames use few enough distinct colours, the palette is exactly those
// colours and nothing changes. Otherwise we use median cut (Heckbert, 1982): start
// with one box holding every distinct colour, repeatedly split the box with the
// widest channel range at the pixel-weighted median of that channel, until there
// are max_colors boxes. Each box is represented by its most frequent colour, not
// its mean, so flat chart colours (background, text, axis lines) stay exact and
// only anti-aliased edge pixels move to a neighbour. Left out: dithering (it would
// add noise to flat areas); add it in quantize.cpp's mapping step if gradients band.
#pragma once
#include <cstdint>
#include <vector>

#include "plots/image.hpp"

namespace attnlab::plots {

struct IndexedFrames {
    std::vector<Color> palette;                       // at most max_colors entries
    std::vector<std::vector<std::uint8_t>> indices;  // one index per pixel, per frame
};

// All frames must have the same size (ShapeError otherwise); max_colors is 2..256.
IndexedFrames quantize(const std::vector<Image>& frames, int max_colors = 256);

}  // namespace attnlab::plots
