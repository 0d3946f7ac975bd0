// phase5_seq2seq.cpp — attention where it began: a GRU encoder–decoder that learns to
// reverse sequences (seed 004 §5, §7–§10; seed 003 §8–9 and its exercises).
//
//   make phase5     writes out/phase5/*.svg, *.png and metrics.json
//
// Steps, in the seed's order:
//   1. the GRU, the recurrence attention was added to
//   2. scoring functions: four ways to compare a query with a key
//   3. cross-attention: queries from one sequence, keys/values from another
//   4. positional encodings: sinusoidal (the paper's formula) and learned
//   5. train: reversal with additive attention, and the comparison variants
//   6. the learned alignment: an anti-diagonal
//   7. attention vs none: the bottleneck grows with the source length
//   8. scoring functions and 9. softmax vs sparsemax vs top-k, on the same task
//  10. the cost of attention: quadratic in T; 11. the fused path (phase5_fused_attention.hpp)
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "nn/attention.hpp"
#include "nn/attention_cost.hpp"
#include "nn/seq2seq_experiment.hpp"
#include "phases/phase5_fused_attention.hpp"
#include "phases/phase_common.hpp"
#include "plots/bar_chart.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"
#include "plots/save.hpp"
#include "tensor/json.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"

using namespace attnlab;
namespace P = attnlab::plots;

namespace {
const std::string kOut = "out/phase5";
constexpr std::uint64_t kSeed = 5;
constexpr std::int64_t kMainSteps = 1000, kCompareSteps = 300;

P::Matrix rows_of(const Tensor& m) {  // [R, C] -> nested vectors for the plotters
    P::Matrix out(static_cast<std::size_t>(m.size(0)));
    for (std::int64_t r = 0; r < m.size(0); ++r) out[static_cast<std::size_t>(r)] = m.select(0, r).to_vector<double>();
    return out;
}
Json by_length_json(const nn::ReversalEval& e) {
    Json j = Json::object();
    for (const auto& [len, acc] : e.by_length) j[std::to_string(len)] = acc;
    return j;
}
}  // namespace

int main() {
    const auto t_start = std::chrono::steady_clock::now();
    std::printf("phase 5: attention in sequence-to-sequence models (seed %llu)\n", static_cast<unsigned long long>(kSeed));
    set_num_threads(1);  // training runs two models at once, one per core
    Generator gen(kSeed);
    Json metrics = Json::object();
    metrics["seed"] = static_cast<std::int64_t>(kSeed);

    // ---- 1. The GRU: h' = (1 − z) ⊙ n + z ⊙ h, gates r, z and candidate n ------------
    nn::GRUCell cell(4, 3, gen);
    std::cout << "\n1. GRUCell(4, 3): weight_ih " << cell.weight_ih.shape().str() << " (rows r, z, n), weight_hh "
              << cell.weight_hh.shape().str() << "\n   one step from h = 0: "
              << cell.forward(randn({1, 4}, kFloat32, gen), zeros({1, 3})) << "\n";

    // ---- 2. Scoring functions: query s [1, 1, 8] against keys h [1, 5, 8] --------------
    std::cout << "\n2. Scoring functions, weights over 5 keys (each row sums to 1):\n";
    const Tensor s = randn({1, 1, 8}, kFloat32, gen), h = randn({1, 5, 8}, kFloat32, gen);
    for (auto kind : {nn::ScoreKind::dot, nn::ScoreKind::scaled_dot, nn::ScoreKind::additive, nn::ScoreKind::multiplicative}) {
        auto scorer = nn::make_scoring(kind, 8, 8, 8, gen);
        std::printf("   %-15s", nn::score_kind_name(kind).c_str());
        std::cout << scorer->weights(s, scorer->prepare(h)).reshape({5}) << "\n";
    }

    // ---- 3. Cross-attention: 5 decoder queries attend over 8 encoder positions ---------
    nn::MultiHeadAttention cross(32, 4, 0, 0, gen);
    nn::LearnedPositionalEmbedding learned(16, 32, gen);
    const Tensor decoder_x = randn({2, 5, 32}, kFloat32, gen) + learned.forward(5);  // [B, Tq, d_model]
    const Tensor encoder_x = randn({2, 8, 32}, kFloat32, gen);                       // [B, Tk, d_model]
    nn::AttentionResult r = cross.forward(decoder_x, encoder_x, encoder_x, nn::Mask::padding({8, 6}, 8));
    std::cout << "\n3. Cross-attention: query " << decoder_x.shape().str() << ", key/value " << encoder_x.shape().str()
              << " -> output " << r.output.shape().str() << ", weights " << r.weights.shape().str()
              << " [B, H, Tq, Tk]\n   weight on padded keys of sequence 2: "
              << r.weights.select(0, 1).narrow(-1, 6, 2).sum().item() << "\n";

    // ---- 4. Positional encodings ------------------------------------------------------
    const Tensor pe = nn::sinusoidal_positional_encoding(50, 128), pe_seed = nn::seed003_positional_encoding(50, 128);
    auto flat_dims = [](const Tensor& m) {  // dimensions that change by < 0.1 over 50 positions: no position signal
        const Tensor range = max(m, 0).values - min(m, 0).values;  // [d_model]
        return static_cast<std::int64_t>(lt(range, scalar(0.1)).sum().item());
    };
    std::printf("\n4. Sinusoidal encoding [50, 128]: %lld of 128 dims vary by < 0.1 over 50 positions "
                "(seed 003's exponent 2i/d on an even i: %lld)\n",
                static_cast<long long>(flat_dims(pe)), static_cast<long long>(flat_dims(pe_seed)));
    metrics["positional"] = Json::Object{{"flat_dims_paper", flat_dims(pe)}, {"flat_dims_seed003", flat_dims(pe_seed)}};
    auto every = [](std::int64_t n, std::int64_t step) {  // a label on every step-th cell only
        std::vector<std::string> labels(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; i += step) labels[static_cast<std::size_t>(i)] = std::to_string(i);
        return labels;
    };
    P::HeatmapOptions pe_opt{.title = "Sinusoidal positional encoding (d_model 128)", .row_labels = every(50, 10),
                             .col_labels = every(128, 16), .x_title = "dimension", .y_title = "position",
                             .colormap = P::Colormap::red_blue, .vmin = -1.0, .vmax = 1.0,
                             .colorbar_label = "PE(pos, dim)", .cell_size = 5};
    P::save(P::heatmap(rows_of(pe), pe_opt), kOut + "/positional_encoding");
    std::vector<P::Series> dims;
    for (std::int64_t d : {0, 16, 32, 64, 96}) {  // fast to slow: wavelength 2π·10000^(d/128)
        P::Series series{.name = "dim " + std::to_string(d), .markers = false};
        for (std::int64_t p = 0; p < 50; ++p) series.x.push_back(static_cast<double>(p)), series.y.push_back(pe.at({p, d}));
        dims.push_back(series);
    }
    P::save(P::line_chart(dims, {.title = "Sinusoidal encoding: a few dimensions", .x_title = "position",
                                 .y_title = "PE(pos, dim)"}), kOut + "/positional_encoding_dims");

    // ---- 5. Train on reversal: the main model, then the variants, two at a time --------
    Generator eval_gen(kSeed + 100);
    const std::vector<data::Digits> held_out = data::held_out_sources(eval_gen, 100, {});
    struct Run {
        std::string name;
        nn::Seq2SeqConfig config;
        std::int64_t steps;
        nn::TrainResult result;
    };
    auto config = [](bool attention, nn::ScoreKind kind, nn::Normalizer norm) {
        nn::Seq2SeqConfig c;
        c.vocab = data::kReversalVocab, c.attention = attention, c.scoring = kind, c.normalizer = norm;
        return c;
    };
    const auto add = nn::ScoreKind::additive;
    const auto soft = nn::Normalizer::softmax();
    std::vector<Run> runs{
        {"additive (main)", config(true, add, soft), kMainSteps, {}},
        {"additive", config(true, add, soft), kCompareSteps, {}},
        {"no attention", config(false, add, soft), kCompareSteps, {}},
        {"dot", config(true, nn::ScoreKind::dot, soft), kCompareSteps, {}},
        {"scaled dot", config(true, nn::ScoreKind::scaled_dot, soft), kCompareSteps, {}},
        {"multiplicative", config(true, nn::ScoreKind::multiplicative, soft), kCompareSteps, {}},
        {"sparsemax", config(true, add, nn::Normalizer::sparsemax()), kCompareSteps, {}},
        {"top-2", config(true, add, nn::Normalizer::topk(2)), kCompareSteps, {}},
    };
    std::vector<std::unique_ptr<nn::Seq2Seq>> models;
    std::vector<std::function<void()>> jobs;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        Generator init(kSeed + 10);  // every variant starts from the same seed
        models.push_back(std::make_unique<nn::Seq2Seq>(runs[i].config, init));
        jobs.push_back([&, i] {
            nn::TrainConfig tc{.steps = runs[i].steps, .checkpoints = {runs[i].steps}};
            runs[i].result = nn::train_reversal(*models[i], tc, held_out);
        });
    }
    std::printf("\n5. Training %zu models on reversal (GRU hidden 64, batch 64, Adam 3e-3): main %lld steps, "
                "comparisons %lld steps each\n", runs.size(), static_cast<long long>(kMainSteps), static_cast<long long>(kCompareSteps));
    nn::run_concurrently(jobs, 2);
    std::printf("   %-16s %8s %9s %12s %10s %8s\n", "model", "steps", "accuracy", "anti-diag", "zeros", "seconds");
    for (const Run& run : runs) {
        const nn::ReversalEval& e = run.result.evals.at(run.steps);
        std::printf("   %-16s %8lld %9.4f %12.4f %10.4f %8.1f\n", run.name.c_str(), static_cast<long long>(run.steps),
                    e.accuracy, e.anti_diagonal, e.zero_fraction, run.result.seconds);
    }
    const nn::ReversalEval& main_eval = runs[0].result.evals.at(kMainSteps);
    metrics["reversal"] = Json::Object{{"steps", kMainSteps}, {"held_out_sequences", static_cast<std::int64_t>(held_out.size())},
                                       {"exact_sequence_accuracy", main_eval.accuracy},
                                       {"anti_diagonal_share", main_eval.anti_diagonal},
                                       {"accuracy_by_length", by_length_json(main_eval)},
                                       {"train_seconds", runs[0].result.seconds}};

    // ---- 6. The learned alignment: output step t looks at source position L − 1 − t ----
    const std::vector<data::Digits> examples{held_out[410], held_out[420], held_out[430], held_out[440]};  // length 8
    const data::ReversalBatch ex = data::make_reversal_batch(examples);
    const Tensor w = models[0]->forward(ex.src, ex.lengths, ex.tgt_in).weights;  // [4, 9, 8]
    std::vector<P::Matrix> panels;
    std::vector<std::string> titles;
    for (std::int64_t b = 0; b < 4; ++b) panels.push_back(rows_of(w.select(0, b))), titles.push_back(data::to_string(examples[b]));
    std::vector<std::string> out_labels, src_labels;
    for (int i = 1; i <= 8; ++i) out_labels.push_back("y" + std::to_string(i)), src_labels.push_back("x" + std::to_string(i));
    out_labels.push_back("eos");
    P::HeatmapGridOptions grid;
    grid.title = "Reversal: learned attention (held-out sources of length 8)";
    grid.row_labels = out_labels, grid.col_labels = src_labels, grid.panel_titles = titles, grid.columns = 2;
    grid.x_title = "source position", grid.y_title = "output step", grid.vmin = 0.0, grid.vmax = 1.0;
    grid.colorbar_label = "attention weight";
    P::save(P::heatmap_grid(panels, grid), kOut + "/reversal_attention");
    phase::save_key_matrix("phase5_reversal_attention", w.select(0, 0), out_labels, src_labels);
    std::printf("\n6. Reversal, held out (%zu sequences): exact-sequence accuracy %.4f, anti-diagonal share %.4f\n",
                held_out.size(), main_eval.accuracy, main_eval.anti_diagonal);
    std::cout << "   weights for source " << titles[0] << ":\n" << w.select(0, 0) << "\n";

    // ---- 7–9. Comparisons at the same number of steps ---------------------------------
    auto loss_chart = [&](const std::vector<std::size_t>& which, const std::string& title, const std::string& file) {
        std::vector<P::Series> series;
        for (std::size_t i : which) {
            nn::Curve c = nn::smooth(runs[i].result.loss, 20, 10);
            series.push_back({.name = runs[i].name, .x = c.step, .y = c.value, .markers = false});
        }
        P::save(P::line_chart(series, {.title = title, .x_title = "training step",
                                       .y_title = "cross-entropy (nats, mean of 20 steps)", .log_y = true}), kOut + "/" + file);
    };
    loss_chart({1, 2}, "Attention vs none: training loss", "attention_vs_none");
    std::vector<P::Series> by_len;
    Json comparisons = Json::object();
    std::printf("\n7. Accuracy by source length after %lld steps:\n   %-16s", static_cast<long long>(kCompareSteps), "model");
    for (std::int64_t len = 4; len <= 10; ++len) std::printf(" %6lld", static_cast<long long>(len));
    for (std::size_t i : {1, 2}) {
        const nn::ReversalEval& e = runs[i].result.evals.at(kCompareSteps);
        P::Series series{.name = runs[i].name};
        std::printf("\n   %-16s", runs[i].name.c_str());
        for (const auto& [len, acc] : e.by_length) series.x.push_back(static_cast<double>(len)), series.y.push_back(acc),
                                                   std::printf(" %6.3f", acc);
        by_len.push_back(series);
    }
    std::printf("\n");
    P::save(P::line_chart(by_len, {.title = "Attention vs none: accuracy by source length", .x_title = "source length",
                                   .y_title = "exact-sequence accuracy"}), kOut + "/attention_vs_none_by_length");
    loss_chart({1, 3, 4, 5}, "Scoring functions: training loss", "scoring_functions");
    loss_chart({1, 6, 7}, "Softmax vs sparsemax vs top-2: training loss", "sparse_attention_loss");
    std::vector<std::string> names;
    std::vector<double> accs;
    for (std::size_t i = 1; i < runs.size(); ++i) {
        const nn::ReversalEval& e = runs[i].result.evals.at(kCompareSteps);
        comparisons[runs[i].name] = Json::Object{{"exact_sequence_accuracy", e.accuracy}, {"anti_diagonal_share", e.anti_diagonal},
                                                 {"zero_weight_fraction", e.zero_fraction},
                                                 {"final_loss_mean_last_20", nn::smooth(runs[i].result.loss, 20, 20).value.back()},
                                                 {"accuracy_by_length", by_length_json(e)}};
        names.push_back(runs[i].name), accs.push_back(e.accuracy);
    }
    metrics["comparisons"] = comparisons;
    metrics["compare_steps"] = kCompareSteps;
    P::save(P::bar_chart(names, accs, {.title = "Held-out accuracy after " + std::to_string(kCompareSteps) + " steps",
                                       .value_title = "exact-sequence accuracy", .horizontal = true, .decimals = 3}),
            kOut + "/scoring_accuracy");
    // 9. Sparsity: the share of weights on real keys that are exactly 0, and one example under each normalizer.
    std::vector<std::string> norm_names{"softmax", "sparsemax", "top-2"};
    std::vector<double> zero_share;
    std::vector<P::Matrix> norm_panels;
    std::vector<std::string> norm_titles;
    for (std::size_t i : {1, 6, 7}) {
        zero_share.push_back(runs[i].result.evals.at(kCompareSteps).zero_fraction);
        const Tensor wi = models[i]->forward(ex.src, ex.lengths, ex.tgt_in).weights.select(0, 0);  // [9, 8]
        norm_panels.push_back(rows_of(wi));
        norm_titles.push_back(norm_names[norm_titles.size()] + ": " + std::to_string(static_cast<std::int64_t>(
                                  eq(wi, scalar(0.0)).sum().item())) + " of 72 exactly 0");
    }
    std::printf("\n9. Weights exactly 0: softmax %.3f, sparsemax %.3f, top-2 %.3f\n", zero_share[0], zero_share[1], zero_share[2]);
    P::save(P::bar_chart(norm_names, zero_share, {.title = "Attention weights exactly 0", .value_title = "share of weights on real keys",
                                                  .horizontal = true, .decimals = 3, .plot_length = 320}),
            kOut + "/sparse_attention");
    grid.title = "Source " + titles[0] + ": softmax, sparsemax, top-2", grid.panel_titles = norm_titles, grid.columns = 3;
    P::save(P::heatmap_grid(norm_panels, grid), kOut + "/sparse_attention_weights");

    // ---- 10. The cost of attention: B 1, H 8, d_k 64, one thread ----------------------
    std::printf("\n10. Self-attention forward, B 1, H 8, d_k 64, 1 thread (median of 7 after warm-up):\n"
                "   %6s %12s %16s %14s\n", "T", "core ms", "projections ms", "T×T MiB (×2)");
    P::Series core{.name = "softmax(QK^T/sqrt(d_k))V"}, proj{.name = "Q, K, V, O projections"};
    Json cost = Json::object();
    for (std::int64_t T : {64, 128, 256, 512, 1024, 2048}) {
        nn::AttentionCost c = nn::measure_attention_cost(T);
        std::printf("   %6lld %12.3f %16.3f %14.1f\n", static_cast<long long>(T), c.core.median_ms, c.projections.median_ms,
                    c.score_bytes / (1 << 20));
        core.x.push_back(static_cast<double>(T)), core.y.push_back(c.core.median_ms);
        proj.x.push_back(static_cast<double>(T)), proj.y.push_back(c.projections.median_ms);
        cost[std::to_string(T)] = Json::Object{{"core_ms", c.core.median_ms}, {"projections_ms", c.projections.median_ms},
                                               {"score_matrix_bytes", c.score_bytes}};
    }
    const double slope = P::fit_power_law(core.x, core.y).slope, slope_proj = P::fit_power_law(proj.x, proj.y).slope;
    std::printf("   fitted exponent: core %.2f, projections %.2f\n", slope, slope_proj);
    cost["core_exponent"] = slope, cost["projections_exponent"] = slope_proj;
    metrics["attention_cost"] = cost;
    P::save(P::line_chart({core, proj}, {.title = "Cost of self-attention (this machine, 1 thread)",
                                         .x_title = "sequence length T", .y_title = "forward time (ms)", .log_x = true,
                                         .log_y = true, .fit_slope = true}), kOut + "/attention_cost");

    metrics["fused_attention"] = phase5::fused_attention_section(kOut);  // 11. the fused path

    metrics["wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    save_json(kOut + "/metrics.json", metrics);
    std::printf("\nwrote %s/*.svg, *.png and metrics.json in %.1f s\n", kOut.c_str(), metrics.at("wall_seconds").as_double());
    return 0;
}
