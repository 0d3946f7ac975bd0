// phase5_seq2seq.cpp — attention where it began: a GRU encoder–decoder that learns to
// reverse sequences (additive and dot-product attention, positions, cost, variants).
//
//   make phase5     writes out/phase5/*.svg, *.png and metrics.json
//
// Steps, in the course's order:
//   1. the GRU, the recurrence attention was added to
//   2. scoring functions: four ways to compare a query with a key
//   3. cross-attention: queries from one sequence, keys/values from another
//   4. positional encodings: sinusoidal (the paper's formula) and learned
//   5. train: reversal with additive attention, and the comparison variants
//   6. the learned alignment: an anti-diagonal
//   7. attention vs none: the bottleneck grows with the source length
//   8. scoring functions and 9. softmax vs sparsemax vs top-k, on the same task
//  10. the cost of attention: quadratic in T; 11. the fused path (phase5_fused_attention.hpp)
//  12. hard vs soft attention and dropout (phase5_hard_soft_dropout.hpp); 13. learned vs
//      sinusoidal positions (phase5_positional.hpp)
//  14. attention vs RNN vs CNN vs fully connected on recall-k-back (phase5_architectures.hpp)
//
// `phase5 --help` lists the settings: the seed, the GRU's --hidden width, the longest
// source (--length), the main model's --score, its --steps (the comparisons and steps
// 12-13 train a third of them, step 14's four models as many), the lengths step 10 times (--cost-t), --out,
// --checkpoint (a model of `seq2seq train` studied in steps 5-6 in place of the main one)
// and --digits (a source of the learner's, decoded and drawn in step 6).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "nn/attention.hpp"
#include "experiments/attention_cost.hpp"
#include "app/report.hpp"
#include "training/run_config.hpp"
#include "experiments/seq2seq_experiment.hpp"
#include "phases/phase5_architectures.hpp"
#include "phases/phase5_fused_attention.hpp"
#include "phases/phase5_hard_soft_dropout.hpp"
#include "phases/phase_common.hpp"
#include "training/trained_enough.hpp"
#include "plots/bar_chart.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"
#include "tensor/parallel.hpp"

using namespace attnlab;
using namespace attnlab::phase;
namespace P = attnlab::plots;

namespace {

// One trained reversal model: the main one, or a comparison that changes one thing.
struct Run {
    std::string name;
    nn::Seq2SeqConfig config;
    std::int64_t steps;
    lab::ReversalTrainResult result;
};

// What the sections share: the settings, the generator steps 1-4 draw from, the trained runs.
struct Phase5 : Frame {
    explicit Phase5(const lab::Options& o) : Frame(o, "phase5"), gen(seed) {}
    Generator gen;
    data::ReversalConfig task;
    std::int64_t main_steps = 0, compare_steps = 0;
    std::vector<data::Digits> held_out, examples;  // examples: four held-out sources of length 8 (or the longest)
    std::vector<Run> runs;                           // [0] the main model, then the comparisons
    std::vector<std::unique_ptr<nn::Seq2Seq>> models;
    lab::ReversalModel mine;                         // --checkpoint: the learner's model replaces the main run
    data::Digits digits;                             // --digits: one more source for step 6 (empty: none)
    data::ReversalBatch example_batch() const { return data::make_reversal_batch(examples); }
    const lab::ReversalEval& eval(std::size_t i) const { return runs[i].result.evals.at(runs[i].steps); }
};

Json by_length_json(const lab::ReversalEval& e) {
    Json j = Json::object();
    for (const auto& [len, acc] : e.by_length) j[std::to_string(len)] = acc;
    return j;
}

void section1_gru(Phase5& p) {  // h' = (1 − z) ⊙ n + z ⊙ h, gates r, z and candidate n
    nn::GRUCell cell(4, 3, p.gen);
    std::cout << "\n1. GRUCell(4, 3): weight_ih " << cell.weight_ih.shape().str() << " (rows r, z, n), weight_hh "
              << cell.weight_hh.shape().str() << "\n   one step from h = 0: "
              << cell.forward(randn({1, 4}, kFloat32, p.gen), zeros({1, 3})) << "\n";
}

void section2_scoring_functions(Phase5& p) {  // query s [1, 1, 8] against keys h [1, 5, 8]
    std::cout << "\n2. Scoring functions, weights over 5 keys (each row sums to 1):\n";
    const Tensor s = randn({1, 1, 8}, kFloat32, p.gen), h = randn({1, 5, 8}, kFloat32, p.gen);
    for (auto kind : {nn::ScoreKind::dot, nn::ScoreKind::scaled_dot, nn::ScoreKind::additive, nn::ScoreKind::multiplicative}) {
        auto scorer = nn::make_scoring(kind, 8, 8, 8, p.gen);
        std::printf("   %-15s", nn::score_kind_name(kind).c_str());
        std::cout << scorer->weights(s, scorer->prepare(h)).reshape({5}) << "\n";
    }
}

void section3_cross_attention(Phase5& p) {  // 5 decoder queries attend over 8 encoder positions
    nn::MultiHeadAttention cross(32, 4, 0, 0, p.gen);
    nn::LearnedPositionalEmbedding learned(16, 32, p.gen);
    const Tensor decoder_x = randn({2, 5, 32}, kFloat32, p.gen) + learned.forward(5);  // [B, Tq, d_model]
    const Tensor encoder_x = randn({2, 8, 32}, kFloat32, p.gen);                       // [B, Tk, d_model]
    nn::AttentionResult r = cross.forward(decoder_x, encoder_x, encoder_x, nn::Mask::padding({8, 6}, 8));
    std::cout << "\n3. Cross-attention: query " << decoder_x.shape().str() << ", key/value " << encoder_x.shape().str()
              << " -> output " << r.output.shape().str() << ", weights " << r.weights.shape().str()
              << " [B, H, Tq, Tk]\n   weight on padded keys of sequence 2: "
              << r.weights.select(0, 1).narrow(-1, 6, 2).sum().item() << "\n";
}

void section4_positional_encodings(Phase5& p) {
    const Tensor pe = nn::sinusoidal_positional_encoding(50, 128), pe_squared = nn::squared_wavelength_positional_encoding(50, 128);
    auto flat_dims = [](const Tensor& m) {  // dimensions that change by < 0.1 over 50 positions: no position signal
        const Tensor range = max(m, 0).values - min(m, 0).values;  // [d_model]
        return static_cast<std::int64_t>(lt(range, scalar(0.1)).sum().item());
    };
    std::printf("\n4. Sinusoidal encoding [50, 128]: %lld of 128 dims vary by < 0.1 over 50 positions "
                "(with the exponent 2i/d on an even i, a common slip: %lld)\n",
                static_cast<long long>(flat_dims(pe)), static_cast<long long>(flat_dims(pe_squared)));
    p.m["positional"] = Json::Object{{"flat_dims_paper", flat_dims(pe)}, {"flat_dims_course", flat_dims(pe_squared)}};
    auto every = [](std::int64_t n, std::int64_t step) {  // a label on every step-th cell only
        std::vector<std::string> labels(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; i += step) labels[static_cast<std::size_t>(i)] = std::to_string(i);
        return labels;
    };
    P::HeatmapOptions pe_opt{.title = "Sinusoidal positional encoding (d_model 128)", .row_labels = every(50, 10),
                             .col_labels = every(128, 16), .x_title = "dimension", .y_title = "position",
                             .colormap = P::Colormap::red_blue, .vmin = -1.0, .vmax = 1.0,
                             .colorbar_label = "PE(pos, dim)", .cell_size = 5};
    p.out.figure(P::heatmap(to_matrix(pe), pe_opt), "positional_encoding",
                 "Phase 5: the sinusoidal positional encodings, position by dimension.");
    std::vector<P::Series> dims;
    for (std::int64_t d : {0, 16, 32, 64, 96}) {  // fast to slow: wavelength 2π·10000^(d/128)
        P::Series series{.name = "dim " + std::to_string(d), .markers = false};
        for (std::int64_t i = 0; i < 50; ++i) series.x.push_back(static_cast<double>(i)), series.y.push_back(pe.at({i, d}));
        dims.push_back(series);
    }
    p.out.figure(P::line_chart(dims, {.title = "Sinusoidal encoding: a few dimensions", .x_title = "position",
                                      .y_title = "PE(pos, dim)"}), "positional_encoding_dims",
                 "Phase 5: a few dimensions of the sinusoidal encoding against position: each a wave of its own period.");
}

// Step 5: the main model and every comparison, trained two at a time from the same initial seed.
void section5_train(Phase5& p, nn::ScoreKind main_kind, std::int64_t hidden) {
    auto config = [&](bool attention, nn::ScoreKind kind, nn::Normalizer norm) {
        nn::Seq2SeqConfig c;
        c.vocab = data::kReversalVocab, c.attention = attention, c.scoring = kind, c.normalizer = norm, c.hidden = hidden;
        return c;
    };
    const auto add = nn::ScoreKind::additive;
    const auto soft = nn::Normalizer::softmax();
    const bool mine = p.mine.model != nullptr;
    const std::int64_t mine_steps = mine && p.mine.extra.contains("steps") ? lab::parse_int64(p.mine.extra.at("steps")).value_or(0) : 0;
    p.runs = {{mine ? "checkpoint" : nn::score_kind_name(main_kind) + " (main)", mine ? p.mine.model->config() : config(true, main_kind, soft),
               mine ? mine_steps : p.main_steps, {}},
              {"additive", config(true, add, soft), p.compare_steps, {}},
              {"no attention", config(false, add, soft), p.compare_steps, {}},
              {"dot", config(true, nn::ScoreKind::dot, soft), p.compare_steps, {}},
              {"scaled dot", config(true, nn::ScoreKind::scaled_dot, soft), p.compare_steps, {}},
              {"multiplicative", config(true, nn::ScoreKind::multiplicative, soft), p.compare_steps, {}},
              {"sparsemax", config(true, add, nn::Normalizer::sparsemax()), p.compare_steps, {}},
              {"top-2", config(true, add, nn::Normalizer::topk(2)), p.compare_steps, {}}};
    std::vector<std::function<void()>> jobs;
    for (std::size_t i = 0; i < p.runs.size(); ++i) {
        Generator init(p.seed + 10);  // every variant starts from the same seed
        p.models.push_back(i == 0 && mine ? std::move(p.mine.model) : std::make_unique<nn::Seq2Seq>(p.runs[i].config, init));
        if (i == 0 && mine) continue;  // trained already: measured below
        jobs.push_back([&p, i] {
            lab::ReversalTrainConfig tc{.steps = p.runs[i].steps, .checkpoints = {p.runs[i].steps}};
            p.runs[i].result = lab::train_reversal(*p.models[i], tc, p.held_out, p.task);
        });
    }
    const std::string main_run = mine ? "main: " + p.opt.text("checkpoint") : "main " + std::to_string(p.main_steps) + " steps";
    std::printf("\n5. Training %zu models on reversal (GRU hidden %lld, batch 64, Adam 3e-3, sources of %lld-%lld digits): "
                "%s, comparisons %lld steps each\n", p.runs.size() - mine, static_cast<long long>(hidden),
                static_cast<long long>(p.task.min_len), static_cast<long long>(p.task.max_len), main_run.c_str(),
                static_cast<long long>(p.compare_steps));
    lab::run_concurrently(jobs, 2);
    if (mine) p.runs[0].result.evals[p.runs[0].steps] = lab::evaluate_reversal(*p.models[0], p.held_out);
    lab::Table t({{"model", "model", 16, -1}, {"steps", "steps", 8, -1}, {"accuracy", "accuracy", 9, 4},
                  {"anti_diagonal", "anti-diag", 12, 4}, {"zeros", "zeros", 10, 4}, {"seconds", "seconds", 8, 1}}, "   ");
    t.print_header();
    for (std::size_t i = 0; i < p.runs.size(); ++i)
        t.row({p.runs[i].name, p.runs[i].steps, p.eval(i).accuracy, p.eval(i).anti_diagonal, p.eval(i).zero_fraction,
               p.runs[i].result.seconds});
    const lab::ReversalEval& main_eval = p.eval(0);
    p.m["reversal"] = Json::Object{{"steps", p.main_steps}, {"held_out_sequences", static_cast<std::int64_t>(p.held_out.size())},
                                   {"exact_sequence_accuracy", main_eval.accuracy}, {"anti_diagonal_share", main_eval.anti_diagonal},
                                   {"accuracy_by_length", by_length_json(main_eval)}, {"train_seconds", p.runs[0].result.seconds}};
    if (mine) p.m["reversal"]["checkpoint"] = p.opt.text("checkpoint");
    lab::headline(p.m, "reversal_exact_sequence_accuracy", main_eval.accuracy, "reversal, held out: exact accuracy");
    lab::headline(p.m, "reversal_anti_diagonal_share", main_eval.anti_diagonal, "anti-diagonal share of attention");
}

// Step 6: output step t looks at source position L − 1 − t.
void section6_alignment(Phase5& p) {
    const data::ReversalBatch ex = p.example_batch();
    const Tensor w = p.models[0]->forward(ex.src, ex.lengths, ex.tgt_in).weights;  // [4, L+1, L]
    const std::int64_t L = static_cast<std::int64_t>(p.examples[0].size());
    std::vector<P::Matrix> panels;
    std::vector<std::string> titles, out_labels, src_labels;
    for (std::int64_t b = 0; b < 4; ++b) panels.push_back(to_matrix(w.select(0, b))), titles.push_back(data::to_string(p.examples[b]));
    for (std::int64_t i = 1; i <= L; ++i) out_labels.push_back("y" + std::to_string(i)), src_labels.push_back("x" + std::to_string(i));
    out_labels.push_back("eos");
    P::HeatmapGridOptions grid;
    grid.title = "Reversal: learned attention (held-out sources of length " + std::to_string(L) + ")";
    grid.row_labels = out_labels, grid.col_labels = src_labels, grid.panel_titles = titles, grid.columns = 2;
    grid.x_title = "source position", grid.y_title = "output step", grid.vmin = 0.0, grid.vmax = 1.0;
    grid.colorbar_label = "attention weight";
    p.out.figure(P::heatmap_grid(panels, grid), "reversal_attention",
                 "Phase 5: the learned alignment for sequence reversal is an anti-diagonal.");
    save_key_matrix("phase5_reversal_attention", w.select(0, 0), out_labels, src_labels, p.out.root());
    std::printf("\n6. Reversal, held out (%zu sequences): exact-sequence accuracy %.4f, anti-diagonal share %.4f\n",
                p.held_out.size(), p.eval(0).accuracy, p.eval(0).anti_diagonal);
    std::cout << "   weights for source " << titles[0] << ":\n" << w.select(0, 0) << "\n";
    if (p.digits.empty()) return;
    std::printf("\n   --digits, decoded by the main model:\n");
    const lab::ReversalDecode d = lab::decode_reversal(*p.models[0], p.digits);
    lab::print_decode(d);
    p.m["digits"] = Json::Object{{"source", data::to_string(d.source)}, {"output", data::to_string(d.output)},
                                 {"is_reversal", d.is_reversal}};
    if (d.weights.defined()) p.out.figure(lab::alignment_heatmap(d), "reversal_attention_digits",
                                         "Phase 5: the main model's attention while decoding your --digits: rows are the tokens it "
                                         "emitted, columns the source digits; reversing reads the anti-diagonal.");
}

double last_20(const std::vector<double>& loss) {  // the mean training loss of the last 20 steps (or of all, if fewer)
    const std::size_t window = std::min<std::size_t>(20, loss.size());
    return lab::smooth(loss, window, window).value.back();
}

void loss_chart(Phase5& p, const std::vector<std::size_t>& which, const std::string& title, const std::string& file,
                const std::string& caption) {
    std::vector<P::Series> series;
    for (std::size_t i : which) {
        const std::size_t window = std::min<std::size_t>(20, p.runs[i].result.loss.size());  // 20 unless the run is shorter
        lab::Curve c = lab::smooth(p.runs[i].result.loss, window, std::min<std::size_t>(10, window));
        series.push_back({.name = p.runs[i].name, .x = c.step, .y = c.value, .markers = false});
    }
    p.out.figure(P::line_chart(series, {.title = title, .x_title = "training step",
                                        .y_title = "cross-entropy (nats, mean of 20 steps)", .log_y = true}), file, caption);
}

// Steps 7-9: the comparisons, all at the same number of steps.
void section7_8_compare(Phase5& p) {
    loss_chart(p, {1, 2}, "Attention vs none: training loss", "attention_vs_none",
               "Phase 5: training loss of the reversal seq2seq with and without attention.");
    std::printf("\n7. Accuracy by source length after %lld steps:\n", static_cast<long long>(p.compare_steps));
    std::vector<P::Series> by_len;
    for (std::size_t i : {1, 2}) {
        P::Series series{.name = p.runs[i].name};
        std::printf("   %-16s", p.runs[i].name.c_str());
        for (const auto& [len, acc] : p.eval(i).by_length)
            series.x.push_back(static_cast<double>(len)), series.y.push_back(acc), std::printf(" %lld: %.3f", static_cast<long long>(len), acc);
        std::printf("\n");
        by_len.push_back(series);
    }
    p.out.figure(P::line_chart(by_len, {.title = "Attention vs none: accuracy by source length", .x_title = "source length",
                                        .y_title = "exact-sequence accuracy"}), "attention_vs_none_by_length",
                 "Phase 5: held-out accuracy by source length, with and without attention: without it, the fixed-size bottleneck fails on long sources.");
    loss_chart(p, {1, 3, 4, 5}, "Scoring functions: training loss", "scoring_functions",
               "Phase 5: training loss with each scoring function: additive, dot, scaled dot, multiplicative.");
    loss_chart(p, {1, 6, 7}, "Softmax vs sparsemax vs top-2: training loss", "sparse_attention_loss",
               "Phase 5: training loss with softmax, sparsemax and top-2 normalisation of the scores.");
    std::printf("\n8. Held-out accuracy after %lld steps:\n", static_cast<long long>(p.compare_steps));
    lab::Table t({{"model", "model", 16, -1}, {"exact_sequence_accuracy", "accuracy", 9, 4}, {"anti_diagonal_share", "anti-diag", 10, 4},
                  {"zero_weight_fraction", "zeros", 6, 3}, {"final_loss_mean_last_20", "loss (last 20)", 14, 4},
                  {"accuracy_by_length", "", 0, -1, false}}, "   ");
    t.print_header();
    std::vector<std::string> names;
    for (std::size_t i = 1; i < p.runs.size(); ++i) {
        const lab::ReversalEval& e = p.eval(i);
        t.row({p.runs[i].name, e.accuracy, e.anti_diagonal, e.zero_fraction, last_20(p.runs[i].result.loss),
               by_length_json(e)});
        names.push_back(p.runs[i].name);
    }
    std::vector<lab::RunRecord> records;  // exact-sequence accuracy: chance is about 0 (NaN: no rule 2)
    for (std::size_t i = 1; i < p.runs.size(); ++i)
        records.push_back({p.runs[i].name, p.runs[i].result.loss, p.eval(i).accuracy, NAN});
    lab::print_untrained_warning(records, "--steps: the comparisons train a third of them");
    p.m["comparisons"] = t.json_by("model");
    for (const Json& r : t.json().as_array())
        if (r.at("model").as_string() == "no attention")
            lab::headline(p.m, "no_attention_exact_sequence_accuracy", r.at("exact_sequence_accuracy"), "no attention: exact accuracy");
    p.m["compare_steps"] = p.compare_steps;
    p.out.figure(P::bar_chart(names, t.column("exact_sequence_accuracy"),
                              {.title = "Held-out accuracy after " + std::to_string(p.compare_steps) + " steps",
                               .value_title = "exact-sequence accuracy", .horizontal = true, .decimals = 3}),
                 "scoring_accuracy",
                 "Phase 5: held-out exact-sequence accuracy of every variant after the same number of steps.");
}

// Step 9: the share of weights on real keys that are exactly 0, and one example under each normalizer.
void section9_sparsity(Phase5& p) {
    const std::vector<std::string> norm_names{"softmax", "sparsemax", "top-2"};
    const data::ReversalBatch ex = p.example_batch();
    std::vector<double> zero_share;
    std::vector<P::Matrix> panels;
    std::vector<std::string> titles;
    for (std::size_t i : {1, 6, 7}) {
        zero_share.push_back(p.eval(i).zero_fraction);
        const Tensor wi = p.models[i]->forward(ex.src, ex.lengths, ex.tgt_in).weights.select(0, 0);  // [L+1, L]
        panels.push_back(to_matrix(wi));
        titles.push_back(norm_names[titles.size()] + ": " + std::to_string(static_cast<std::int64_t>(eq(wi, scalar(0.0)).sum().item())) +
                         " of " + std::to_string(wi.numel()) + " exactly 0");
    }
    std::printf("\n9. Weights exactly 0: softmax %.3f, sparsemax %.3f, top-2 %.3f\n", zero_share[0], zero_share[1], zero_share[2]);
    p.out.figure(P::bar_chart(norm_names, zero_share, {.title = "Attention weights exactly 0", .value_title = "share of weights on real keys",
                                                       .horizontal = true, .decimals = 3, .plot_length = 320}),
                 "sparse_attention",
                 "Phase 5: the share of attention weights exactly 0 under softmax, sparsemax and top-2.");
    const std::int64_t L = static_cast<std::int64_t>(p.examples[0].size());
    std::vector<std::string> out_labels, src_labels;
    for (std::int64_t i = 1; i <= L; ++i) out_labels.push_back("y" + std::to_string(i)), src_labels.push_back("x" + std::to_string(i));
    out_labels.push_back("eos");
    P::HeatmapGridOptions grid;
    grid.title = "Source " + data::to_string(p.examples[0]) + ": softmax, sparsemax, top-2";
    grid.row_labels = out_labels, grid.col_labels = src_labels, grid.panel_titles = titles, grid.columns = 3;
    grid.x_title = "source position", grid.y_title = "output step", grid.vmin = 0.0, grid.vmax = 1.0;
    grid.colorbar_label = "attention weight";
    p.out.figure(P::heatmap_grid(panels, grid), "sparse_attention_weights",
                 "Phase 5: one source's alignment under softmax, sparsemax and top-2.");
}

// Step 10: B 1, H 8, d_k 64, one thread; times are the median of 7 after warm-up, each repetition
// ~50 ms of calls (at least one): enough for the slope of the curve, in a third of a benchmark's time.
void section10_cost(Phase5& p, const std::vector<std::int64_t>& lengths) {
    std::printf("\n10. Self-attention forward, B 1, H 8, d_k 64, 1 thread (median of 7 after warm-up):\n");
    lab::Table t({{"T", "T", 6, -1}, {"core_ms", "core ms", 12, 3}, {"projections_ms", "projections ms", 16, 3},
                  {"score_matrix_bytes", "T x T bytes (x2)", 16, -1}}, "   ");
    t.print_header();
    for (std::int64_t T : lengths) {
        const lab::AttentionCost c = lab::measure_attention_cost(T, 1, 8, 64, 0.05, 0.1);
        t.row({T, c.core.median_ms, c.projections.median_ms, c.score_bytes});
    }
    P::Series core = t.series("T", "core_ms", {.name = "softmax(QK^T/sqrt(d_k))V"});
    P::Series proj = t.series("T", "projections_ms", {.name = "Q, K, V, O projections"});
    Json cost = t.json_by("T");
    if (lengths.size() > 1) {
        const double slope = P::fit_power_law(core.x, core.y).slope, slope_proj = P::fit_power_law(proj.x, proj.y).slope;
        std::printf("   fitted exponent: core %.2f, projections %.2f\n", slope, slope_proj);
        cost["core_exponent"] = slope, cost["projections_exponent"] = slope_proj;
        // "time" in the keys: fitted to timings, which make check-metrics leaves out as it does attention_cost.
        lab::headline(p.m, "core_time_exponent", slope, "cost exponent of softmax(QK^T)V", 2);
        lab::headline(p.m, "projections_time_exponent", slope_proj, "cost exponent of the projections", 2);
    }
    p.m["attention_cost"] = cost;
    p.out.figure(P::line_chart({core, proj}, {.title = "Cost of self-attention (this machine, 1 thread)", .x_title = "sequence length T",
                                              .y_title = "forward time (ms)", .log_x = true, .log_y = true,
                                              .fit_slope = lengths.size() > 1}), "attention_cost",
                 "Phase 5: time of attention's core and of its projections against T, log-log, with fitted exponents.");
}

// Steps 1-4: the building blocks, before any training.
void sections1_4_building_blocks(Phase5& p) {
    section1_gru(p);
    section2_scoring_functions(p);
    section3_cross_attention(p);
    section4_positional_encodings(p);
}

nn::ScoreKind score_kind(const lab::Options& opt) {
    const std::string name = opt.choice("score", {"dot", "scaled_dot", "additive", "multiplicative"});
    for (auto kind : {nn::ScoreKind::dot, nn::ScoreKind::scaled_dot, nn::ScoreKind::additive, nn::ScoreKind::multiplicative})
        if (nn::score_kind_name(kind) == name || (name == "scaled_dot" && kind == nn::ScoreKind::scaled_dot)) return kind;
    opt.fail("score", "unknown scoring function");
}

}  // namespace

// The learner's settings (`phase5 --help` lists them).
void declare_flags(lab::Options& opt) {
    add_common_flags(opt, {.phase = "phase5", .model = "", .seed = 5, .sentence = false});
    opt.add("checkpoint", "PATH", "", "a reversal model from `seq2seq train`: steps 5-6 show it instead of training the "
            "main model (its source lengths replace --length; --score and --steps then set only the comparisons)");
    opt.add("digits", "\"D D ...\"", "", "a source of your own (digits 0-9): step 6 decodes it and draws its alignment");
    opt.add("hidden", "N", "64", "GRU width of every model (the decoder state; the encoder's two directions share it)");
    opt.add("length", "N", "10", "longest source (sources have 4 to N digits)");
    opt.add("score", "KIND", "additive", "the main model's scoring: dot, scaled_dot, additive, multiplicative");
    opt.add("steps", "N", "600", "training steps of the main model; each comparison (and steps 12-13) trains a third of them, step 14's four models as many");
    opt.add("cost-t", "LIST", "64,128,256,512,1024", "sequence lengths step 10 times (the seed's)");
}

// Steps 5-6's model (the learner's --checkpoint, or trained here) and source (--digits), each
// checked before any work; then the held-out set and the examples every figure reads.
void section0_settings(Phase5& p) {
    const lab::Options& opt = p.opt;
    p.task.max_len = opt.integer("length", p.task.min_len, lab::kLongestReversal);
    if (opt.given("checkpoint")) {
        try {
            p.mine = lab::load_reversal_model(opt.text("checkpoint"));
        } catch (const std::exception& e) {
            opt.fail("checkpoint", e.what());
        }
        if (opt.given("length") && p.task.max_len != p.mine.task.max_len)
            opt.fail("length", "the checkpoint was trained on sources of up to " + std::to_string(p.mine.task.max_len) +
                                   " digits; leave --length out to use that");
        p.task = p.mine.task;
    }
    if (opt.given("digits")) {
        if (const std::string why = lab::parse_digits(opt.text("digits"), p.digits); !why.empty()) opt.fail("digits", why);
        if (static_cast<std::int64_t>(p.digits.size()) > p.task.max_len)
            opt.fail("digits", std::to_string(p.digits.size()) + " digits; the models here learn sources of at most " +
                                   std::to_string(p.task.max_len) + " (--length)");
    }
    p.main_steps = opt.integer("steps", 10, 1000000), p.compare_steps = p.main_steps / 3;
    std::printf("phase 5: attention in sequence-to-sequence models (seed %llu)\n", static_cast<unsigned long long>(p.seed));
    set_num_threads(1);  // training runs two models at once, one per core
    p.m["seed"] = static_cast<std::int64_t>(p.seed);
    Generator eval_gen(p.seed + 100);
    p.held_out = data::held_out_sources(eval_gen, 100, p.task);
    const std::int64_t example_len = std::min<std::int64_t>(8, p.task.max_len), first = 100 * (example_len - p.task.min_len);
    for (std::int64_t k : {10, 20, 30, 40}) p.examples.push_back(p.held_out[static_cast<std::size_t>(first + k)]);  // 100 per length
}

int main(int argc, char** argv) try {
    const auto t_start = std::chrono::steady_clock::now();
    lab::Options opt("phase5", "Phase 5: attention in a GRU encoder-decoder that learns to reverse digits.");
    declare_flags(opt);
    opt.parse(argc, argv);
    const std::int64_t hidden = opt.integer("hidden", 2, 1024);
    if (hidden % 2) opt.fail("hidden", "must be even (the encoder's two directions have hidden / 2 each)");
    const nn::ScoreKind kind = score_kind(opt);
    const std::vector<std::int64_t> cost_lengths = opt.int_list("cost-t", 1, 8192);
    Phase5 p(opt);
    section0_settings(p);
    sections1_4_building_blocks(p);
    section5_train(p, kind, hidden);
    section6_alignment(p);
    section7_8_compare(p);
    section9_sparsity(p);
    section10_cost(p, cost_lengths);
    p.m["fused_attention"] = phase5::section11_fused_attention(p.out);  // 11. the fused path
    phase5::sections12_13_hard_soft_positions(p, *p.models[1], p.runs[1].result, p.held_out, p.task, p.compare_steps, hidden);  // 12, 12b, 13
    p.m["architectures"] = phase5::section14_architectures(p.out, p.seed, p.main_steps);  // 14. (as many steps as the main model)
    p.m["wall_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    p.out.save_metrics();
    std::printf("\nphase 5 done in %.1f s\n", p.m.at("wall_seconds").as_double());
    return 0;
} catch (const std::exception& e) {  // none of the sections expected it: say what, exit 1
    return phase::unexpected_error(argv[0], e);
}
