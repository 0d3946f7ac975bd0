// number.cpp — parse_real: the syntax checked by hand, the rounding left to the C library.
#include "io/number.hpp"

#include <cmath>
#include <cstdlib>
#include <locale.h>
#include <string>
#if defined(__APPLE__)
#include <xlocale.h>
#endif

namespace attnlab {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The "C" locale, made once: its decimal point is '.', whatever setlocale() chose.
locale_t c_locale() {
    static const locale_t c = newlocale(LC_ALL_MASK, "C", locale_t(0));
    return c;
}

}  // namespace

std::optional<double> parse_real(std::string_view t) {
    // The syntax, checked here so that strtod never sees what it would read its own way
    // (leading spaces, '+', hex, "inf", a locale's decimal comma).
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') ++i;
    std::size_t mantissa_digits = 0;
    bool nonzero = false;  // a digit of the mantissa other than 0: then 0 is not the answer
    for (; i < t.size() && is_digit(t[i]); ++i, ++mantissa_digits) nonzero |= t[i] != '0';
    if (i < t.size() && t[i] == '.')
        for (++i; i < t.size() && is_digit(t[i]); ++i, ++mantissa_digits) nonzero |= t[i] != '0';
    if (mantissa_digits == 0) return std::nullopt;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        std::size_t exponent_digits = 0;
        for (; i < t.size() && is_digit(t[i]); ++i) ++exponent_digits;
        if (exponent_digits == 0) return std::nullopt;
    }
    if (i != t.size()) return std::nullopt;

    // The rounding: strtod_l rounds to nearest in the "C" locale. Its ERANGE is not used, as it
    // also flags a subnormal result, which is a double like any other; the range is judged on
    // the value instead.
    const std::string text(t);  // strtod_l needs a terminating NUL
    const double v = strtod_l(text.c_str(), nullptr, c_locale());
    if (std::isinf(v)) return std::nullopt;     // overflow
    if (v == 0 && nonzero) return std::nullopt;  // underflow to zero
    return v;
}

}  // namespace attnlab
