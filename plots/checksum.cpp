// checksum.cpp — see checksum.hpp.
#include "plots/checksum.hpp"

#include <array>

namespace attnlab::plots {
namespace {

constexpr std::array<std::uint32_t, 256> make_crc_table() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t n = 0; n < 256; ++n) {
        std::uint32_t c = n;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
    return table;
}
constexpr auto kCrcTable = make_crc_table();

}  // namespace

std::uint32_t crc32(std::string_view bytes, std::uint32_t previous) {
    std::uint32_t c = previous ^ 0xFFFFFFFFu;
    for (char ch : bytes) c = kCrcTable[(c ^ static_cast<std::uint8_t>(ch)) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::uint32_t adler32(std::string_view bytes, std::uint32_t previous) {
    constexpr std::uint32_t kMod = 65521;  // the largest prime below 2^16
    std::uint32_t a = previous & 0xFFFF, b = previous >> 16;
    // 5552 bytes is the most that can be summed before b could overflow 32 bits.
    while (!bytes.empty()) {
        std::size_t n = std::min<std::size_t>(bytes.size(), 5552);
        for (std::size_t i = 0; i < n; ++i) {
            a += static_cast<std::uint8_t>(bytes[i]);
            b += a;
        }
        a %= kMod;
        b %= kMod;
        bytes.remove_prefix(n);
    }
    return (b << 16) | a;
}

}  // namespace attnlab::plots
