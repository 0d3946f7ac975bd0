// png.hpp — a PNG encoder (ISO/IEC 15948), written from the specification.
//
// Output: signature, IHDR (8-bit truecolour, no interlace), one IDAT holding the
// zlib stream of the filtered scanlines, IEND; every chunk carries the CRC-32 of
// its type and data. Each scanline gets the filter (None, Sub, Up, Average,
// Paeth) with the smallest sum of absolute byte values — the heuristic the
// specification recommends — which turns flat chart areas into long runs of
// zeros for deflate. Left out: palette and alpha colour types, interlacing,
// ancillary chunks (gAMA, pHYs, tEXt); add a chunk with write_chunk in png.cpp.
#pragma once
#include <string>

#include "plots/image.hpp"

namespace attnlab::plots {

std::string encode_png(const Image& image);

}  // namespace attnlab::plots
