// row_sum.hpp — the one order in which attnlab adds up a row.
//
// sum() along a contiguous dim and the fused loops that must reproduce it bit for
// bit (softmax's backward) share this function, so "the same bits as the composed
// ops" holds by construction, not by two copies kept in step.
#pragma once
#include <cstdint>

namespace attnlab::detail {

// Σ term(j) for j in [0, n), in double. Eight partial sums break the chain of dependent
// additions (one long chain runs at one add per 4 cycles); the order is fixed, so the
// result is the same bits every time. term(j) is converted to double as it is added.
template <typename Term>
inline double sum_terms(std::int64_t n, Term&& term) {
    double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; ++k) part[k] += term(j + k);
    for (; j < n; ++j) part[0] += term(j);
    return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

}  // namespace attnlab::detail
