// phase5_architectures.cpp — the bodies of phases/phase5_architectures.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase5_architectures.hpp"

#include "training/trained_enough.hpp"

namespace attnlab::phase5 {

std::vector<Json> table_row(std::int64_t key, const std::vector<double>& values) {
    std::vector<Json> row(values.size() + 1);
    row[0] = key;
    for (std::size_t i = 0; i < values.size(); ++i) row[i + 1] = values[i];
    return row;
}

void architectures_accuracy(phase::Output& out, const RecallComparison& c, Json& result) {
    const lab::RecallTask& task = c.task;
    const std::vector<lab::RecallRun>& runs = c.runs;
    const double chance = c.chance, mode = c.mode;
    const lab::RecallTrainConfig& cfg = c.cfg;
    // ---- the models: parameters and summary -------------------------------------------
    lab::Table models({{"model", "model", 10, -1}, {"parameters", "params", 7, -1}, {"accuracy_k1", "acc k=1", 8, 3},
                       {"accuracy_k32", "acc k=32", 9, 3}, {"mean_accuracy", "mean acc", 9, 3},
                       {"gradient_ratio_init", "grad d32/d1 init", 16, 1, true, true}, {"train_seconds", "seconds", 8, 2}}, "   ");
    models.print_header();
    std::vector<lab::RunRecord> records;
    for (const lab::RecallRun& r : runs) {
        double total = 0;
        for (double a : r.accuracy_by_k) total += a;
        const double mean_accuracy = total / static_cast<double>(r.accuracy_by_k.size());
        models.row({r.name, r.parameters, r.accuracy_by_k.front(), r.accuracy_by_k.back(), mean_accuracy,
                    r.gradient_init.back() / r.gradient_init[1], r.seconds});
        records.push_back({r.name, r.loss, mean_accuracy, chance});
    }
    lab::print_untrained_warning(records, "--steps");
    result["models"] = models.json_by("model");

    // ---- (1) accuracy against k ---------------------------------------------------------
    std::vector<lab::Column> acc_cols{{"k", "k", 4, -1}};
    for (const lab::RecallRun& r : runs) acc_cols.push_back({r.name, r.name, 10, 3});
    lab::Table acc(acc_cols, "   ");
    std::printf("   held-out accuracy by k (%lld sequences each):\n", static_cast<long long>(cfg.eval_per_k));
    acc.print_header();
    for (std::int64_t k = 1; k < task.length; ++k) {
        std::vector<double> values;
        for (const lab::RecallRun& r : runs) values.push_back(r.accuracy_by_k[static_cast<std::size_t>(k - 1)]);
        acc.row(table_row(k, values));
    }
    result["accuracy_by_k"] = acc.json_by("k");
    std::vector<P::Series> acc_series;
    for (const lab::RecallRun& r : runs) acc_series.push_back(acc.series("k", r.name, {.name = r.name}));
    acc_series.push_back({.name = "chance 1/8", .x = {1.0, static_cast<double>(task.length - 1)}, .y = {chance, chance},
                          .color = P::Color{120, 120, 120}, .markers = false, .dashed = true});
    acc_series.push_back({.name = "most frequent symbol", .x = {1.0, static_cast<double>(task.length - 1)}, .y = {mode, mode},
                          .color = P::Color{200, 160, 60}, .markers = false, .dashed = true});
    out.figure(P::line_chart(acc_series, {.title = "Recall x_(T-k): accuracy against distance k", .x_title = "distance k",
                                          .y_title = "held-out accuracy"}),
               "architectures_accuracy",
               "Phase 5 step 14: held-out accuracy of recalling the token k positions back, for attention, GRU, CNN (receptive "
               "field 15: k <= 14) and fully connected models of similar size after the same training; dashed: chance 1/8 and the accuracy of guessing the sequence's most frequent symbol (no routing needed).");

}

void architectures_gradient(phase::Output& out, const RecallComparison& c, Json& result) {
    const lab::RecallTask& task = c.task;
    const std::vector<lab::RecallRun>& runs = c.runs;
    // ---- (2) gradient flow against distance ---------------------------------------------
    std::vector<lab::Column> grad_cols{{"distance", "T-t", 4, -1}};
    for (const char* when : {"init", "trained"})
        for (const lab::RecallRun& r : runs) grad_cols.push_back({r.name + "_" + when, r.name + " " + when, 14, 2, true, true});
    lab::Table grad(grad_cols, "   ");
    std::printf("   mean ||d logit_T / d x_t|| by distance T - t (256 sequences; 0 = unreachable):\n");
    grad.print_header();
    for (std::int64_t d = 0; d < task.length; ++d) {
        std::vector<double> values;
        for (int trained = 0; trained < 2; ++trained)
            for (const lab::RecallRun& r : runs) values.push_back((trained ? r.gradient_trained : r.gradient_init)[static_cast<std::size_t>(d)]);
        grad.row(table_row(d, values));
    }
    result["gradient_by_distance"] = grad.json_by("distance");
    std::vector<P::Figure> panels;
    for (const char* when : {"init", "trained"}) {
        std::vector<P::Series> s;
        for (const lab::RecallRun& r : runs) {
            const std::string key = r.name + "_" + when;
            s.push_back(grad.series("distance", key, {.name = r.name}, [key](const Json& row) { return row.at(key).as_double() > 0; }));
        }
        panels.push_back(P::line_chart(s, {.title = std::string(when == std::string("init") ? "At initialisation" : "After training"),
                                           .x_title = "distance T - t", .y_title = "mean ||d logit_T / d x_t||", .log_y = true,
                                           .plot_width = 300}));
    }
    out.figure(P::hstack(panels, "Gradient flow: how strongly position t reaches the output at T"), "architectures_gradient",
               "Phase 5 step 14: the gradient norm of the target logit at T with respect to each input embedding x_t against "
               "T - t, log scale; the GRU's decays geometrically at init, attention's and the fully connected layer's do not; "
               "the CNN's is exactly 0 beyond its receptive field (not drawn).");

}

void architectures_time(phase::Output& out, const RecallComparison& c, std::uint64_t seed, Json& result) {
    const lab::RecallTask& task = c.task;
    const std::vector<lab::RecallRun>& runs = c.runs;
    // ---- (3) time per training step against T -------------------------------------------
    std::vector<lab::Column> time_cols{{"T", "T", 5, -1}};
    for (const lab::RecallRun& r : runs) time_cols.push_back({r.name + "_ms", r.name + " ms", 13, 3});
    lab::Table step_time(time_cols, "   ");
    std::printf("   one training step (batch 64, forward + backward + Adam, 1 thread, median of 5):\n");
    step_time.print_header();
    for (std::int64_t T : {17, 33, 65, 129}) {
        std::vector<double> values;
        for (lab::Architecture a : lab::kArchitectures) values.push_back(lab::recall_step_ms(a, {task.vocab, T}, 64, 5, seed + 30));
        step_time.row(table_row(T, values));
    }
    result["step_ms_by_T"] = step_time.json_by("T");
    std::vector<P::Series> time_series;
    for (const lab::RecallRun& r : runs) time_series.push_back(step_time.series("T", r.name + "_ms", {.name = r.name}));
    out.figure(P::line_chart(time_series, {.title = "Time per training step (this machine, 1 thread)", .x_title = "sequence length T",
                                           .y_title = "ms per step", .log_x = true, .log_y = true, .fit_slope = true}),
               "architectures_time",
               "Phase 5 step 14: wall time of one training step against T for the four models, log-log with fitted "
               "exponents (one thread: the GRU's T sequential steps against the others' few large operations).");
}

Json section14_architectures(phase::Output& out, std::uint64_t seed, std::int64_t steps) {
    RecallComparison c;
    c.cfg = {.steps = steps, .batch = 64, .eval_per_k = 256, .lr = 3e-3, .seed = seed + 20};
    c.runs.resize(std::size(lab::kArchitectures));
    std::vector<std::function<void()>> jobs;
    for (std::size_t i = 0; i < c.runs.size(); ++i)
        jobs.push_back([&c, i] { c.runs[i] = lab::train_recall(lab::kArchitectures[i], c.task, c.cfg); });
    lab::run_concurrently(jobs, 2);
    c.chance = 1.0 / static_cast<double>(c.task.vocab);
    Generator mode_gen(seed + 40);
    c.mode = lab::most_frequent_symbol_accuracy(c.task, 4096, mode_gen);  // no routing, all symbols seen
    const lab::RecallTask& task = c.task;
    const std::int64_t cnn_reach = lab::kCnnReceptiveField - 1;  // the largest k its receptive field covers
    std::printf("\n14. Attention vs RNN vs CNN vs fully connected: recall x_{T-k} at T = %lld from %lld symbols of %lld "
                "(chance %.3f; guessing the most frequent symbol: %.3f),\n    k = 1..%lld asked by the last token; %lld steps, "
                "batch 64, Adam 3e-3. The CNN's receptive field is %lld positions: k <= %lld only.\n",
                static_cast<long long>(task.length), static_cast<long long>(task.length - 1), static_cast<long long>(task.vocab),
                c.chance, c.mode, static_cast<long long>(task.length - 1), static_cast<long long>(steps),
                static_cast<long long>(lab::kCnnReceptiveField), static_cast<long long>(cnn_reach));
    Json result = Json::object();
    result["chance"] = c.chance, result["most_frequent_symbol_accuracy"] = c.mode, result["steps"] = steps;
    result["cnn_receptive_field"] = lab::kCnnReceptiveField;

    architectures_accuracy(out, c, result);
    architectures_gradient(out, c, result);
    architectures_time(out, c, seed, result);
    return result;
}

}  // namespace attnlab::phase5
