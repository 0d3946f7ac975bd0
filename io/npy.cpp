// npy.cpp — see npy.hpp.
#include "io/npy.hpp"

#include <bit>
#include <cctype>
#include <cstring>

#include "io/fileio.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

static_assert(std::endian::native == std::endian::little, "the .npy code assumes a little-endian machine");

static const char kMagic[] = "\x93NUMPY";

namespace {

// A tiny parser for the one dict literal the format allows.
struct HeaderParser {
    const std::string& s;
    const std::string& name;
    std::size_t i = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw IOError("load_npy: '" + name + "': bad header (" + what + "): " + s);
    }
    void skip_space() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
    }
    void expect(char c) {
        skip_space();
        if (i >= s.size() || s[i] != c) fail(std::string("expected '") + c + "'");
        ++i;
    }
    bool peek(char c) {
        skip_space();
        return i < s.size() && s[i] == c;
    }
    std::string quoted() {
        skip_space();
        if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) fail("expected a string");
        char q = s[i++];
        std::size_t end = s.find(q, i);
        if (end == std::string::npos) fail("unterminated string");
        std::string v = s.substr(i, end - i);
        i = end + 1;
        return v;
    }
    std::string word() {
        skip_space();
        std::size_t start = i;
        while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
        return s.substr(start, i - start);
    }
    std::int64_t integer() {
        skip_space();
        std::size_t start = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        if (start == i || i - start > 15) fail("expected a dimension size");
        return std::stoll(s.substr(start, i - start));
    }
};

}  // namespace

Tensor parse_npy(const std::string& bytes, const std::string& name) {
    if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
        throw IOError("load_npy: '" + name + "' is not a .npy file (no \\x93NUMPY magic)");
    const unsigned major = static_cast<unsigned char>(bytes[6]);
    std::size_t header_len, header_start;
    if (major == 1) {
        header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
        header_start = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) throw IOError("load_npy: '" + name + "' is truncated in its preamble");
        header_len = 0;
        for (int k = 3; k >= 0; --k) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + static_cast<std::size_t>(k)]);
        header_start = 12;
    } else {
        throw IOError("load_npy: '" + name + "' has unsupported format version " + std::to_string(major));
    }
    if (header_start + header_len > bytes.size())
        throw IOError("load_npy: '" + name + "': header length " + std::to_string(header_len) + " runs past the end");

    const std::string header = bytes.substr(header_start, header_len);
    HeaderParser p{header, name};
    std::string descr;
    bool fortran = false, have_descr = false, have_order = false, have_shape = false;
    Shape shape;
    p.expect('{');
    while (!p.peek('}')) {
        const std::string key = p.quoted();
        p.expect(':');
        if (key == "descr") {
            descr = p.quoted();
            have_descr = true;
        } else if (key == "fortran_order") {
            const std::string w = p.word();
            if (w != "True" && w != "False") p.fail("fortran_order must be True or False");
            fortran = w == "True";
            have_order = true;
        } else if (key == "shape") {
            p.expect('(');
            while (!p.peek(')')) {
                if (shape.size() == Shape::kMaxDims) p.fail("more than " + std::to_string(Shape::kMaxDims) + " dimensions");
                shape.push_back(p.integer());
                if (!p.peek(')')) p.expect(',');
            }
            p.expect(')');
            have_shape = true;
        } else {
            p.fail("unknown key '" + key + "'");
        }
        if (!p.peek('}')) p.expect(',');
    }
    if (!have_descr || !have_order || !have_shape) p.fail("missing descr, fortran_order or shape");
    if (fortran) throw IOError("load_npy: '" + name + "' is in Fortran order; only C order is supported");
    DType dtype;
    if (descr == "<f4") dtype = kFloat32;
    else if (descr == "<f8") dtype = kFloat64;
    else if (descr == "<i8") dtype = kInt64;
    else throw IOError("load_npy: '" + name + "' has dtype '" + descr + "'; supported: <f4, <f8, <i8");

    // The size check comes before the allocation, and is itself checked: (2^31, 2^31) of
    // '<f4' is 2^64 bytes, which wraps to 0 in 64 bits and would match an empty payload.
    const std::size_t data_start = header_start + header_len;
    std::size_t expected = 0;
    try {
        expected = checked_nbytes(shape, dtype_size(dtype), "load_npy");
    } catch (const ShapeError&) {
        throw IOError("load_npy: '" + name + "': shape " + shape.str() + " of " + descr +
                      " is too large: its byte count overflows 64 bits");
    }
    if (bytes.size() - data_start != expected)
        throw IOError("load_npy: '" + name + "': shape " + shape.str() + " of " + descr + " needs " +
                      std::to_string(expected) + " data bytes, the file has " + std::to_string(bytes.size() - data_start));
    Tensor t = empty(shape, dtype);
    t.impl()->storage->mark_written();
    if (expected) std::memcpy(t.impl()->storage->data, bytes.data() + data_start, expected);
    return t;
}

std::string serialize_npy(const Tensor& t) {
    const char* descr = t.dtype() == kFloat32 ? "<f4" : t.dtype() == kFloat64 ? "<f8" : "<i8";
    std::string shape = "(";  // a Python tuple: "()", "(6,)", "(2, 3)"
    for (std::int64_t i = 0; i < t.dim(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
    shape += t.dim() == 1 ? ",)" : ")";
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Pad so that magic + version + length + header + '\n' is a multiple of 64 (alignment for mmap).
    const std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string out(kMagic, 6);
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    out += header;
    Tensor c = contiguous(t.detach());
    out.append(static_cast<const char*>(c.impl()->storage->data) + c.offset() * static_cast<std::int64_t>(dtype_size(c.dtype())),
               static_cast<std::size_t>(c.numel()) * dtype_size(c.dtype()));
    return out;
}

Tensor load_npy(const std::string& path) { return parse_npy(read_file(path), path); }

void save_npy(const std::string& path, const Tensor& t) { write_file_atomic(path, serialize_npy(t)); }

}  // namespace attnlab
