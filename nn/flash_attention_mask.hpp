// flash_attention_mask.hpp — how much of a tile of scores a mask rule allows, for flash
// attention's tile loop: a tile the mask blocks whole is skipped, one it allows whole is
// taken without a look at its keys, and only a partly allowed one is masked key by key.
//
// Derived from MaskRule::band() and step() (nn/mask.hpp), the one statement of the rule;
// tests/nn/test_flash_attention.cpp checks it against MaskRule::allows on every tile of
// small masks of each kind, offset and parameter.
#pragma once
#include <cstdint>

#include "nn/mask.hpp"

namespace attnlab::nn::detail {

enum class Cover { none, some, all };  // how much of a tile the mask allows

inline Cover both(Cover a, Cover b) {  // a tile under two masks ANDed
    if (a == Cover::none || b == Cover::none) return Cover::none;
    return a == Cover::all && b == Cover::all ? Cover::all : Cover::some;
}

// Rows i0 .. i0 + bq − 1 against keys j0 .. j0 + bk − 1. A band never falls and rises by at
// most one key per row, so it cannot jump over the tile, and its first and last rows bound
// the rest: no row reaches the tile when the last row's band ends before it or the first
// row's starts after it; every row covers it when the first row's reaches its last key and
// the last row's starts at or before its first. A step above 1 leaves gaps: `some`.
inline Cover rule_cover(const MaskRule& r, std::int64_t i0, std::int64_t bq, std::int64_t j0, std::int64_t bk) {
    const MaskRule::Band first = r.band(i0), last = r.band(i0 + bq - 1);
    const std::int64_t j1 = j0 + bk - 1;
    if (last.hi < j0 || first.lo > j1) return Cover::none;
    return r.step() == 1 && first.hi >= j1 && last.lo <= j0 ? Cover::all : Cover::some;
}

}  // namespace attnlab::nn::detail
