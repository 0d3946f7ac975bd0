// test_lm_batches.cpp — causal LM batches: their layout, determinism, the exact floor
// (checked against sentence_log_prob and next_token_probs), the validation split,
// character windows, and errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <vector>

#include "data/lm_batches.hpp"
#include "data/packing.hpp"
#include "data/tokenizer.hpp"
#include "tensor/error.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::data;
using attnlab::testing::bit_identical;

namespace {

// A row of the batch as the packed stream it was cut from: ids, then the last target.
std::vector<std::int64_t> stream_of(const LMBatch& batch, std::int64_t b) {
    const std::int64_t T = batch.ids.size(1);
    std::vector<std::int64_t> s = batch.ids.select(0, b).to_vector<std::int64_t>();
    const std::int64_t last = batch.targets.at({b, T - 1}) == kIgnoreIndex ? Vocab::kPad : static_cast<std::int64_t>(batch.targets.at({b, T - 1}));
    s.push_back(last);
    return s;
}

}  // namespace

TEST_CASE("LM batch layout: <bos>, whole sentences, <eos>, padding only where nothing fits", "[data][lm]") {
    const Grammar& g = toy_grammar();
    const std::vector<std::int64_t> shortest = WordTokenizer(g.vocab()).encode("the cat sits");
    REQUIRE(std::isfinite(g.sentence_log_prob(shortest)));  // so 4 free slots always hold a sentence
    Generator gen(3);
    const std::int64_t B = 32, T = 24;
    const LMBatch batch = make_lm_batch(g, gen, B, T);
    REQUIRE(batch.ids.shape() == Shape{B, T});
    REQUIRE(batch.targets.shape() == Shape{B, T});
    REQUIRE(batch.ids.dtype() == kInt64);
    for (std::int64_t b = 0; b < B; ++b) {
        const std::vector<std::int64_t> s = stream_of(batch, b);
        CHECK(s[0] == Vocab::kBos);
        for (std::int64_t t = 0; t < T; ++t) {
            const std::int64_t target = static_cast<std::int64_t>(batch.targets.at({b, t}));
            CHECK(target == (s[static_cast<std::size_t>(t + 1)] == Vocab::kPad ? kIgnoreIndex : s[static_cast<std::size_t>(t + 1)]));
        }
        // Split at <eos>: every piece before the padding is a sentence of the grammar.
        std::vector<std::int64_t> sentence;
        std::size_t i = 1;
        for (; i < s.size() && s[i] != Vocab::kPad; ++i) {
            if (s[i] != Vocab::kEos) {
                CHECK(g.vocab().is_word(s[i]));
                sentence.push_back(s[i]);
                continue;
            }
            CHECK(std::isfinite(g.sentence_log_prob(sentence)));
            sentence.clear();
        }
        CHECK(sentence.empty());  // the row ended on <eos> or padding, not mid-sentence
        const std::size_t pad = s.size() - i;
        CHECK(pad < shortest.size() + 1);  // more room would have held another sentence
        for (; i < s.size(); ++i) CHECK(s[i] == Vocab::kPad);
    }
}

TEST_CASE("LM batches are deterministic per seed", "[data][lm]") {
    const Grammar& g = toy_grammar();
    Generator a(11), b(11), c(12);
    const LMBatch x = make_lm_batch(g, a, 8, 32), y = make_lm_batch(g, b, 8, 32), z = make_lm_batch(g, c, 8, 32);
    CHECK(bit_identical(x.ids, y.ids));
    CHECK(bit_identical(x.targets, y.targets));
    CHECK_FALSE(bit_identical(x.ids, z.ids));
}

TEST_CASE("the LM floor is the exact mean -log P(target | prefix)", "[data][lm][floor]") {
    const Grammar& g = toy_grammar();
    Generator gen(17);
    const std::int64_t B = 16, T = 32;
    const LMBatch batch = make_lm_batch(g, gen, B, T);
    const Tensor floor = bayes_floor_per_position(g, batch);
    REQUIRE(floor.shape() == Shape{B, T});
    REQUIRE(floor.dtype() == kFloat64);

    double total = 0;
    std::int64_t count = 0, checked_near_end = 0;
    for (std::int64_t b = 0; b < B; ++b) {
        const std::vector<std::int64_t> s = stream_of(batch, b);
        // Walk the row sentence by sentence. A sentence whose first word is at slot a
        // had to fit in the T + 1 - a slots left: at most T - a words.
        std::size_t a = 1;
        while (a < s.size() && s[a] != Vocab::kPad) {
            std::size_t e = a;
            while (s[e] != Vocab::kEos) ++e;
            const std::vector<std::int64_t> sentence(s.begin() + static_cast<std::ptrdiff_t>(a), s.begin() + static_cast<std::ptrdiff_t>(e));
            const std::int64_t max_words = T - static_cast<std::int64_t>(a);
            double sentence_nll = 0;
            for (std::size_t i = a; i <= e; ++i) {
                // Position i - 1 predicts slot i, given the sentence's words before it.
                const double nll = floor.at({b, static_cast<std::int64_t>(i) - 1});
                const std::vector<std::int64_t> prefix(sentence.begin(), sentence.begin() + static_cast<std::ptrdiff_t>(i - a));
                const double p = g.next_token_probs(prefix, max_words)[static_cast<std::size_t>(s[i])];
                REQUIRE(nll == Approx(-std::log(p)).margin(1e-12));
                if (max_words >= g.max_words())  // far from the row's end: the grammar's own probability
                    REQUIRE(nll == Approx(-std::log(g.next_token_probs(prefix)[static_cast<std::size_t>(s[i])])).margin(1e-12));
                else
                    ++checked_near_end;
                sentence_nll += nll;
            }
            // Telescoping: the sentence's losses add up to -log P(sentence | it fits).
            REQUIRE(sentence_nll == Approx(-g.sentence_log_prob(sentence) + std::log(g.fit_prob(g.start(), max_words))).margin(1e-9));
            total += sentence_nll;
            count += static_cast<std::int64_t>(sentence.size()) + 1;
            a = e + 1;
        }
        for (std::size_t i = a; i < s.size(); ++i) CHECK(floor.at({b, static_cast<std::int64_t>(i) - 1}) == 0.0);
    }
    CHECK(checked_near_end > 0);
    CHECK(bayes_floor(g, batch) == Approx(total / static_cast<double>(count)).epsilon(1e-12));
}

TEST_CASE("validation batches are their own deterministic stream", "[data][lm][validation]") {
    const Grammar& g = toy_grammar();
    const std::vector<LMBatch> v1 = make_lm_validation(g, 3, 4, 32), v2 = make_lm_validation(g, 3, 4, 32);
    REQUIRE(v1.size() == 3);
    for (std::size_t i = 0; i < v1.size(); ++i) CHECK(bit_identical(v1[i].ids, v2[i].ids));
    CHECK_FALSE(bit_identical(v1[0].ids, v1[1].ids));
    Generator train(0);
    CHECK_FALSE(bit_identical(make_lm_batch(g, train, 4, 32).ids, v1[0].ids));
    CHECK(bayes_floor(g, v1) > 0);
    CHECK(bayes_floor(g, v1) == Approx(bayes_floor(g, v2)));
}

TEST_CASE("character windows are consecutive slices of the token stream", "[data][lm][char]") {
    std::vector<std::int64_t> tokens(100);
    for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<std::int64_t>(i);  // token = its offset
    Generator gen(1);
    const LMBatch batch = make_char_lm_batch(tokens, gen, 64, 10);
    REQUIRE(batch.ids.shape() == Shape{64, 10});
    std::set<std::int64_t> starts;
    for (std::int64_t b = 0; b < 64; ++b) {
        const std::int64_t start = static_cast<std::int64_t>(batch.ids.at({b, 0}));
        REQUIRE(start + 10 < 100);
        starts.insert(start);
        for (std::int64_t t = 0; t < 10; ++t) {
            CHECK(batch.ids.at({b, t}) == start + t);
            CHECK(batch.targets.at({b, t}) == start + t + 1);
        }
    }
    CHECK(starts.size() > 30);  // random windows, not one window repeated
    const LMBatch whole = make_char_lm_batch(tokens, gen, 2, 99);  // exactly one window fits
    CHECK(whole.ids.at({1, 0}) == 0);
    CHECK_THROWS_WITH(make_char_lm_batch(tokens, gen, 2, 100), Catch::Contains("101") && Catch::Contains("100 tokens"));
}

TEST_CASE("LM batch bad input: sizes and corrupted rows are named", "[data][lm][errors]") {
    const Grammar& g = toy_grammar();
    Generator gen(0);
    CHECK_THROWS_WITH(make_lm_batch(g, gen, 2, 2), Catch::Contains("shortest sentence"));
    CHECK_THROWS_WITH(make_lm_batch(g, gen, 0, 8), Catch::Contains("B = 0"));
    LMBatch batch = make_lm_batch(g, gen, 2, 16);

    LMBatch wrong_word{batch.ids.clone(), batch.targets.clone()};
    wrong_word.ids.data_ptr<std::int64_t>()[2] = g.vocab().id("because");   // row 0, slot 2: never the second word
    wrong_word.targets.data_ptr<std::int64_t>()[1] = g.vocab().id("because");
    CHECK_THROWS_WITH(bayes_floor(g, wrong_word), Catch::Contains("'because'") && Catch::Contains("slot 2"));

    LMBatch unshifted{batch.ids.clone(), batch.targets.clone()};
    unshifted.targets.data_ptr<std::int64_t>()[3] = Vocab::kBos;
    CHECK_THROWS_WITH(bayes_floor(g, unshifted), Catch::Contains("shifted by one"));
    CHECK_THROWS_WITH(bayes_floor(g, LMBatch{batch.ids, batch.ids.reshape({32})}), Catch::Contains("[B, T]"));
}
