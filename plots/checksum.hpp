// checksum.hpp — the two checksums PNG needs: CRC-32 (every chunk) and Adler-32
// (the end of the zlib stream).
//
// CRC-32 is the ISO-HDLC / IEEE 802.3 variant (reflected polynomial 0xEDB88320,
// initial value and final xor 0xFFFFFFFF), table-driven one byte at a time, as
// given in the PNG specification's annex. Adler-32 is RFC 1950's: two sums modulo
// 65521. Both can be computed over data arriving in pieces by passing the previous
// result back in. Left out: slicing-by-8 and other speed-ups (files are small).
#pragma once
#include <cstdint>
#include <string_view>

namespace attnlab::plots {

std::uint32_t crc32(std::string_view bytes, std::uint32_t previous = 0);
std::uint32_t adler32(std::string_view bytes, std::uint32_t previous = 1);

}  // namespace attnlab::plots
