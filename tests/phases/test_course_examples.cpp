// test_course_examples.cpp — the key numbers of the sections that measure the course's remaining
// claims (its errata, untrained multi-head attention, three tokens with Q = K = V = X, a random
// layer, learned vs sinusoidal positions, attention on generated text, hard attention, dropout on
// attention weights, the complexity figures, the experimental setting's unigram baseline), through the functions the phases call,
// against values computed by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "nn/attention.hpp"
#include "analyses/attention_stats.hpp"
#include "analyses/attention_weights.hpp"
#include "analyses/head_roles.hpp"
#include "phases/phase1_untrained.hpp"
#include "phases/phase2_untrained_heads.hpp"
#include "phases/phase3_head_types.hpp"
#include "phases/phase4_experimental_setting.hpp"
#include "phases/phase4_complexity.hpp"
#include "phases/phase5_hard_soft_dropout.hpp"
#include "phases/course_errata.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::phase;
using namespace attnlab::phase1;
using attnlab::testing::IsCloseTo;

TEST_CASE("course errata: softmax([2, 0, 3]) is misprinted, the -inf case is right", "[phases][errata]") {
    const std::vector<SoftmaxErratum> e = softmax_errata();
    REQUIRE(e.size() == 2);
    const double z = std::exp(2.0) + 1 + std::exp(3.0);
    CHECK(e[0].computed[0] == Approx(std::exp(2.0) / z).margin(1e-6));  // 0.259
    CHECK(e[0].computed[1] == Approx(1 / z).margin(1e-6));              // 0.035
    CHECK(e[0].computed[2] == Approx(std::exp(3.0) / z).margin(1e-6));  // 0.705
    CHECK_FALSE(e[0].course_right);
    CHECK(e[0].max_diff == Approx(0.73 - std::exp(3.0) / z).margin(1e-6));
    CHECK(e[1].computed[1] == 0.0);  // exactly: e^-inf
    CHECK(e[1].course_right);
}

TEST_CASE("course errata: no scale turns the 'sat' scores into the course's weights", "[phases][errata]") {
    const SatErratum e = sat_scale_erratum();
    // scale 1: e^s / sum e^s, the second score (3.2) largest
    double z = 0;
    for (double s : e.scores) z += std::exp(s);
    for (std::size_t i = 0; i < e.scores.size(); ++i) CHECK(e.at_scale_1[i] == Approx(std::exp(e.scores[i]) / z).margin(1e-6));
    // softmax keeps the scores' order; the course's weights do not (0.7 -> 0.10 > 0.8 -> 0.05), so
    // every scale misses by at least half that inversion: (0.10 - 0.05) / 2.
    CHECK(e.best_max_diff >= 0.025);
    CHECK(e.best_scale > 0.01);
    CHECK(e.best_scale < 100);
    CHECK(e.at_best_scale[0] > e.at_best_scale[4]);  // the closest weights keep the order: 'the'(0.8) > 'the'(0.7)
}

TEST_CASE("three tokens, Q = K = V = X, against the hand computation", "[phases][untrained]") {
    const Tensor X = three_tokens_example();
    const nn::AttentionResult r = nn::scaled_dot_product_attention(X, X, X);
    // X X^T / 2 = [[1,0,1],[0,4,2],[1,2,2]]
    const double e = std::exp(1.0), e2 = std::exp(2.0), e4 = std::exp(4.0);
    const double n0 = 2 * e + 1, n1 = 1 + e4 + e2, n2 = e + 2 * e2;
    const Tensor w = tensor({{e / n0, 1 / n0, e / n0}, {1 / n1, e4 / n1, e2 / n1}, {e / n2, e2 / n2, e2 / n2}});
    CHECK_THAT(r.weights, IsCloseTo(w, 1e-6));
    CHECK_THAT(r.output, IsCloseTo(matmul(w, X), 1e-5));
    CHECK(r.weights.at({2, 1}) == Approx(r.weights.at({2, 2})).margin(1e-7));  // token 3 weighs token 2 as itself
}

TEST_CASE("a random SelfAttention spreads its weight; how near uniform depends on init and 1/sqrt(d_k)", "[phases][untrained]") {
    // Phase 1 step 8's measurement, the mean over 40 draws of entropy / log 5 (1 = uniform) and max |A - 0.2|.
    auto mean_over_draws = [](RandomInit init, std::optional<double> scale) {
        std::pair<double, double> m{0, 0};
        for (std::uint64_t s = 0; s < 40; ++s) {
            const RandomSelfAttention a = random_self_attention(s, init, scale);
            REQUIRE(a.r.weights.shape() == Shape({5, 5}));
            REQUIRE(a.r.output.shape() == Shape({5, 8}));
            CHECK_THAT(sum(a.r.weights, -1), IsCloseTo(ones({5}), 1e-6));
            m.first += a.entropy_ratio / 40, m.second += a.max_from_uniform / 40;
        }
        return m;
    };
    const auto seed = mean_over_draws(RandomInit::normal, std::nullopt);         // measured 0.83, 0.41
    const auto seed_unscaled = mean_over_draws(RandomInit::normal, 1.0);         // measured 0.50, 0.70
    const auto layer = mean_over_draws(RandomInit::layer, std::nullopt);       // measured 0.97, 0.15
    const auto layer_unscaled = mean_over_draws(RandomInit::layer, 1.0);       // measured 0.84, 0.40
    // nn::Linear's init (std 1/sqrt(3) of the seed's) with 1/sqrt(d_k): near uniform.
    CHECK(layer.first > 0.95);
    CHECK(layer.second < 0.2);
    // The course's N(0, 1/d_model): spread (far from one-hot, entropy 0) but clearly not uniform.
    CHECK(seed.first > 0.75);
    CHECK(seed.first < 0.9);
    CHECK(seed.second > 0.3);
    // Dropping 1/sqrt(d_k) = 1/sqrt(8) multiplies the scores by 2.8: peakier for either init, and the
    // the course's init scaled is about the layer's init unscaled (scores 3 vs 2.8 times apart).
    CHECK(seed_unscaled.first < seed.first - 0.2);
    CHECK(layer_unscaled.first < layer.first - 0.08);
    CHECK(seed.first == Approx(layer_unscaled.first).margin(0.05));
    // 192 parameters: W_Q, W_K, W_V of 8 x 8, no bias, no W_O.
    CHECK(random_self_attention(0).parameters == 3 * 8 * 8);
}

TEST_CASE("dropout on attention weights: step 12b's runs drop in training only, and the drops show in the train-val gap", "[phases][dropout]") {
    // Phase 5 step 12b's runs (causal TinyGPT, standard recipe), 60 steps instead of 200.
    const std::vector<lab::TrainResult> r = phase5::dropout_runs(60, {0.0, 0.1});
    REQUIRE(r.size() == 2);
    // Same weights and batch at step 1: only dropout can make the first losses differ.
    CHECK(r[0].curve.front().loss != r[1].curve.front().loss);
    // Validation never drops: evaluating the dropout model again gives its validation loss, bit for bit.
    const lab::TrainConfig sc = lab::standard_config(lab::Task::causal);
    CHECK(lab::evaluate(*r[1].model, lab::Task::causal, sc.batch, sc.val_batches).loss == r[1].final_eval.loss);
    // ... while a training-mode forward draws new units each time.
    const Tensor ids = zeros({1, 8}, kInt64);
    Generator gen(5);
    r[1].model->set_dropout_generator(&gen);
    r[1].model->train();
    const Tensor a = r[1].model->forward(ids), b = r[1].model->forward(ids);
    CHECK(max(abs(a - b)).item() > 1e-3);
    r[1].model->eval();
    CHECK(max(abs(r[1].model->forward(ids) - r[1].model->forward(ids))).item() == 0.0);
    // The headline: val loss minus the last 20 steps' training loss. Training losses with dropout are
    // measured with units dropped, so its gap is smaller (measured -0.005 without, -0.040 with; at 200
    // steps +0.037 and -0.002). Without dropout applied the two runs would be the same bits.
    const double gap0 = r[0].final_eval.loss - phase5::train_loss_curve(r[0]).value.back();
    const double gap1 = r[1].final_eval.loss - phase5::train_loss_curve(r[1]).value.back();
    CHECK(gap1 < gap0 - 0.015);
}

TEST_CASE("hard (top-1) attention passes no gradient to its scorer, soft does", "[phases][hard-soft]") {
    Generator batch_gen(3);
    const data::ReversalBatch batch = data::sample_reversal_batch(batch_gen, 8, {});
    std::vector<phase5::GradientNorms> g;
    for (nn::Normalizer n : {nn::Normalizer::softmax(), nn::Normalizer::topk(1)}) {
        Generator init(1);  // the same weights for both
        nn::Seq2Seq model(phase5::reversal_config(16, n), init);
        g.push_back(phase5::gradient_norms(model, batch));
    }
    CHECK(g[0].scorer > 1e-4);
    CHECK(g[1].scorer == 0.0);  // exactly: softmax over one key is the constant 1
    CHECK(g[1].all > 1e-4);     // the rest of the model still learns
}

TEST_CASE("the complexity figures at GPT-2's size: the course's counts and the KV cache's saving", "[phases][complexity]") {
    CHECK(phase4::macs_qk(2048, 768) / 1e9 == Approx(3.2212).margin(1e-4));       // "≈ 3.2 billion"
    CHECK(12 * phase4::macs_qk(2048, 768) / 1e9 == Approx(38.65).margin(1e-2));    // "38 billion"
    CHECK(phase4::weight_bytes(2048) / 1e6 == Approx(16.777).margin(1e-3));        // "16.8 MB per head"
    CHECK(phase4::weight_bytes(2048) / (1024.0 * 1024.0) == Approx(16.0));         // = 16 MiB
    // prompt 1, 3 new tokens: without the cache 1 + 2 + 3 = 6 token runs, with it 1 + 2 = 3.
    CHECK(phase4::kv_token_ratio(1, 3) == Approx(2.0));
    // scores: 1 + 4 + 9 = 14 without; 1 + 2 + 3 = 6 with.
    CHECK(phase4::kv_score_ratio(1, 3) == Approx(14.0 / 6.0));
}

TEST_CASE("untrained heads: dropout 0.1 on MHA(64, 8)'s weights: eval is deterministic, train drops 10% and rescales", "[phases][untrained]") {
    const phase2::DropoutTrial d = phase2::dropout_trial(2, 200);
    CHECK(d.eval_twice == 0.0);          // exactly: eval mode draws nothing
    CHECK(d.one_draw > 0.1);             // measured 0.32: one draw moves the output
    CHECK(d.mean_of_draws < 0.05);       // measured 0.02: inverted dropout keeps the mean (without the 1/0.9 it would be ~0.1 off)
    CHECK(d.mean_of_draws < d.one_draw / 4);
    CHECK(d.zeroed > 0.04);              // 432 weights, p = 0.1: the share dropped is near 0.1
    CHECK(d.zeroed < 0.16);
    // every weight kept is the eval weight / 0.9, exactly as float arithmetic gives it
    const Tensor kept = ne(d.dropped, zeros_like(d.dropped)).to(kFloat32);
    CHECK(max(abs(d.dropped - kept * d.eval.weights / 0.9)).item() < 1e-6);
}

TEST_CASE("untrained heads: the structured embeddings put 'the' near 'The' and 'mat' near 'cat'", "[phases][untrained]") {
    Generator gen(42);
    const Tensor e = phase2::structured_embeddings(gen);  // (6, 64): The cat sat on the mat
    REQUIRE(e.shape() == Shape({6, 64}));
    auto cosine = [&](std::int64_t i, std::int64_t j) {
        const Tensor a = e.select(0, i), b = e.select(0, j);
        return sum(a * b).item() / std::sqrt(sum(a * a).item() * sum(b * b).item());
    };
    CHECK(cosine(0, 4) > 0.95);          // the, The: noise 0.2 per coordinate on unit-variance rows
    CHECK(cosine(1, 5) > 0.9);           // mat, cat: noise 0.3
    CHECK(std::abs(cosine(1, 3)) < 0.4); // cat, on: independent random rows
    const phase2::Strongest s = phase2::strongest(tensor({{0.1, 0.9, 0.0}, {0.2, 0.3, 0.5}, {0.95, 0.0, 0.05}}));
    CHECK(s.i == 2);
    CHECK(s.j == 0);
    CHECK(s.weight == Approx(0.95));
}

TEST_CASE("untrained heads: uniform attention over 6 tokens has self 1/6 and local 16/36, as printed", "[phases][untrained]") {
    const Tensor uniform = full({6, 6}, 1.0 / 6.0);
    CHECK(mean(lab::diagonal_mass(uniform)).item() == Approx(1.0 / 6.0));
    CHECK(mean(lab::local_mass(uniform)).item() == Approx(16.0 / 36.0));  // 2 + 3·4 + 2 = 16 neighbours-or-self of 36 pairs
}

TEST_CASE("untrained heads: the mean head similarity and the course's verdict", "[phases][untrained]") {
    const Tensor one = tensor({{0.7, 0.2, 0.1}, {0.1, 0.8, 0.1}, {0.3, 0.3, 0.4}});
    CHECK(phase2::mean_head_similarity(stack({one, one, one}, 0)) == Approx(1.0));  // identical heads
    const Tensor first = tensor({{1.0, 0.0}, {1.0, 0.0}}), second = tensor({{0.0, 1.0}, {0.0, 1.0}});
    CHECK(phase2::mean_head_similarity(stack({first, second}, 0)) == Approx(0.0).margin(1e-6));  // disjoint keys (float32 diagonal)
    // three heads, one pair alike: (1 + 0 + 0) / 3 pairs
    CHECK(phase2::mean_head_similarity(stack({first, first, second}, 0)) == Approx(1.0 / 3.0));
    CHECK(std::string(phase2::diversity_verdict(0.49)) == "High");
    CHECK(std::string(phase2::diversity_verdict(0.5)) == "Low");
}

TEST_CASE("learned vs sinusoidal positions: reversing 8 tokens needs positions; learned ones get there first", "[phases][positions]") {
    positional::ReverseTask task;  // phase 5's: T 8, vocab 10, d_model 32, 200 steps
    const std::uint64_t seed = 35;  // phase 5's default seed + 30
    const positional::ReverseResult none = positional::train_reverse(task, positional::Positions::none, seed);
    const positional::ReverseResult sin = positional::train_reverse(task, positional::Positions::sinusoidal, seed);
    const positional::ReverseResult learned = positional::train_reverse(task, positional::Positions::learned, seed);
    CHECK(none.accuracy < 0.35);  // without positions every query sees the same set of keys: near chance (0.1)
    CHECK(sin.accuracy > 0.99);
    CHECK(learned.accuracy > 0.99);
    const std::int64_t s = positional::first_below(loss_curve(sin.loss), 0.1), l = positional::first_below(loss_curve(learned.loss), 0.1);
    CHECK(l > 0);
    CHECK(l < s);  // measured 50 against 130
    CHECK(positional::first_below(loss_curve(none.loss), 0.1) == -1);
}

TEST_CASE("the experimental setting's unigram baseline is the entropy of the targets' frequencies", "[phases][setting]") {
    data::LMBatch b;
    b.ids = zeros({1, 4}, kInt64);
    b.targets = from_vector(std::vector<std::int64_t>{3, 3, 5, data::kIgnoreIndex}, {1, 4});
    // p(3) = 2/3, p(5) = 1/3; the ignored target counts for nothing
    CHECK(phase4::unigram_baseline({b}) == Approx(-(2.0 / 3) * std::log(2.0 / 3) - (1.0 / 3) * std::log(1.0 / 3)));
    b.targets = from_vector(std::vector<std::int64_t>{7, 7, 7, 7}, {1, 4});
    CHECK(phase4::unigram_baseline({b}) == 0.0);  // one token only: no uncertainty
}

namespace {

// What step 7b recorded, and per (sample, relation) in the table's order the queries (positions
// after <bos>) of the gold pairs, for checks of what the weights must be.
struct GeneratedTextRoles {
    Json recorded;
    std::vector<std::vector<std::int64_t>> queries;
    // The recorded row of (sample, relation) number i and `layer` (from 0): rows run layer-fastest.
    const Json& row(std::size_t i, std::int64_t layer, std::int64_t n_layers) const {
        return recorded.at("weights").as_array()[i * static_cast<std::size_t>(n_layers) + static_cast<std::size_t>(layer)];
    }
};

// Runs phase 3's step 7b on `model` and checks each recorded row (sample, relation, layer: mean
// over heads and best head of the mean weight on the gold key) against the attention maps of
// <bos> text <eos>, read here from lab::attention_weights.
GeneratedTextRoles check_generated_text_roles(nn::Transformer& model, const std::vector<std::string>& prompts) {
    lab::Options o("test", "phase 3 step 7b");
    o.add("out", "DIR", (std::filesystem::temp_directory_path() / "attnlab_test_7b").string(), "");
    o.add("seed", "N", "0", "");
    const char* argv[] = {"test"};
    o.parse(1, argv);
    Frame p(o, "phase3");
    phase3::generated_text_roles(p, model, prompts);

    const Json& recorded = p.m.at("generated_text_roles");
    const Json::Array& texts = recorded.at("texts").as_array();
    REQUIRE(texts.size() == prompts.size());
    std::vector<std::vector<std::int64_t>> queries;
    std::size_t rows = 0;
    const data::Vocab& v = data::toy_grammar().vocab();
    for (std::size_t sample = 0; sample < texts.size(); ++sample) {
        const std::string& text = texts[sample].as_string();
        CAPTURE(text);
        CHECK(text.rfind(prompts[sample], 0) == 0);  // the prompt, then what the model wrote
        std::vector<std::int64_t> words, framed{data::Vocab::kBos};
        std::istringstream in(text);
        for (std::string w; in >> w;) words.push_back(v.id(w));
        framed.insert(framed.end(), words.begin(), words.end());
        framed.push_back(data::Vocab::kEos);
        const std::vector<Tensor> maps = lab::attention_weights(model, framed);  // [H, T, T] per layer
        for (const data::Relation rel : {data::Relation::pronoun_antecedent, data::Relation::subject_verb}) {  // the table's order
            std::vector<std::int64_t> q;  // the later word of each pair asks; +1 for <bos>
            std::vector<std::int64_t> k;
            for (const data::GoldPair& g : data::toy_gold_pairs(words))
                if (g.relation == rel && g.from > g.to) q.push_back(g.from + 1), k.push_back(g.to + 1);
            REQUIRE(!q.empty());  // each prompt holds both relations
            queries.push_back(q);
            for (std::int64_t layer = 0; layer < model.config().n_layers; ++layer) {
                const Json* row = nullptr;
                for (const Json& r : recorded.at("weights").as_array())
                    if (r.at("sample").as_int64() == static_cast<std::int64_t>(sample + 1) &&
                        r.at("relation").as_string() == data::relation_name(rel) && r.at("layer").as_int64() == layer + 1)
                        row = &r;
                REQUIRE(row != nullptr);
                ++rows;
                double mean = 0, best = -1;
                std::int64_t best_head = 0;
                for (std::int64_t h = 0; h < model.config().n_heads; ++h) {
                    double w = 0;
                    for (std::size_t i = 0; i < q.size(); ++i) w += maps[layer].at({h, q[i], k[i]}) / static_cast<double>(q.size());
                    mean += w / static_cast<double>(model.config().n_heads);
                    if (w > best) best = w, best_head = h;
                }
                CHECK(row->at("mean_over_heads").as_double() == Approx(mean).margin(1e-6));
                CHECK(row->at("best_weight").as_double() == Approx(best).margin(1e-6));
                if (best > mean + 1e-6) CHECK(row->at("best_head").as_int64() == best_head + 1);  // (a tie names either)
            }
        }
    }
    CHECK(recorded.at("weights").size() == rows);  // no other rows
    return {recorded, queries};
}

nn::TransformerConfig small_causal_grammar_model() {
    nn::TransformerConfig c;
    c.vocab_size = data::toy_grammar().vocab().size();
    c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.context = 16, c.causal = true;
    return c;
}

// Each has a subject, its verb and a pronoun, so both relations are measured whatever follows.
const std::vector<std::string> kPrompts{"the cat sat because it", "the dogs near the cat sleep because they"};

}  // namespace

TEST_CASE("attention on generated text (phase 3, 7b): the weights on generated text are the model's, at the gold pairs",
          "[phases][generated]") {
    nn::Transformer gpt(small_causal_grammar_model(), 3);  // untrained: uneven weights, so a wrong pair shows
    check_generated_text_roles(gpt, kPrompts);
}

TEST_CASE("attention on generated text (phase 3, 7b): a uniform head scores each gold key 1 / (keys it sees)", "[phases][generated]") {
    // W_q = 0 makes every score q . k zero, so a causal query at position q (<bos> is 0) spreads
    // its weight evenly over keys 0..q: whatever text the model generates, every head puts
    // 1 / (q + 1) on the gold key.
    nn::Transformer gpt(small_causal_grammar_model(), 3);
    {
        NoGradGuard no_grad;
        for (auto& block : gpt.blocks) {
            fill_(block->attn.w_q.weight, 0.0);
            if (block->attn.w_q.bias.defined()) fill_(block->attn.w_q.bias, 0.0);
        }
    }
    const GeneratedTextRoles roles = check_generated_text_roles(gpt, kPrompts);
    const std::int64_t n_layers = gpt.config().n_layers;
    REQUIRE(roles.queries.size() == 2 * kPrompts.size());  // (sample, relation), in the table's order
    for (std::size_t i = 0; i < roles.queries.size(); ++i) {
        double uniform = 0;
        for (std::int64_t q : roles.queries[i])
            uniform += 1.0 / static_cast<double>(q + 1) / static_cast<double>(roles.queries[i].size());
        for (std::int64_t layer = 0; layer < n_layers; ++layer) {
            const Json& row = roles.row(i, layer, n_layers);
            CHECK(row.at("layer").as_int64() == layer + 1);
            CHECK(row.at("mean_over_heads").as_double() == Approx(uniform).margin(1e-6));
            CHECK(row.at("best_weight").as_double() == Approx(uniform).margin(1e-6));
        }
    }
}
