// gif.hpp — an animated GIF89a encoder, written from the GIF89a specification.
//
// Layout of the file: header "GIF89a"; logical screen descriptor with a global
// colour table (one palette for all frames, see quantize.hpp); the NETSCAPE2.0
// application extension that makes browsers loop (count 0 = forever); then per
// frame a graphic control extension (its delay, in hundredths of a second) and
// an image descriptor followed by LZW data (lzw.hpp) in sub-blocks of at most 255
// bytes; finally the trailer byte 0x3B. Left out: local colour tables,
// transparency, and cropping frames to the region that changed (the obvious next
// optimisation for large animations).
#pragma once
#include <string>
#include <vector>

#include "plots/image.hpp"

namespace attnlab::plots {

struct GifFrame {
    Image image;
    int delay_cs = 8;  // how long the frame shows, in 1/100 s (browsers treat < 2 as 10)
};

// All frames must be the same size (ShapeError); delays must be 0..65535 (ValueError).
// loop_count 0 loops forever.
std::string encode_gif(const std::vector<GifFrame>& frames, int loop_count = 0);

}  // namespace attnlab::plots
