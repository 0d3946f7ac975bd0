// decoders.hpp — independent decoders the plots tests use to check the encoders:
// what we encode must decode back, with code written from the specs separately
// from the encoders (so a shared misunderstanding would have to be made twice).
//
// inflate: zlib stream with stored and fixed-Huffman blocks (RFC 1950/1951).
// PNG: chunk walk with CRC checks, IDAT inflate and un-filtering.
// LZW: GIF variable-width decoding (GIF89a Appendix F).
// XML: a minimal well-formedness checker (balanced tags, quoted attributes,
// only the five predefined entities, no raw '<' or '&' in text).
// Left out: dynamic-Huffman blocks (our encoder never writes them; inflate throws).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace plots_test {

// Throws std::runtime_error on anything malformed, including a wrong Adler-32.
std::string zlib_inflate(const std::string& stream);

struct DecodedPng {
    int width = 0, height = 0;
    std::vector<std::string> chunk_types;
    std::vector<std::uint8_t> rgb;  // un-filtered pixels
};
// Checks the signature, every chunk's CRC, and IHDR (8-bit RGB); throws on error.
DecodedPng decode_png(const std::string& file);

// Decodes a raw LZW code stream; `clears` counts CLEAR codes seen and `max_width`
// the widest code read, so tests can prove both paths were exercised.
struct LzwResult {
    std::vector<std::uint8_t> indices;
    int clears = 0, max_width = 0;
};
LzwResult lzw_decode(const std::string& codes, int min_code_size);

// "" if well-formed, else a description of the first problem.
std::string xml_problem(const std::string& text);

}  // namespace plots_test
