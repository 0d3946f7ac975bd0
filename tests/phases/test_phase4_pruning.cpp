// test_phase4_pruning.cpp — phase 4's pruning to the minimum (phases/phase4_pruning.hpp)
// and its entropy over a whole training run (phases/phase4_experiments.hpp), on small models.
#include <catch2/catch.hpp>
#include <cmath>

#include "data/grammar.hpp"
#include "data/lm_batches.hpp"
#include "analyses/attention_timeline.hpp"
#include "phases/phase4_experiments.hpp"
#include "phases/phase4_pruning.hpp"

using namespace attnlab;

namespace {
nn::TransformerConfig small() {
    nn::TransformerConfig c;
    c.vocab_size = data::toy_grammar().vocab().size();
    c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.context = 12, c.causal = true;
    return c;
}
}  // namespace

TEST_CASE("pruning to the minimum switches heads off least important first and stops at the tolerance", "[phases][causal][pruning]") {
    nn::Transformer gpt(small(), 13);
    const double base = lab::evaluate(gpt, lab::Task::causal).loss;
    const lab::PruningToMinimum r = lab::prune_to_minimum(gpt, 0.05, phase4::grammar_val_loss);
    CHECK(r.base == base);
    REQUIRE(r.order.size() == 4);
    REQUIRE(r.losses.size() == 4);
    const std::vector<double> alone = lab::pruning_losses(gpt, phase4::grammar_val_loss);
    for (std::size_t k = 0; k < 4; ++k) CHECK(r.importance[k] == alone[k] - base);
    for (std::size_t k = 1; k < 4; ++k) CHECK(r.importance[r.order[k - 1]] <= r.importance[r.order[k]]);
    CHECK(r.losses[0] == alone[r.order[0]]);  // the first step is that head alone off
    // fewest_heads: the heads on after the longest run of switch-offs within the tolerance
    const std::size_t off = 4 - static_cast<std::size_t>(r.fewest_heads);
    for (std::size_t k = 0; k < off; ++k) CHECK(r.losses[k] - base <= 0.05);
    if (off < 4) CHECK(r.losses[off] - base > 0.05);
    CHECK(lab::prune_to_minimum(gpt, 1e9, phase4::grammar_val_loss).fewest_heads == 0);    // anything goes: every head off
    CHECK(lab::prune_to_minimum(gpt, -1e9, phase4::grammar_val_loss).fewest_heads == 4);   // nothing goes
    CHECK(lab::evaluate(gpt, lab::Task::causal).loss == base);      // the model is left whole
}

TEST_CASE("entropy over training records step 0, every N steps and the last, deterministically", "[phases][causal][entropy]") {
    lab::TrainConfig c = lab::standard_config(lab::Task::causal);
    c.d_model = 16, c.n_heads = 2, c.n_layers = 1, c.context = 12, c.batch = 4, c.steps = 12, c.warmup = 2;
    const Tensor probe = data::make_lm_validation(data::toy_grammar(), 1, 4, c.context)[0].ids;
    const phase4::EntropyRun r = phase4::entropy_over_training(c, 5, probe);
    CHECK(r.steps == std::vector<double>{0, 5, 10, 12});  // the whole run, its last step included
    REQUIRE(r.entropy.size() == 4);
    for (const auto& e : r.entropy) {
        REQUIRE(e.size() == 2);
        for (double x : e) CHECK((x > 0 && x <= std::log(double(probe.size(1)))));
    }
    CHECK(r.entropy.back() != r.entropy.front());  // training moved the heads
    CHECK(r.run.curve.size() == 12);                // the replayed run itself comes back
    // A sentence's attention recorded by the same replay (phase 4 step 9) changes nothing:
    // the same entropies, the same losses, and a snapshot at each record.
    lab::AttentionTimeline tl;
    tl.probe = {data::Vocab::kBos, 5, 6, 7};
    const phase4::EntropyRun observed = phase4::entropy_over_training(c, 5, probe, lab::recording(tl));
    CHECK(observed.entropy == r.entropy);
    CHECK(observed.run.curve.back().loss == r.run.curve.back().loss);
    CHECK(tl.steps == std::vector<std::int64_t>{0, 5, 10, 12});
}
