// lzw.hpp — the variable-width LZW compression of GIF89a image data (spec section 22 and
// Appendix F).
//
// Codes 0 .. 2^min_code_size - 1 are the palette indices themselves; the next two
// are CLEAR (reset the dictionary) and END. Every emitted code adds one dictionary
// entry (the previous string plus the next index); codes start min_code_size + 1
// bits wide and grow by one bit as soon as the decoder's next entry needs it, up
// to 12 bits; when all 4096 codes are taken we emit CLEAR and start over. Codes
// are packed least significant bit first. The result is the raw code stream; the
// GIF writer splits it into <= 255-byte sub-blocks. Left out: the "deferred clear"
// trick of keeping a full table (it rarely helps charts).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::plots {

// indices must all be < 2^min_code_size; min_code_size is 2..8 (GIF's range).
// Throws ValueError otherwise.
std::string lzw_encode(const std::vector<std::uint8_t>& indices, int min_code_size);

}  // namespace attnlab::plots
