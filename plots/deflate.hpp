// deflate.hpp — a zlib stream (RFC 1950) holding DEFLATE data (RFC 1951), as PNG's
// IDAT chunks require.
//
// Two block types are implemented: stored (the bytes verbatim, 64 KiB per block)
// and fixed-Huffman (the code tables RFC 1951 section 3.2.6 defines, so no tables need
// to be sent), fed by an LZ77 matcher: a hash of the next 3 bytes finds earlier
// positions in the 32 KiB window, a few of which are compared to find the longest
// match. Charts are large flat areas, so matches are long and fixed codes are
// nearly as good as dynamic ones. Left out: dynamic-Huffman blocks (the next step
// for better ratios: build code lengths from symbol counts, send them per RFC 1951 section 3.2.7)
// and lazy matching.
#pragma once
#include <string>
#include <string_view>

namespace attnlab::plots {

enum class DeflateBlocks {
    stored,         // no compression (the fallback for incompressible data)
    fixed_huffman,  // LZ77 + the fixed codes
    smallest,       // whichever of the two is shorter
};

// The complete zlib stream: header, DEFLATE blocks, Adler-32 of `data`.
std::string zlib_compress(std::string_view data, DeflateBlocks blocks = DeflateBlocks::smallest);

}  // namespace attnlab::plots
