// safetensors.cpp — see safetensors.hpp.
#include "io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>

#include "io/fileio.hpp"
#include "io/json.hpp"
#include "tensor/ops.hpp"

namespace attnlab {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; this code copies it as is");

namespace {

constexpr std::size_t kLengthBytes = 8;  // the header length that opens every file
constexpr const char* kMetadataKey = "__metadata__";

[[noreturn]] void bad_file(const std::string& file, const std::string& what) {
    throw IOError("load_safetensors: '" + file + "': " + what);
}

const char* format_dtype_name(DType t) { return t == kFloat32 ? "F32" : t == kFloat64 ? "F64" : "I64"; }

std::optional<DType> dtype_from_format_name(const std::string& s) {
    for (DType t : {kFloat32, kFloat64, kInt64})
        if (s == format_dtype_name(t)) return t;
    return std::nullopt;
}

std::string range_str(std::uint64_t begin, std::uint64_t end) {
    return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// Where one tensor's bytes are, once its header entry has passed every check.
struct Entry {
    std::string name;
    DType dtype;
    Shape shape;
    std::uint64_t begin, end;  // in the buffer
};

// Checks a parsed header against the size of the buffer; every message names the file.
class HeaderChecker {
public:
    HeaderChecker(const std::string& file, std::uint64_t buffer_size) : file_(file), buffer_size_(buffer_size) {}

    [[noreturn]] void fail(const std::string& what) const { bad_file(file_, what); }

    std::map<std::string, std::string> metadata(const Json& value) const {
        if (!value.is_object()) fail(std::string(kMetadataKey) + " is " + json_type_name(value.type()) + ", not an object");
        std::map<std::string, std::string> out;
        for (const auto& [key, v] : value.as_object()) {
            if (!v.is_string())
                fail(std::string(kMetadataKey) + " value of '" + key + "' is " + json_type_name(v.type()) +
                     "; metadata values must be strings");
            out.emplace(key, v.as_string());
        }
        return out;
    }

    Entry entry(const std::string& name, const Json& value) const {
        const std::string where = "tensor '" + name + "': ";
        if (!value.is_object()) fail(where + "entry is " + json_type_name(value.type()) + ", not an object");
        for (const auto& member : value.as_object())
            if (member.first != "dtype" && member.first != "shape" && member.first != "data_offsets")
                fail(where + "unexpected key '" + member.first + "' (an entry has exactly dtype, shape, data_offsets)");
        const auto field = [&](const char* key) -> const Json& {
            const Json* v = value.find(key);
            if (!v) fail(where + "missing '" + key + "'");
            return *v;
        };

        Entry e{name, kFloat32, Shape{}, 0, 0};
        const Json& dtype = field("dtype");
        const std::optional<DType> t = dtype.is_string() ? dtype_from_format_name(dtype.as_string()) : std::nullopt;
        if (!t) fail(where + "dtype " + to_json(dtype) + " is not supported (attnlab reads F32, F64, I64)");
        e.dtype = *t;

        const Json& shape = field("shape");
        if (!shape.is_array()) fail(where + "shape is " + json_type_name(shape.type()) + ", not an array");
        if (shape.size() > static_cast<std::size_t>(Shape::kMaxDims))
            fail(where + "shape has " + std::to_string(shape.size()) + " dimensions, more than attnlab's maximum of " +
                 std::to_string(Shape::kMaxDims));
        for (const Json& d : shape.as_array()) {
            if (!d.is_integer() || d.as_int64() < 0)
                fail(where + "shape " + to_json(shape) + " must hold non-negative integers");
            e.shape.push_back(d.as_int64());
        }

        const Json& offsets = field("data_offsets");
        if (!offsets.is_array() || offsets.size() != 2 || !offsets.as_array()[0].is_integer() ||
            !offsets.as_array()[1].is_integer() || offsets.as_array()[0].as_int64() < 0 || offsets.as_array()[1].as_int64() < 0)
            fail(where + "data_offsets " + to_json(offsets) + " must be two non-negative integers [begin, end]");
        e.begin = static_cast<std::uint64_t>(offsets.as_array()[0].as_int64());
        e.end = static_cast<std::uint64_t>(offsets.as_array()[1].as_int64());
        if (e.begin > e.end) fail(where + "data_offsets " + range_str(e.begin, e.end) + " end before they begin");
        if (e.end > buffer_size_)
            fail(where + "data_offsets " + range_str(e.begin, e.end) + " run past the end of the " +
                 std::to_string(buffer_size_) + "-byte buffer");

        const std::optional<std::uint64_t> needed = byte_count(e.shape, e.dtype);
        if (!needed) fail(where + "shape " + e.shape.str() + " is too large to address");
        if (*needed != e.end - e.begin)
            fail(where + "shape " + e.shape.str() + " of " + format_dtype_name(e.dtype) + " needs " +
                 std::to_string(*needed) + " bytes, but data_offsets " + range_str(e.begin, e.end) + " hold " +
                 std::to_string(e.end - e.begin));
        return e;
    }

    // The tensors must cover [0, buffer_size) exactly once: sorted by offset, each
    // begins where the previous one ended, and the last ends at the end of the buffer.
    void tiling(std::vector<const Entry*> by_offset) const {
        // (stable, so that ties keep header order and the messages below are deterministic)
        std::stable_sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
            return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
        });
        std::uint64_t covered = 0;  // bytes [0, covered) belong to the tensors seen so far
        const Entry* previous = nullptr;
        for (const Entry* e : by_offset) {
            if (e->begin < covered)
                fail("tensors '" + previous->name + "' " + range_str(previous->begin, previous->end) + " and '" + e->name +
                     "' " + range_str(e->begin, e->end) + " overlap");
            if (e->begin > covered) no_tensor(covered, e->begin);
            covered = e->end;
            previous = e;
        }
        if (covered < buffer_size_) no_tensor(covered, buffer_size_);
    }

private:
    const std::string& file_;
    std::uint64_t buffer_size_;

    [[noreturn]] void no_tensor(std::uint64_t begin, std::uint64_t end) const {
        fail("bytes [" + std::to_string(begin) + ", " + std::to_string(end) + ") of the buffer belong to no tensor");
    }

    // numel × element size, or nullopt if it cannot be an int64 (a hostile shape).
    // The product of the nonzero sizes is bounded too: a shape like [0, 2^40, 2^40]
    // holds no bytes, but its strides would overflow.
    static std::optional<std::uint64_t> byte_count(const Shape& shape, DType dtype) {
        std::int64_t product = static_cast<std::int64_t>(dtype_size(dtype));
        bool any_zero = false;
        for (std::int64_t d : shape) {
            if (d == 0) any_zero = true;
            else if (__builtin_mul_overflow(product, d, &product)) return std::nullopt;
        }
        return any_zero ? 0 : static_cast<std::uint64_t>(product);
    }
};

}  // namespace

SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& name) {
    // 1. The header length, checked against a bound and the file before anything is read.
    if (bytes.size() < kLengthBytes)
        bad_file(name, "file is " + std::to_string(bytes.size()) + " bytes, too short for the 8-byte header length");
    std::uint64_t header_len = 0;
    for (std::size_t k = 0; k < kLengthBytes; ++k)
        header_len |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[k])) << (8 * k);
    if (header_len > kMaxSafetensorsHeader)
        bad_file(name, "declares a header of " + std::to_string(header_len) + " bytes, more than the limit of " +
                       std::to_string(kMaxSafetensorsHeader));
    if (header_len > bytes.size() - kLengthBytes)
        bad_file(name, "declares a header of " + std::to_string(header_len) + " bytes, but only " +
                       std::to_string(bytes.size() - kLengthBytes) + " bytes follow the length");

    // 2. The header: a JSON object, starting right away with '{' (the reference
    //    implementation has an error of its own for a header that does not).
    const std::string_view header(bytes.data() + kLengthBytes, static_cast<std::size_t>(header_len));
    if (header.empty() || header.front() != '{') bad_file(name, "header is not a JSON object (it must start with '{')");
    Json root;
    try {
        root = parse_json(header, name);
    } catch (const JsonParseError& e) {
        bad_file(name, "header is not valid JSON: byte " + std::to_string(e.offset) + " of the header: " + e.reason);
    }

    // 3. Every entry, then the layout of them all, before a single tensor is made.
    const std::string_view buffer(bytes.data() + kLengthBytes + header_len, bytes.size() - kLengthBytes - header_len);
    const HeaderChecker check(name, buffer.size());
    SafetensorsFile file;
    file.source = name;
    std::vector<Entry> entries;
    for (const auto& [key, value] : root.as_object()) {
        if (key == kMetadataKey) file.metadata = check.metadata(value);
        else entries.push_back(check.entry(key, value));
    }
    std::vector<const Entry*> by_offset;
    for (const Entry& e : entries) by_offset.push_back(&e);
    check.tiling(by_offset);

    // 4. Only now allocate (every size is bounded by the file) and copy the bytes in.
    for (const Entry& e : entries) {
        Tensor t = empty(e.shape, e.dtype);
        t.impl()->storage->mark_written();
        if (e.end > e.begin) std::memcpy(t.impl()->storage->data, buffer.data() + e.begin, e.end - e.begin);
        file.tensors.push_back({e.name, std::move(t)});
    }
    return file;
}

std::string serialize_safetensors(const std::vector<NamedTensor>& tensors,
                                  const std::map<std::string, std::string>& metadata) {
    Json header = Json::object();
    if (!metadata.empty()) {
        Json::Object m;
        for (const auto& [k, v] : metadata) m.emplace_back(k, Json(v));
        header.as_object().emplace_back(kMetadataKey, Json(std::move(m)));
    }
    std::set<std::string_view> seen;
    std::vector<Tensor> data;
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const auto& [name, tensor] = tensors[i];
        const std::string which = "save_safetensors: tensor " + std::to_string(i);
        if (name == kMetadataKey) throw ValueError(which + " is named '__metadata__', which the format reserves");
        if (!seen.insert(name).second) throw ValueError(which + ": the name '" + name + "' is used twice");
        if (!tensor.defined()) throw ValueError(which + " ('" + name + "') is undefined");

        Tensor c = contiguous(tensor.detach());
        const std::int64_t nbytes = c.numel() * static_cast<std::int64_t>(dtype_size(c.dtype()));
        Json::Array shape;
        for (std::int64_t d : c.shape()) shape.emplace_back(d);
        Json::Object entry;
        entry.emplace_back("dtype", format_dtype_name(c.dtype()));
        entry.emplace_back("shape", std::move(shape));
        entry.emplace_back("data_offsets", Json::Array{Json(offset), Json(offset + nbytes)});
        header.as_object().emplace_back(name, Json(std::move(entry)));
        offset += nbytes;
        data.push_back(std::move(c));
    }

    std::string text;
    try {
        text = to_json(header);
    } catch (const ValueError& e) {  // a name or metadata string that is not UTF-8
        throw ValueError(std::string("save_safetensors: ") + e.what());
    }
    text.append((8 - text.size() % 8) % 8, ' ');  // the buffer starts 8-aligned
    if (text.size() > kMaxSafetensorsHeader)
        throw ValueError("save_safetensors: the header would be " + std::to_string(text.size()) +
                         " bytes, more than readers accept (" + std::to_string(kMaxSafetensorsHeader) + ")");

    std::string out;
    out.reserve(kLengthBytes + text.size() + static_cast<std::size_t>(offset));
    for (std::size_t k = 0; k < kLengthBytes; ++k) out += static_cast<char>((text.size() >> (8 * k)) & 0xFF);
    out += text;
    for (const Tensor& c : data)
        out.append(static_cast<const char*>(c.impl()->storage->data) + c.offset() * static_cast<std::int64_t>(dtype_size(c.dtype())),
                   static_cast<std::size_t>(c.numel()) * dtype_size(c.dtype()));
    return out;
}

const Tensor& SafetensorsFile::at(const std::string& name) const {
    for (const NamedTensor& t : tensors)
        if (t.name == name) return t.tensor;
    std::string have;
    for (std::size_t i = 0; i < tensors.size() && i < 10; ++i) have += (i ? ", '" : "'") + tensors[i].name + "'";
    if (tensors.size() > 10) have += ", ... (" + std::to_string(tensors.size()) + " in all)";
    throw IOError("safetensors file '" + source + "' has no tensor '" + name + "'" +
                  (tensors.empty() ? std::string("; it holds no tensors") : "; it has " + have));
}

SafetensorsFile load_safetensors(const std::string& path) { return parse_safetensors(read_file(path), path); }

void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    write_file_atomic(path, serialize_safetensors(tensors, metadata));
}

}  // namespace attnlab
