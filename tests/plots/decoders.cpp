// decoders.cpp — see decoders.hpp.
#include "tests/plots/decoders.hpp"

#include <cstdlib>
#include <stdexcept>

#include "plots/checksum.hpp"

namespace plots_test {

namespace {

struct BitReader {
    const std::string& data;
    std::size_t pos = 0;
    int bit = 0;
    int read_bit() {
        if (pos >= data.size()) throw std::runtime_error("inflate: ran out of data");
        int b = (static_cast<std::uint8_t>(data[pos]) >> bit) & 1;
        if (++bit == 8) bit = 0, ++pos;
        return b;
    }
    int read_bits(int n) {  // LSB first
        int v = 0;
        for (int i = 0; i < n; ++i) v |= read_bit() << i;
        return v;
    }
    void align() {
        if (bit) bit = 0, ++pos;
    }
};

// Fixed literal/length symbol: read the code MSB first and map it by its ranges (RFC 1951 3.2.6).
int read_fixed_symbol(BitReader& in) {
    int code = 0;
    for (int len = 1; len <= 9; ++len) {
        code = (code << 1) | in.read_bit();
        if (len == 7 && code <= 0x17) return code + 256;
        if (len == 8 && code >= 0x30 && code <= 0xBF) return code - 0x30;
        if (len == 8 && code >= 0xC0 && code <= 0xC7) return code - 0xC0 + 280;
        if (len == 9 && code >= 0x190) return code - 0x190 + 144;
    }
    throw std::runtime_error("inflate: bad fixed code");
}

const int kLenBase[] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
const int kLenExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
const int kDistBase[] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
const int kDistExtra[] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

std::uint32_t be32(const std::string& s, std::size_t at) {
    return std::uint32_t(std::uint8_t(s[at])) << 24 | std::uint32_t(std::uint8_t(s[at + 1])) << 16 |
           std::uint32_t(std::uint8_t(s[at + 2])) << 8 | std::uint8_t(s[at + 3]);
}

}  // namespace

std::string zlib_inflate(const std::string& stream) {
    if (stream.size() < 6) throw std::runtime_error("zlib: too short");
    int cmf = std::uint8_t(stream[0]), flg = std::uint8_t(stream[1]);
    if ((cmf & 0x0F) != 8 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20)) throw std::runtime_error("zlib: bad header");
    std::string body = stream.substr(2, stream.size() - 6), out;
    BitReader in{body};
    bool final = false;
    while (!final) {
        final = in.read_bit();
        int type = in.read_bits(2);
        if (type == 0) {
            in.align();
            if (in.pos + 4 > body.size()) throw std::runtime_error("inflate: stored header cut");
            int len = std::uint8_t(body[in.pos]) | std::uint8_t(body[in.pos + 1]) << 8;
            int nlen = std::uint8_t(body[in.pos + 2]) | std::uint8_t(body[in.pos + 3]) << 8;
            if ((len ^ 0xFFFF) != nlen) throw std::runtime_error("inflate: LEN/NLEN mismatch");
            if (in.pos + 4 + std::size_t(len) > body.size()) throw std::runtime_error("inflate: stored block cut");
            out += body.substr(in.pos + 4, len);
            in.pos += 4 + len;
        } else if (type == 1) {
            for (;;) {
                int sym = read_fixed_symbol(in);
                if (sym < 256) {
                    out.push_back(static_cast<char>(sym));
                } else if (sym == 256) {
                    break;
                } else {
                    int i = sym - 257;
                    if (i >= 29) throw std::runtime_error("inflate: bad length symbol");
                    int len = kLenBase[i] + in.read_bits(kLenExtra[i]);
                    int d = 0;
                    for (int k = 0; k < 5; ++k) d = (d << 1) | in.read_bit();
                    if (d >= 30) throw std::runtime_error("inflate: bad distance code");
                    std::size_t dist = std::size_t(kDistBase[d] + in.read_bits(kDistExtra[d]));
                    if (dist > out.size()) throw std::runtime_error("inflate: distance before the start");
                    for (int k = 0; k < len; ++k) out.push_back(out[out.size() - dist]);
                }
            }
        } else {
            throw std::runtime_error("inflate: block type " + std::to_string(type) + " not supported here");
        }
    }
    if (be32(stream, stream.size() - 4) != attnlab::plots::adler32(out)) throw std::runtime_error("zlib: Adler-32 mismatch");
    return out;
}

DecodedPng decode_png(const std::string& file) {
    if (file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) throw std::runtime_error("png: bad signature");
    DecodedPng png;
    std::string idat;
    for (std::size_t at = 8; at < file.size();) {
        if (at + 12 > file.size()) throw std::runtime_error("png: chunk header cut");
        std::uint32_t len = be32(file, at);
        if (at + 12 + len > file.size()) throw std::runtime_error("png: chunk cut");
        std::string type = file.substr(at + 4, 4), data = file.substr(at + 8, len);
        if (be32(file, at + 8 + len) != attnlab::plots::crc32(type + data))
            throw std::runtime_error("png: CRC mismatch in " + type);
        png.chunk_types.push_back(type);
        if (type == "IHDR") {
            png.width = static_cast<int>(be32(data, 0));
            png.height = static_cast<int>(be32(data, 4));
            if (data.substr(8) != std::string("\x08\x02\x00\x00\x00", 5)) throw std::runtime_error("png: not 8-bit RGB");
        }
        if (type == "IDAT") idat += data;
        at += 12 + len;
    }
    std::string raw = zlib_inflate(idat);
    std::size_t stride = std::size_t(png.width) * 3;
    if (raw.size() != (stride + 1) * std::size_t(png.height)) throw std::runtime_error("png: wrong amount of pixel data");
    png.rgb.resize(stride * std::size_t(png.height));
    for (int y = 0; y < png.height; ++y) {
        int filter = std::uint8_t(raw[y * (stride + 1)]);
        for (std::size_t i = 0; i < stride; ++i) {
            int x = std::uint8_t(raw[y * (stride + 1) + 1 + i]);
            int a = i >= 3 ? png.rgb[y * stride + i - 3] : 0, b = y > 0 ? png.rgb[(y - 1) * stride + i] : 0;
            int c = (i >= 3 && y > 0) ? png.rgb[(y - 1) * stride + i - 3] : 0;
            int pred = 0;
            if (filter == 1) pred = a;
            else if (filter == 2) pred = b;
            else if (filter == 3) pred = (a + b) / 2;
            else if (filter == 4) {
                int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
                pred = (pa <= pb && pa <= pc) ? a : pb <= pc ? b : c;
            } else if (filter != 0) throw std::runtime_error("png: bad filter type");
            png.rgb[y * stride + i] = static_cast<std::uint8_t>(x + pred);
        }
    }
    return png;
}

LzwResult lzw_decode(const std::string& codes, int min_code_size) {
    const int clear = 1 << min_code_size, end = clear + 1;
    std::vector<std::vector<std::uint8_t>> dict;
    auto reset = [&] {
        dict.assign(std::size_t(end + 1), {});
        for (int i = 0; i < clear; ++i) dict[std::size_t(i)] = {static_cast<std::uint8_t>(i)};
    };
    reset();
    LzwResult r;
    int width = min_code_size + 1, prev = -1;
    std::size_t bitpos = 0;
    for (;;) {
        if (bitpos + std::size_t(width) > codes.size() * 8) throw std::runtime_error("lzw: no END code");
        int code = 0;
        for (int i = 0; i < width; ++i, ++bitpos) code |= ((std::uint8_t(codes[bitpos / 8]) >> (bitpos % 8)) & 1) << i;
        r.max_width = std::max(r.max_width, width);
        if (code == clear) {
            reset();
            width = min_code_size + 1, prev = -1;
            ++r.clears;
            continue;
        }
        if (code == end) break;
        std::vector<std::uint8_t> entry;
        if (code < int(dict.size()) && (code < clear || code > end)) entry = dict[std::size_t(code)];
        else if (code == int(dict.size()) && prev >= 0) entry = dict[std::size_t(prev)], entry.push_back(entry[0]);
        else throw std::runtime_error("lzw: code " + std::to_string(code) + " not in the dictionary");
        if (prev >= 0 && dict.size() < 4096) {
            auto added = dict[std::size_t(prev)];
            added.push_back(entry[0]);
            dict.push_back(added);
            if (int(dict.size()) == (1 << width) && width < 12) ++width;
        }
        r.indices.insert(r.indices.end(), entry.begin(), entry.end());
        prev = code;
    }
    return r;
}

std::string xml_problem(const std::string& s) {
    std::vector<std::string> open;
    std::size_t i = 0;
    auto check_text = [&](std::size_t from, std::size_t to) -> std::string {
        for (std::size_t k = from; k < to; ++k) {
            if (s[k] == '>') return "raw '>' in text at " + std::to_string(k);
            if (s[k] != '&') continue;
            std::size_t semi = s.find(';', k);
            std::string ent = semi == std::string::npos ? "" : s.substr(k, semi - k + 1);
            if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
                return "bad entity at " + std::to_string(k);
        }
        return "";
    };
    while (i < s.size()) {
        std::size_t lt = s.find('<', i);
        if (auto p = check_text(i, lt == std::string::npos ? s.size() : lt); !p.empty()) return p;
        if (lt == std::string::npos) break;
        std::size_t gt = s.find('>', lt);
        if (gt == std::string::npos) return "unclosed tag at " + std::to_string(lt);
        std::string tag = s.substr(lt + 1, gt - lt - 1);
        i = gt + 1;
        if (tag.rfind("?xml", 0) == 0 || tag.rfind("!--", 0) == 0) continue;
        if (tag.empty()) return "empty tag at " + std::to_string(lt);
        if (tag[0] == '/') {
            if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
            open.pop_back();
            continue;
        }
        bool self_closing = tag.back() == '/';
        if (self_closing) tag.pop_back();
        std::size_t k = tag.find_first_of(" \n\t");
        std::string name = tag.substr(0, k);
        // Attributes: name="value" pairs, values quoted and escaped.
        while (k != std::string::npos && k < tag.size()) {
            k = tag.find_first_not_of(" \n\t", k);
            if (k == std::string::npos) break;
            std::size_t eq = tag.find('=', k);
            if (eq == std::string::npos || eq + 1 >= tag.size() || tag[eq + 1] != '"')
                return "unquoted attribute in <" + name + ">";
            std::size_t close = tag.find('"', eq + 2);
            if (close == std::string::npos) return "unterminated attribute in <" + name + ">";
            std::string value = tag.substr(eq + 2, close - eq - 2);
            if (value.find('<') != std::string::npos) return "raw '<' in an attribute of <" + name + ">";
            k = close + 1;
        }
        if (!self_closing) open.push_back(name);
    }
    if (!open.empty()) return "unclosed <" + open.back() + ">";
    return "";
}

}  // namespace plots_test
