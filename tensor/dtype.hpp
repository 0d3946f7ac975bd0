// dtype.hpp — the element types a Tensor can hold, and the dispatch that turns a
// runtime dtype into a compile-time type for a kernel.
//
// float32 is the working type; float64 exists so that gradcheck can take finite
// differences without drowning in rounding error; int64 holds indices (token ids,
// argmax results, index_select) and supports creation, views, copies and printing,
// but not arithmetic. There is no bool dtype: comparisons return 0/1 in the input's
// float dtype, and masks have a type of their own in nn/.
//
// To add a dtype: extend DType, dtype_size, dtype_name, and the two dispatchers.
#pragma once
#include <cstdint>
#include <string>

#include "tensor/error.hpp"

namespace attnlab {

enum class DType : std::uint8_t { f32, f64, i64 };
inline constexpr DType kFloat32 = DType::f32;
inline constexpr DType kFloat64 = DType::f64;
inline constexpr DType kInt64 = DType::i64;

constexpr std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 8; }
constexpr const char* dtype_name(DType t) {
    return t == DType::f32 ? "float32" : t == DType::f64 ? "float64" : "int64";
}
constexpr bool is_floating(DType t) { return t != DType::i64; }

template <typename T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<double>() { return DType::f64; }
template <> constexpr DType dtype_of<std::int64_t>() { return DType::i64; }

// Calls f(T{}) with T = float or double; `op` names the caller in the error for int64.
//   dispatch_float(t.dtype(), "exp", [&]<typename T>(T) { ... });
template <typename F>
decltype(auto) dispatch_float(DType t, const char* op, F&& f) {
    switch (t) {
        case DType::f32: return f(float{});
        case DType::f64: return f(double{});
        default: throw ValueError(std::string(op) + ": not defined for dtype int64 (floating-point only)");
    }
}
// Calls f(T{}) for every dtype (copies, views, printing).
template <typename F>
decltype(auto) dispatch_all(DType t, F&& f) {
    switch (t) {
        case DType::f32: return f(float{});
        case DType::f64: return f(double{});
        default: return f(std::int64_t{});
    }
}

}  // namespace attnlab
