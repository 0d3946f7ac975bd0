// test_mlm_batches.cpp — masked-token batches: layout, masking rate, and the exact
// floor against brute-force enumeration over the hidden words.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "data/mlm_batches.hpp"
#include "data/packing.hpp"
#include "data/tokenizer.hpp"
#include "tensor/error.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::data;
using attnlab::testing::bit_identical;

namespace {

// -log P(original word at `hidden` | the rest of the sentence) by brute force: try
// every word at each hidden slot (one or two of them), score the whole sentence with
// sentence_log_prob, and normalise.
double brute_force_nll(const Grammar& g, std::vector<std::int64_t> sentence, const std::vector<std::size_t>& hidden,
                       std::size_t target, std::int64_t original) {
    double numerator = 0, z = 0;
    std::vector<std::int64_t> all_words;
    for (std::int64_t w = Vocab::kFirstWord; w < g.vocab().size(); ++w) all_words.push_back(w);
    const std::vector<std::int64_t> single{0};
    const auto& second = hidden.size() == 2 ? all_words : single;
    for (std::int64_t w1 : all_words)
        for (std::int64_t w2 : second) {
            sentence[hidden[0]] = w1;
            if (hidden.size() == 2) sentence[hidden[1]] = w2;
            const double p = std::exp(g.sentence_log_prob(sentence));
            z += p;
            if (sentence[target] == original) numerator += p;
        }
    return -std::log(numerator / z);
}

}  // namespace

TEST_CASE("MLM batch layout: masks on words only, targets there, lengths before padding", "[data][mlm]") {
    const Grammar& g = toy_grammar();
    Generator gen(5);
    const std::int64_t B = 200, T = 32;
    const MLMBatch batch = make_mlm_batch(g, gen, B, T, 0.15);
    REQUIRE(batch.ids.shape() == Shape{B, T});
    REQUIRE(batch.targets.shape() == Shape{B, T});
    REQUIRE(batch.lengths.shape() == Shape{B});
    std::int64_t words = 0, masked = 0;
    for (std::int64_t b = 0; b < B; ++b) {
        std::vector<std::int64_t> row = batch.ids.select(0, b).to_vector<std::int64_t>();
        const std::int64_t length = static_cast<std::int64_t>(batch.lengths.at({b}));
        std::int64_t masked_here = 0;
        for (std::int64_t t = 0; t < T; ++t) {
            const std::int64_t id = row[static_cast<std::size_t>(t)];
            const std::int64_t target = static_cast<std::int64_t>(batch.targets.at({b, t}));
            CHECK((id == Vocab::kPad) == (t >= length));
            if (id == Vocab::kMask) {
                REQUIRE(g.vocab().is_word(target));
                row[static_cast<std::size_t>(t)] = target;
                ++masked_here;
            } else {
                CHECK(target == kIgnoreIndex);
            }
            words += g.vocab().is_word(row[static_cast<std::size_t>(t)]);
        }
        CHECK(masked_here >= 1);
        masked += masked_here;
        CHECK_NOTHROW(packed_token_probs(g, row));  // unmasked, it is a packed row
    }
    // The rate is p, plus the rows that got their one forced mask: near 0.15 either way.
    const double rate = static_cast<double>(masked) / static_cast<double>(words);
    CHECK(rate > 0.13);
    CHECK(rate < 0.18);

    Generator again(5);
    CHECK(bit_identical(make_mlm_batch(g, again, B, T, 0.15).ids, batch.ids));
}

TEST_CASE("the MLM floor matches brute force over every word at the hidden slot", "[data][mlm][floor]") {
    const Grammar& g = toy_grammar();
    Generator gen(8);
    const std::int64_t B = 24, T = 32;
    // mask_prob 0.05: most sentences have at most one hidden word, some have two.
    const MLMBatch batch = make_mlm_batch(g, gen, B, T, 0.05);
    const Tensor floor = bayes_floor_mlm_per_position(g, batch);
    double total = 0;
    std::int64_t count = 0, singles = 0, pairs = 0;
    for (std::int64_t b = 0; b < B; ++b) {
        const std::vector<std::int64_t> ids = batch.ids.select(0, b).to_vector<std::int64_t>();
        const std::vector<std::int64_t> targets = batch.targets.select(0, b).to_vector<std::int64_t>();
        std::size_t next_start = 1;
        for (std::size_t e = 1; e < ids.size() && ids[e] != Vocab::kPad; ++e) {
            if (ids[e] != Vocab::kEos) continue;
            const std::size_t a = next_start;  // the sentence fills slots a .. e - 1
            next_start = e + 1;
            std::vector<std::int64_t> sentence(ids.begin() + static_cast<std::ptrdiff_t>(a), ids.begin() + static_cast<std::ptrdiff_t>(e));
            std::vector<std::size_t> hidden;
            for (std::size_t j = 0; j < sentence.size(); ++j)
                if (sentence[j] == Vocab::kMask) hidden.push_back(j);
            if (hidden.size() > 2) continue;  // 105^3 sentences is too many to enumerate here
            for (std::size_t h : hidden) {
                const double expected = brute_force_nll(g, sentence, hidden, h, targets[a + h]);
                REQUIRE(floor.at({b, static_cast<std::int64_t>(a + h)}) == Approx(expected).margin(1e-10));
                total += expected;
                ++count;
            }
            singles += hidden.size() == 1;
            pairs += hidden.size() == 2;
        }
    }
    CHECK(singles > 10);
    CHECK(pairs > 0);  // marginalising over a second hidden word is exercised too
    CHECK(count > 0);
    CHECK(std::isfinite(total));
}

TEST_CASE("a hidden subject is inferred from its verb across a prepositional phrase", "[data][mlm][agreement]") {
    const Grammar& g = toy_grammar();
    const WordTokenizer tok(g.vocab());
    // "the [MASK] on the mats sleeps": the verb is singular, so the hidden subject is a
    // singular noun — never the nearer plural one's kind.
    std::vector<std::int64_t> s = tok.encode("the cat on the mats sleeps");
    s[1] = Vocab::kMask;
    const auto posterior = masked_word_posteriors(g, s);
    REQUIRE(posterior[1].size() == static_cast<std::size_t>(g.vocab().size()));
    CHECK(posterior[0].empty());
    double singular = 0, total = 0;
    for (const std::string w : {"cat", "dog", "mat", "animal", "street", "fox", "kitten", "bird", "rug", "chair", "tree",
                                "garden", "box", "house", "mouse", "child"})
        singular += posterior[1][static_cast<std::size_t>(g.vocab().id(w))];
    for (double p : posterior[1]) total += p;
    CHECK(total == Approx(1.0));
    CHECK(singular == Approx(1.0));

    CHECK_THROWS_WITH(masked_word_posteriors(g, tok.encode("the cat on the mats sleep")), Catch::Contains("no way"));
}

TEST_CASE("MLM validation batches are deterministic; bad input is named", "[data][mlm][errors]") {
    const Grammar& g = toy_grammar();
    const auto v1 = make_mlm_validation(g, 2, 4, 32), v2 = make_mlm_validation(g, 2, 4, 32);
    CHECK(bit_identical(v1[1].ids, v2[1].ids));
    CHECK(bit_identical(v1[1].targets, v2[1].targets));
    CHECK(bayes_floor_mlm(g, v1) == Approx(bayes_floor_mlm(g, v2)));

    Generator gen(0);
    CHECK_THROWS_WITH(make_mlm_batch(g, gen, 2, 16, 1.5), Catch::Contains("mask_prob"));
    MLMBatch batch = make_mlm_batch(g, gen, 2, 16);
    MLMBatch bad{batch.ids.clone(), batch.targets.clone(), batch.lengths};
    std::int64_t* targets = bad.targets.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < 32; ++i)
        if (targets[i] != kIgnoreIndex) {
            targets[i] = kIgnoreIndex;  // a [MASK] without a target
            break;
        }
    CHECK_THROWS_WITH(bayes_floor_mlm(g, bad), Catch::Contains("exactly where ids is [MASK]"));
}
