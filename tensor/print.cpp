// print.cpp — tensors printed the way PyTorch prints them, plus the shape.
//
//   tensor([[0.2595, 0.0351, 0.7054],
//           [0.2689, 0.0000, 0.7311]], shape=[2, 3])
//
// Like PyTorch: one format for the whole tensor (fixed with 4 decimals, or
// scientific when magnitudes span too much), columns aligned, integral floats
// as "1.", and tensors over 1000 elements summarised with "..." (3 per edge).
// Unlike PyTorch the shape is always shown, since the phases teach with shapes.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "tensor/ops.hpp"

namespace attnlab {

namespace {

struct Format {
    bool integral = true;    // every finite value is a whole number
    bool scientific = false;
    int width = 1;
};

std::string format_value(double v, const Format& f, bool is_int) {
    char buf[64];
    if (is_int) std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else if (std::isnan(v)) std::snprintf(buf, sizeof buf, "nan");
    else if (std::isinf(v)) std::snprintf(buf, sizeof buf, v > 0 ? "inf" : "-inf");
    else if (f.scientific) std::snprintf(buf, sizeof buf, "%.4e", v);
    else if (f.integral) std::snprintf(buf, sizeof buf, "%.0f.", v);
    else std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

struct Printer {
    const Tensor& x;
    std::vector<double> values;  // row-major
    Format fmt;
    bool is_int, summarise;
    std::ostringstream out;

    // Prints the sub-tensor starting at flat index `base`, dims from `d` on.
    void print(std::int64_t d, std::int64_t base, int indent) {
        if (d == x.dim()) {
            std::string s = format_value(values[static_cast<std::size_t>(base)], fmt, is_int);
            out << std::string(static_cast<std::size_t>(std::max<int>(0, fmt.width - static_cast<int>(s.size()))), ' ') << s;
            return;
        }
        std::int64_t n = x.shape()[d], stride = 1;
        for (std::int64_t i = d + 1; i < x.dim(); ++i) stride *= x.shape()[i];
        out << '[';
        for (std::int64_t i = 0; i < n; ++i) {
            if (summarise && n > 6 && i == 3) {
                out << "...";
                i = n - 4;
            } else {
                print(d + 1, base + i * stride, indent + 1);
            }
            if (i + 1 < n) {
                out << ',';
                if (d + 1 == x.dim()) out << ' ';
                else out << std::string(static_cast<std::size_t>(x.dim() - d - 1), '\n') << std::string(static_cast<std::size_t>(indent + 1), ' ');
            }
        }
        out << ']';
    }
};

}  // namespace

std::string to_string(const Tensor& x) {
    if (!x.defined()) return "tensor(undefined)";
    Printer p{x, x.to_vector<double>(), {}, x.dtype() == kInt64, x.numel() > 1000, {}};
    // Choose one format from the magnitudes of the finite values (PyTorch's rule of thumb).
    double lo = INFINITY, hi = 0;
    for (double v : p.values) {
        if (!std::isfinite(v)) continue;
        if (v != std::floor(v)) p.fmt.integral = false;
        if (v != 0) lo = std::min(lo, std::abs(v)), hi = std::max(hi, std::abs(v));
    }
    if (!p.is_int && hi > 0)
        p.fmt.scientific = p.fmt.integral ? hi > 1e8 : (hi / lo > 1e3 || hi > 1e8 || lo < 1e-4);
    for (double v : p.values) p.fmt.width = std::max<int>(p.fmt.width, static_cast<int>(format_value(v, p.fmt, p.is_int).size()));

    p.out << "tensor(";
    p.print(0, 0, 7);  // 7 = strlen("tensor(")
    p.out << ", shape=" << x.shape().str();
    if (x.dtype() != kFloat32) p.out << ", dtype=" << dtype_name(x.dtype());
    if (x.requires_grad()) {
        if (x.is_leaf()) p.out << ", requires_grad=True";
        else p.out << ", grad_fn=<" << x.grad_fn_name() << ">";
    }
    p.out << ')';
    return p.out.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& x) { return os << to_string(x); }

}  // namespace attnlab
