// fuzz_npy_write.cpp — io/npy.cpp's writer: any tensor we could hold goes out and comes back.
// fuzz_npy feeds the reader hostile bytes; this harness builds the tensor from the bytes
// instead, so every dtype, rank, empty dimension, NaN payload and non-contiguous view
// reaches serialize_npy:
//   byte 0  dtype (f32, f64, i64) and whether the tensor is a transposed view
//   byte 1  rank 0..4;  the next `rank` bytes: each dimension 0..7
//   rest    the values' bytes, repeated to fill the tensor (zeros if there are none)
// Round trip: serialize -> parse gives the same tensor bit for bit, serializing that gives
// the same bytes, and save_npy -> load_npy through a file gives the tensor too.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    static constexpr DType kTypes[] = {kFloat32, kFloat64, kInt64};
    const DType dtype = kTypes[data[0] % 3];
    const bool transposed = (data[0] / 3) % 2 == 1;
    const std::size_t rank = data[1] % 5;
    if (size < 2 + rank) return 0;
    std::vector<std::int64_t> dims;
    for (std::size_t d = 0; d < rank; ++d) dims.push_back(data[2 + d] % 8);
    Tensor t = zeros(Shape(dims), dtype);
    const std::uint8_t* values = data + 2 + rank;
    const std::size_t n_values = size - 2 - rank, bytes = static_cast<std::size_t>(t.numel()) * dtype_size(dtype);
    auto* dst = static_cast<std::uint8_t*>(t.impl()->storage->data);
    for (std::size_t i = 0; n_values > 0 && i < bytes; ++i) dst[i] = values[i % n_values];
    if (transposed && rank >= 2) t = t.transpose(0, static_cast<std::int64_t>(rank) - 1);  // strides, not layout

    const std::string written = serialize_npy(t);
    const Tensor back = parse_npy(written, "serialize_npy's output");
    if (!fuzz::same_tensor(t, back)) fuzz::fail("fuzz_npy_write", "parse(serialize(t)) differs from t " + t.shape().str());
    if (serialize_npy(back) != written) fuzz::fail("fuzz_npy_write", "serialize(parse(bytes)) differs from the bytes");
    const std::string path = fuzz::scratch("fuzz_npy_write", "t", ".npy");
    save_npy(path, t);
    if (!fuzz::same_tensor(t, load_npy(path))) fuzz::fail("fuzz_npy_write", "load_npy(save_npy(t)) differs from t");
    return 0;
}
