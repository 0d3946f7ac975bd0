// number.hpp — decimal text to a double, the same on every machine.
//
// std::from_chars for double is missing from Apple's libc++ before LLVM 20, and strtod reads
// the decimal point of the current locale ("0,5" in a German one). parse_real accepts exactly
// the text below, whatever the locale and the standard library:
//
//   [-] digits [. digits] [(e|E) [+|-] digits]      (also "5." and ".5"; no '+', no spaces,
//                                                    no hex, no "inf" or "nan")
//
// and returns the double nearest to it. Beyond a double's range it returns nothing: an
// overflow (1e400) and an underflow to zero (1e-400, whose digits are not all zero) would
// otherwise be read silently as infinity or 0. A subnormal (1e-320) is a double and is kept.
#pragma once

#include <optional>
#include <string_view>

namespace attnlab {

std::optional<double> parse_real(std::string_view text);

}  // namespace attnlab
