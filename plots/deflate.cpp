// deflate.cpp — see deflate.hpp.
#include "plots/deflate.hpp"

#include <cstdint>
#include <vector>

#include "plots/checksum.hpp"

namespace attnlab::plots {
namespace {

// DEFLATE packs bits starting at the least significant bit of each byte.
class BitWriter {
public:
    void bits(std::uint32_t value, int count) {  // value's low `count` bits, LSB first
        buffer_ |= std::uint64_t(value) << filled_;
        filled_ += count;
        while (filled_ >= 8) {
            out_.push_back(static_cast<char>(buffer_ & 0xFF));
            buffer_ >>= 8;
            filled_ -= 8;
        }
    }
    // Huffman codes are defined most significant bit first, so they go in reversed.
    void code(std::uint32_t code, int length) {
        std::uint32_t reversed = 0;
        for (int i = 0; i < length; ++i) reversed |= ((code >> i) & 1u) << (length - 1 - i);
        bits(reversed, length);
    }
    std::string finish() {
        if (filled_ > 0) bits(0, 8 - filled_);
        return std::move(out_);
    }

private:
    std::string out_;
    std::uint64_t buffer_ = 0;
    int filled_ = 0;
};

// Fixed literal/length code (RFC 1951 section 3.2.6).
void write_literal_length(BitWriter& w, int symbol) {
    if (symbol <= 143) w.code(0x30 + symbol, 8);
    else if (symbol <= 255) w.code(0x190 + (symbol - 144), 9);
    else if (symbol <= 279) w.code(symbol - 256, 7);
    else w.code(0xC0 + (symbol - 280), 8);
}

// Length 3..258 -> symbol 257..285 plus extra bits (RFC 1951 section 3.2.5).
constexpr int kLengthBase[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                               31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr int kLengthExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
// Distance 1..32768 -> code 0..29 plus extra bits.
constexpr int kDistBase[] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                             193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr int kDistExtra[] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

void write_match(BitWriter& w, int length, int distance) {
    int i = 28;
    while (kLengthBase[i] > length) --i;
    write_literal_length(w, 257 + i);
    w.bits(static_cast<std::uint32_t>(length - kLengthBase[i]), kLengthExtra[i]);
    int d = 29;
    while (kDistBase[d] > distance) --d;
    w.code(static_cast<std::uint32_t>(d), 5);  // fixed distance codes are plain 5-bit numbers
    w.bits(static_cast<std::uint32_t>(distance - kDistBase[d]), kDistExtra[d]);
}

std::string fixed_huffman_blocks(std::string_view data) {
    constexpr int kWindow = 32768, kMinMatch = 3, kMaxMatch = 258, kMaxProbes = 32;
    constexpr int kHashBits = 15;
    std::vector<int> head(1 << kHashBits, -1), prev(data.size(), -1);
    auto hash = [&](std::size_t i) {
        std::uint32_t v = std::uint8_t(data[i]) | std::uint8_t(data[i + 1]) << 8 | std::uint8_t(data[i + 2]) << 16;
        return (v * 2654435761u) >> (32 - kHashBits);
    };
    auto insert = [&](std::size_t i) {
        if (i + kMinMatch > data.size()) return;
        auto h = hash(i);
        prev[i] = head[h];
        head[h] = static_cast<int>(i);
    };

    BitWriter w;
    w.bits(1, 1);  // BFINAL: this is the only block
    w.bits(1, 2);  // BTYPE 01: fixed Huffman codes
    std::size_t i = 0;
    while (i < data.size()) {
        int best_len = 0, best_dist = 0;
        if (i + kMinMatch <= data.size()) {
            int limit = static_cast<int>(std::min<std::size_t>(kMaxMatch, data.size() - i));
            int probes = kMaxProbes;
            for (int j = head[hash(i)]; j >= 0 && probes-- > 0; j = prev[j]) {
                if (static_cast<int>(i) - j > kWindow) break;
                int len = 0;
                while (len < limit && data[j + len] == data[i + len]) ++len;
                if (len > best_len) {
                    best_len = len;
                    best_dist = static_cast<int>(i) - j;
                    if (len == limit) break;
                }
            }
        }
        if (best_len >= kMinMatch) {
            write_match(w, best_len, best_dist);
            for (int k = 0; k < best_len; ++k) insert(i + k);
            i += best_len;
        } else {
            write_literal_length(w, static_cast<std::uint8_t>(data[i]));
            insert(i);
            ++i;
        }
    }
    write_literal_length(w, 256);  // end of block
    return w.finish();
}

std::string stored_blocks(std::string_view data) {
    std::string out;
    do {
        std::size_t n = std::min<std::size_t>(data.size(), 65535);
        bool final = n == data.size();
        out.push_back(final ? 1 : 0);  // BFINAL, BTYPE 00, then pad to the byte boundary
        out.push_back(static_cast<char>(n & 0xFF));
        out.push_back(static_cast<char>(n >> 8));
        out.push_back(static_cast<char>(~n & 0xFF));  // NLEN: one's complement of LEN
        out.push_back(static_cast<char>((~n >> 8) & 0xFF));
        out.append(data.substr(0, n));
        data.remove_prefix(n);
    } while (!data.empty());
    return out;
}

}  // namespace

std::string zlib_compress(std::string_view data, DeflateBlocks blocks) {
    std::string body;
    if (blocks == DeflateBlocks::stored) {
        body = stored_blocks(data);
    } else {
        body = fixed_huffman_blocks(data);
        if (blocks == DeflateBlocks::smallest && body.size() > data.size() + data.size() / 65535 * 5 + 5)
            body = stored_blocks(data);
    }
    // CMF 0x78: method 8 (deflate), 32 KiB window. FLG 0x01: no dictionary, and
    // (CMF * 256 + FLG) is a multiple of 31 as the header check requires.
    std::string out = "\x78\x01";
    out += body;
    std::uint32_t adler = adler32(data);
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((adler >> shift) & 0xFF));
    return out;
}

}  // namespace attnlab::plots
