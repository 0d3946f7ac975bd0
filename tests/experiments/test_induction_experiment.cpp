// test_induction_experiment.cpp — the repeat task's rows and masks, and a short training run:
// deterministic from its seed, recorded at every evaluation, its ablation restoring the model.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <set>

#include "experiments/induction_experiment.hpp"
#include "nn/checkpoint.hpp"
#include "nn/loss.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;
using namespace attnlab::lab;

TEST_CASE("induction rows repeat their first n tokens, and the masks mark each half", "[experiments][induction]") {
    const InductionTask task{.vocab = 10, .length = 20, .min_n = 3, .max_n = 9};
    Generator gen(5);
    const InductionBatch b = make_induction_batch(task, 50, gen);
    const auto ids = b.ids.to_vector<std::int64_t>(), tg = b.targets.to_vector<std::int64_t>();
    const auto first = b.first_targets.to_vector<std::int64_t>(), rep = b.repeated_targets.to_vector<std::int64_t>();
    std::set<std::int64_t> ns;
    for (std::int64_t r = 0; r < 50; ++r) {
        const std::int64_t n = b.n[static_cast<std::size_t>(r)], o = r * 20;
        REQUIRE(n >= 3);
        REQUIRE(n <= 9);
        ns.insert(n);
        for (std::int64_t t = n; t < 2 * n; ++t) CHECK(ids[o + t] == ids[o + t - n]);
        for (std::int64_t t = 0; t < 19; ++t) CHECK(tg[o + t] == ids[o + t + 1]);
        CHECK(tg[o + 19] == nn::kIgnoreIndex);
        for (std::int64_t t = 0; t < 20; ++t) {
            CHECK(first[o + t] == (t <= n - 2 ? ids[o + t + 1] : nn::kIgnoreIndex));
            CHECK(rep[o + t] == (t >= n && t <= 2 * n - 2 ? ids[o + t + 1] : nn::kIgnoreIndex));
        }
    }
    CHECK(ns.size() >= 5);  // n varies from row to row
    CHECK_THROWS_WITH(make_induction_batch({.vocab = 10, .length = 10, .min_n = 3, .max_n = 6}, 1, gen),
                      Catch::Contains("make_induction_batch") && Catch::Contains("length 10"));
}

TEST_CASE("a short induction run is deterministic, recorded per evaluation, and learns", "[experiments][induction]") {
    InductionConfig c;
    c.task = {.vocab = 16, .length = 16, .min_n = 3, .max_n = 8};
    c.d_model = 32, c.n_heads = 2, c.steps = 60, c.batch = 16, c.eval_every = 20, c.eval_rows = 32, c.lr = 3e-3, c.seed = 3;
    const InductionRun a = train_induction(c), b = train_induction(c);
    REQUIRE(a.evals.size() == 4);  // steps 0, 20, 40, 60
    CHECK(a.evals.back().step == 60);
    for (std::size_t i = 0; i < a.evals.size(); ++i) {
        CHECK(a.evals[i].loss_repeated == b.evals[i].loss_repeated);  // same seed, same bits
        CHECK(a.evals[i].induction == b.evals[i].induction);
        REQUIRE(a.evals[i].previous.size() == 2);
        CHECK(a.evals[i].previous[1].size() == 2);
        CHECK(a.evals[i].attention[0].shape() == Shape{2, 16, 16});
    }
    // At initialisation every prediction is near uniform: ln 16 on both halves.
    CHECK(a.evals.front().loss_first == Approx(std::log(16.0)).margin(0.1));
    CHECK(a.evals.front().loss_repeated == Approx(std::log(16.0)).margin(0.1));
    CHECK(a.evals.back().loss_repeated < a.evals.front().loss_repeated);
    // The attention-only flag is honoured: no MLP parameter receives a gradient or moves.
    for (const auto& p : a.model->named_parameters())
        if (p.name.find("mlp") != std::string::npos) CHECK_FALSE(p.tensor.grad().defined());

    // Switching a layer-1 head off changes what layer 2 attends to, not layer 1's own weights,
    // and leaves the model as it was.
    const InductionEval off = ablate_head(*a.model, a.eval, {0, 0}, 60);
    CHECK(off.induction[0] == a.evals.back().induction[0]);
    CHECK(off.induction[1] != a.evals.back().induction[1]);
    const InductionEval again = evaluate_induction(*a.model, a.eval, 60);
    CHECK(again.loss_repeated == a.evals.back().loss_repeated);
    CHECK(collapse_index(a.evals) == -1);  // 60 steps learn no repeats
    CHECK(best_head({{0.1, 0.2}, {0.9, 0.3}}, 1).head == 0);
    CHECK(best_head({{0.1, 0.2}, {0.9, 0.3}}, 0).head == 1);
}

TEST_CASE("checkpoints record attention_only", "[experiments][induction][checkpoint]") {
    nn::TransformerConfig mc{.vocab_size = 5, .d_model = 8, .n_heads = 2, .n_layers = 1, .context = 4};
    mc.attention_only = true;
    nn::Transformer m(mc, 0);
    const std::string path = (std::filesystem::temp_directory_path() / "attnlab_attention_only.safetensors").string();
    nn::save_checkpoint(path, m, {.kind = "causal", .vocab = {"a", "b", "c", "d", "e"}, .extra = {}});
    const nn::LoadedCheckpoint back = nn::load_checkpoint(path);
    CHECK(back.model->config().attention_only);
    CHECK(back.metadata.at("attention_only") == "true");
    const Tensor ids = from_vector<std::int64_t>({1, 2, 3}, {1, 3});
    CHECK(max(abs(back.model->forward(ids) - m.forward(ids))).item() == 0);
    std::filesystem::remove(path);
}
