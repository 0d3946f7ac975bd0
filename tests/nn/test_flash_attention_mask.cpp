// test_flash_attention_mask.cpp — flash attention's tile classification agrees with the
// mask rule itself (MaskRule::allows), on every tile of small masks of every kind.
#include <catch2/catch.hpp>

#include "nn/flash_attention_mask.hpp"

using namespace attnlab::nn;
using detail::Cover;
using K = MaskRule::Kind;

namespace {

const char* name(Cover c) { return c == Cover::none ? "none" : c == Cover::all ? "all" : "some"; }

// Every rule with Tq, Tk up to 7, offsets 0 .. 3, windows 0 .. 3, strides 1 .. 3.
template <class F>
void for_every_rule(F&& f) {
    for (K kind : {K::causal, K::local, K::strided})
        for (std::int64_t Tq = 1; Tq <= 7; ++Tq)
            for (std::int64_t Tk = 1; Tk <= 7; ++Tk)
                for (std::int64_t offset = 0; offset <= 3; ++offset)
                    for (std::int64_t param = kind == K::strided ? 1 : 0; param <= (kind == K::causal ? 0 : 3); ++param)
                        f(MaskRule{kind, Tq, Tk, offset, param});
}

}  // namespace

TEST_CASE("MaskRule::allows is causal j <= p, local |p - j| <= W, strided S | (p - j)", "[nn][mask][flash]") {
    for_every_rule([](const MaskRule& r) {
        for (std::int64_t i = 0; i < r.Tq; ++i)
            for (std::int64_t j = 0; j < r.Tk; ++j) {
                const std::int64_t d = r.offset + i - j;
                const bool expected = r.kind == K::causal ? d >= 0 : r.kind == K::local ? (d <= r.param && d >= -r.param) : d % r.param == 0;
                INFO("kind " << int(r.kind) << " offset " << r.offset << " param " << r.param << " i " << i << " j " << j);
                REQUIRE(r.allows(i, j) == expected);
            }
    });
}

TEST_CASE("a rule's band never falls and rises by at most one key per query", "[nn][mask][flash]") {
    for_every_rule([](const MaskRule& r) {
        for (std::int64_t i = 0; i + 1 < r.Tq; ++i) {
            const MaskRule::Band a = r.band(i), b = r.band(i + 1);
            INFO("kind " << int(r.kind) << " offset " << r.offset << " param " << r.param << " i " << i);
            REQUIRE((a.lo <= a.hi && a.lo <= b.lo && b.lo <= a.lo + 1 && a.hi <= b.hi && b.hi <= a.hi + 1));
        }
    });
}

TEST_CASE("rule_cover: none and all are exact, and a band rule's some is partly allowed", "[nn][mask][flash]") {
    std::int64_t tiles = 0;
    for_every_rule([&](const MaskRule& r) {
        for (std::int64_t i0 = 0; i0 < r.Tq; ++i0)
            for (std::int64_t bq = 1; i0 + bq <= r.Tq; ++bq)
                for (std::int64_t j0 = 0; j0 < r.Tk; ++j0)
                    for (std::int64_t bk = 1; j0 + bk <= r.Tk; ++bk) {
                        std::int64_t allowed = 0;
                        for (std::int64_t i = i0; i < i0 + bq; ++i)
                            for (std::int64_t j = j0; j < j0 + bk; ++j) allowed += r.allows(i, j);
                        const Cover c = detail::rule_cover(r, i0, bq, j0, bk);
                        const Cover truth = allowed == 0 ? Cover::none : allowed == bq * bk ? Cover::all : Cover::some;
                        INFO("kind " << int(r.kind) << " Tq " << r.Tq << " Tk " << r.Tk << " offset " << r.offset << " param "
                                     << r.param << " tile rows " << i0 << "+" << bq << " keys " << j0 << "+" << bk << ": "
                                     << name(c) << ", by allows " << name(truth));
                        // `some` is always safe (the kernel then masks key by key); a rule with gaps
                        // (strided, step > 1) may say it of a tile it allows or blocks whole.
                        if (c != Cover::some || r.step() == 1) REQUIRE(c == truth);
                        ++tiles;
                    }
    });
    CHECK(tiles > 100000);  // every kind, offset and parameter reached the check
}
