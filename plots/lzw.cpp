// lzw.cpp — see lzw.hpp.
#include "plots/lzw.hpp"

#include "tensor/error.hpp"

namespace attnlab::plots {
namespace {

class CodeWriter {  // packs codes LSB first
public:
    void put(int code, int width) {
        buffer_ |= static_cast<std::uint32_t>(code) << filled_;
        filled_ += width;
        while (filled_ >= 8) {
            out_.push_back(static_cast<char>(buffer_ & 0xFF));
            buffer_ >>= 8;
            filled_ -= 8;
        }
    }
    std::string finish() {
        if (filled_ > 0) out_.push_back(static_cast<char>(buffer_ & 0xFF));
        return std::move(out_);
    }

private:
    std::string out_;
    std::uint32_t buffer_ = 0;
    int filled_ = 0;
};

// The dictionary maps (prefix code, next index) -> code. An open-addressing hash
// table whose slots carry a generation number, so CLEAR empties it in O(1).
class Dictionary {
public:
    Dictionary() : keys_(kSlots), codes_(kSlots), generation_of_(kSlots, 0) {}
    void clear() { ++generation_; }
    int find(int prefix, int index) const {
        for (std::uint32_t s = slot(prefix, index);; s = (s + 1) & (kSlots - 1)) {
            if (generation_of_[s] != generation_) return -1;
            if (keys_[s] == key(prefix, index)) return codes_[s];
        }
    }
    void insert(int prefix, int index, int code) {
        std::uint32_t s = slot(prefix, index);
        while (generation_of_[s] == generation_) s = (s + 1) & (kSlots - 1);
        generation_of_[s] = generation_;
        keys_[s] = key(prefix, index);
        codes_[s] = static_cast<std::uint16_t>(code);
    }

private:
    static constexpr std::uint32_t kSlots = 8192;  // 2x the 4096 codes: short probe runs
    std::vector<std::uint32_t> keys_;
    std::vector<std::uint16_t> codes_;
    std::vector<std::uint32_t> generation_of_;
    std::uint32_t generation_ = 1;
    static std::uint32_t key(int prefix, int index) { return static_cast<std::uint32_t>(prefix << 8 | index); }
    static std::uint32_t slot(int prefix, int index) { return (key(prefix, index) * 2654435761u) >> 19; }
};

}  // namespace

std::string lzw_encode(const std::vector<std::uint8_t>& indices, int min_code_size) {
    if (min_code_size < 2 || min_code_size > 8)
        throw ValueError("lzw_encode: min_code_size must be 2..8, got " + std::to_string(min_code_size));
    const int clear = 1 << min_code_size, end = clear + 1;
    for (std::size_t i = 0; i < indices.size(); ++i)
        if (indices[i] >= clear)
            throw ValueError("lzw_encode: index " + std::to_string(indices[i]) + " at position " + std::to_string(i) +
                             " does not fit min_code_size " + std::to_string(min_code_size));

    CodeWriter out;
    Dictionary dict;
    int next_code = end + 1, width = min_code_size + 1;
    // The decoder adds its entry one code later than we do, so a code is written
    // with the width the decoder will expect: wide enough for next_code - 1.
    auto emit = [&](int code) {
        while (next_code - 1 >= (1 << width) && width < 12) ++width;
        out.put(code, width);
    };
    emit(clear);  // recommended at the start of every image
    if (indices.empty()) {
        emit(end);
        return out.finish();
    }
    int prefix = indices[0];
    for (std::size_t i = 1; i < indices.size(); ++i) {
        int index = indices[i];
        int code = dict.find(prefix, index);
        if (code >= 0) {
            prefix = code;
            continue;
        }
        emit(prefix);
        if (next_code < 4096) {
            dict.insert(prefix, index, next_code++);
        } else {  // table full: start a fresh dictionary
            emit(clear);
            dict.clear();
            next_code = end + 1;
            width = min_code_size + 1;
        }
        prefix = index;
    }
    emit(prefix);
    // The decoder adds an entry for this last code too (unless the table is full).
    if (next_code < 4096) ++next_code;
    emit(end);
    return out.finish();
}

}  // namespace attnlab::plots
