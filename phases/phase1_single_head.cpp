// phase1_single_head.cpp — Phase 1 of seed 000: scaled dot-product self-attention,
// run on "the cat sat on the mat" through the trained single_head_model.
//
//   Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V
//
// Steps, as the seed orders them: 1. one query and one key, then one query against
// all keys; 2. the matrix form for the whole sentence, checked against the layer's
// own forward; 3. the flow for the token "sat"; 4. the seeds' hand-worked examples;
// 5. why the sqrt(d_k): variance, saturation, gradients, training.
//
// The model is a 2-layer bidirectional encoder (d_model 64, one head, d_k = d_model
// = 64, the seed's "typically d_k = d_model for single-head"); we look at its first
// attention layer, whose input X is ln1(tok_emb + pos_emb). Its projections have a
// bias, so Q = X W_Q^T + b_Q (Linear weights are stored [out, in], as in PyTorch).
// Writes out/phase1/*.svg|png, out/phase1/metrics.json, out/data/attention_weights.npy.
#include <algorithm>
#include <cmath>
#include <iostream>

#include "autograd/node.hpp"
#include "nn/scaling_experiment.hpp"
#include "lab/train.hpp"
#include "phases/phase1_worked_examples.hpp"
#include "phases/phase12_metrics.hpp"
#include "phases/phase_common.hpp"
#include "plots/bar_chart.hpp"
#include "plots/compose.hpp"
#include "plots/flow_diagram.hpp"
#include "plots/heatmap.hpp"
#include "plots/layout.hpp"
#include "plots/line_chart.hpp"

using namespace attnlab;
using namespace attnlab::phase;

namespace {

std::string num(double v, int decimals = 3) { return plots::layout::format_fixed(v, decimals); }

// "d12=+1.93" for the n entries of a vector with the largest |value|: what a box in qkv_flow shows.
std::vector<std::string> top_entries(const Tensor& vec, int n) {
    std::vector<double> v = vec.to_vector<double>();
    std::vector<std::size_t> idx(v.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::partial_sort(idx.begin(), idx.begin() + n, idx.end(), [&](auto a, auto b) { return std::abs(v[a]) > std::abs(v[b]); });
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back("[" + std::to_string(idx[i]) + "] " + (v[idx[i]] >= 0 ? "+" : "") + num(v[idx[i]], 2));
    return out;
}

}  // namespace

int main() {
    const std::uint64_t seed = 0;
    manual_seed(seed);
    std::printf("Phase 1: single-head scaled dot-product attention (seed %llu)\n", static_cast<unsigned long long>(seed));
    Output out("out/phase1");
    Json& m = out.metrics();
    m["seed"] = static_cast<std::int64_t>(seed);
    section("0. The trained single_head_model and the toy sentence");
    nn::LoadedCheckpoint ckpt = lab::load_or_train(lab::Task::single_head);  // trains it first if it is missing
    NoGradGuard no_grad;  // from here on nothing trains but step 5, whose functions record their own graphs
    nn::Transformer& model = *ckpt.model;
    model.eval();
    nn::Block& block = *model.blocks[0];
    const std::vector<std::string> tokens = words(kToySentence);
    const auto T = static_cast<std::int64_t>(tokens.size());
    Tensor ids = from_vector(encode(kToySentence), {1, T});
    std::cout << "tokens: " << kToySentence << "\nids: " << ids << "\n";
    const std::int64_t d_model = model.config().d_model, d_k = block.attn.d_k;
    std::printf("d_model = %lld, heads = %lld, d_k = %lld (layer 1 of %zu)\n", static_cast<long long>(d_model),
                static_cast<long long>(block.attn.n_heads), static_cast<long long>(d_k), model.blocks.size());

    // X: the input of the first attention layer, one row per token
    Tensor X = block.ln1.forward(model.tok_emb.forward(ids) + model.pos_emb.forward(arange(T))).select(0, 0);  // (T, d_model)
    const nn::Linear &W_Q = block.attn.w_q, &W_K = block.attn.w_k, &W_V = block.attn.w_v;
    auto project = [](const nn::Linear& W, const Tensor& x) { return matmul(x, W.weight.mT()) + W.bias; };

    section("1. One query and one key, then one query against every key");
    const std::int64_t sat = 2, cat = 1;
    Tensor q_sat = project(W_Q, X.select(0, sat)), k_cat = project(W_K, X.select(0, cat));  // (d_k)
    const double s_sat_cat = matmul(q_sat, k_cat).item();  // 1-D . 1-D: the dot product
    std::printf("score(sat -> cat) = q_sat . k_cat = %.4f;  / sqrt(%lld) = %.4f\n", s_sat_cat, static_cast<long long>(d_k),
                s_sat_cat / std::sqrt(static_cast<double>(d_k)));
    Tensor K_all = project(W_K, X), V_all = project(W_V, X);                                       // (T, d_k)
    Tensor sat_scores = matmul(K_all, q_sat) / std::sqrt(static_cast<double>(d_k));                // (T)
    Tensor sat_weights = softmax(sat_scores, -1), sat_out = matmul(sat_weights, V_all);         // (T), (d_k)
    std::cout << "scaled scores of 'sat': " << sat_scores << "\nweights of 'sat':       " << sat_weights
              << "\noutput of 'sat' = sum_j w_j v_j, shape " << sat_out.shape().str() << "\n";

    section("2. The matrix form: the whole sentence at once");
    Tensor Q = project(W_Q, X), K = project(W_K, X), V = project(W_V, X);  // (T, d_k) each
    std::cout << "X " << X.shape().str() << "  Q " << Q.shape().str() << "  K " << K.shape().str() << "  V "
              << V.shape().str() << "\n";
    Tensor scores = matmul(Q, K.mT());                                  // (T, T): score_ij = q_i . k_j
    Tensor scaled = scores / std::sqrt(static_cast<double>(d_k));       // (T, T)
    Tensor weights = softmax(scaled, -1);                               // (T, T), rows sum to 1
    Tensor output = matmul(weights, V);                                 // (T, d_k)
    std::cout << "scores = Q K^T:\n" << scores << "\nscaled = scores / sqrt(" << d_k << "):\n" << scaled
              << "\nweights = softmax(scaled):\n" << weights << "\nrow sums: " << sum(weights, -1)
              << "\noutput = weights V (first 6 of " << d_k << " columns):\n" << output.narrow(1, 0, 6) << "\n";
    // The layer computes the same thing (then projects with W_O): check it to within 1e-6.
    nn::AttentionResult layer = block.attn.forward(X.unsqueeze(0));
    const double dw = max(abs(layer.weights.select(0, 0).select(0, 0) - weights)).item();
    const double dout = max(abs(layer.output.select(0, 0) - project(block.attn.w_o, output))).item();
    std::printf("check against the layer's forward: max |dweights| = %.2e, max |doutput after W_O| = %.2e\n", dw, dout);
    if (dw > 1e-6 || dout > 1e-6) throw ValueError("phase 1: the step-by-step attention differs from the layer's");
    m["layer_check"] = Json::Object{{"max_abs_diff_weights", dw}, {"max_abs_diff_output", dout}};

    plots::HeatmapOptions ho;
    ho.title = "Attention weights, single head (layer 1): the cat sat on the mat";
    ho.row_labels = ho.col_labels = tokens;
    ho.annotate = true;
    ho.vmin = 0.0, ho.vmax = 1.0;
    ho.colorbar_label = "weight (each row sums to 1)";
    out.figure(plots::heatmap(to_matrix(weights), ho), "attention_heatmap");
    save_key_matrix("attention_weights", weights, tokens, tokens);
    m["tokens"] = Json::Array(tokens.begin(), tokens.end());
    m["shapes"] = Json::Object{{"X", X.shape().str()}, {"Q", Q.shape().str()}, {"K", K.shape().str()},
                               {"V", V.shape().str()}, {"scores", scores.shape().str()}, {"output", output.shape().str()}};
    m["d_k"] = d_k;
    m["scores"] = to_json(scores), m["scaled_scores"] = to_json(scaled), m["weights"] = to_json(weights);
    m["row_sums"] = to_json(sum(weights, -1)), m["output"] = to_json(output);

    section("3. The flow for one token: 'sat'");
    std::vector<std::string> score_lines{"q_sat . k_j / sqrt(" + std::to_string(d_k) + ")"}, weight_lines{"softmax"};
    for (std::int64_t j = 0; j < T; ++j) {
        score_lines.push_back(tokens[j] + "  " + num(sat_scores.at({j}), 2));
        weight_lines.push_back(tokens[j] + "  " + num(sat_weights.at({j}), 3));
    }
    auto box_lines = [](std::string head, std::vector<std::string> rest) {  // a vector's box: its name, then its largest entries
        rest.insert(rest.begin(), {head, "largest |entries|:"});
        return rest;
    };
    const std::string dk = "[" + std::to_string(d_k) + "]", Tdk = "[" + std::to_string(T) + " x " + std::to_string(d_k) + "]";
    std::vector<plots::FlowBox> boxes{
        {.id = "x", .lines = box_lines("x_sat (input)", top_entries(X.select(0, sat), 3)), .note = "[" + std::to_string(d_model) + "]", .column = 0, .row = 0},
        {.id = "X", .lines = {"X, all 6 tokens", "ln1(tok + pos)"}, .note = "[6 x " + std::to_string(d_model) + "]", .column = 0, .row = 1.6},
        {.id = "q", .lines = box_lines("q_sat = x W_Q + b", top_entries(q_sat, 3)), .note = dk, .column = 1, .row = 0},
        {.id = "k", .lines = {"keys K = X W_K + b"}, .note = Tdk, .column = 1, .row = 1.2},
        {.id = "v", .lines = {"values V = X W_V + b"}, .note = Tdk, .column = 1, .row = 2.0},
        {.id = "s", .lines = score_lines, .note = "scores [6]", .column = 2, .row = 0.6},
        {.id = "w", .lines = weight_lines, .note = "weights [6], sum " + num(sum(sat_weights).item(), 3), .column = 3, .row = 0.6},
        {.id = "o", .lines = box_lines("output = sum_j w_j v_j", top_entries(sat_out, 3)), .note = dk, .column = 4, .row = 0.6, .fill = plots::rgb(0xfdf0e6)},
    };
    std::vector<plots::FlowEdge> edges{{"x", "q", "W_Q"}, {"X", "k", "W_K"}, {"X", "v", "W_V"}, {"q", "s", ""},
                                       {"k", "s", ""},    {"s", "w", ""},    {"w", "o", ""},    {"v", "o", ""}};
    out.figure(plots::flow_diagram(boxes, edges, {.title = "How 'sat' attends: input -> q, k, v -> scores -> weights -> output"}), "qkv_flow");
    m["sat"] = Json::Object{{"scaled_scores", to_json(sat_scores)}, {"weights", to_json(sat_weights)},
                            {"output_norm", std::sqrt(sum(sat_out * sat_out).item())}};

    section("4. The seeds' worked examples, computed");
    Json examples = Json::array();
    for (const WorkedExample& ex : {seed001_exercise(), seed004_walkthrough()}) {
        nn::AttentionResult r = ex.run();
        std::cout << ex.name << ":\n  weights " << r.weights << "\n  output  " << r.output << "\n";
        Json e = Json::Object{{"name", ex.name}, {"weights_row0", to_json(r.weights.select(0, 0))},
                              {"output_row0", to_json(r.output.select(0, 0))}};
        e["seed_printed_weights_row0"] = Json::Array(ex.seed_row0.begin(), ex.seed_row0.end());
        e["seed_printed_output_row0"] = Json::Array(ex.seed_out0.begin(), ex.seed_out0.end());
        examples.push_back(e);
    }
    std::printf("seed 001 prints the output as [2.751, 3.750]: it multiplied by the weights rounded to 3 decimals\n"
                "(they sum to 0.999); the exact output is the one above, [2.754, 3.754].\n"
                "seed 004 gives row 0 as 'approximately [0.31, 0.17, 0.31, 0.20]': row 0 of QK^T is [1, 0, 1, 0],\n"
                "so the weights must be [a, b, a, b]; they are [0.335, 0.165, 0.335, 0.165], as computed above.\n");
    m["worked_examples"] = examples;

    section("5. Why sqrt(d_k): the seed's experiment on random unit-variance q, k");
    const std::vector<std::int64_t> dks{8, 32, 128};
    std::vector<nn::ScalingStats> stats;
    std::printf("%5s %8s %10s %7s %8s %9s %11s %12s %10s\n", "d_k", "scaling", "Var(score)", "max w", "entropy", "rows>0.99",
                "|dL/dlogit|", "median row", "|dL/dW_Q|");
    Json js = Json::array();
    for (std::int64_t d : dks)
        for (bool sc : {false, true}) {
            stats.push_back(nn::measure_scaling(d, sc, 256, 16, seed));
            const nn::ScalingStats& st = stats.back();
            std::printf("%5lld %8s %10.3f %7.3f %8.3f %9.3f %11.4f %12.4f %10.2f\n", static_cast<long long>(d), sc ? "1/sqrt" : "none",
                        st.score_variance, st.mean_max_weight, st.mean_entropy, st.saturated_rows, st.grad_norm_logits,
                        st.median_row_grad, st.grad_norm_w_q);
            js.push_back(Json::Object{{"d_k", d}, {"scaled", sc}, {"score_variance", st.score_variance},
                                      {"mean_max_weight", st.mean_max_weight}, {"mean_entropy", st.mean_entropy},
                                      {"saturated_rows", st.saturated_rows}, {"grad_norm_logits", st.grad_norm_logits},
                                      {"median_row_grad_logits", st.median_row_grad},
                                      {"grad_norm_w_q", st.grad_norm_w_q}});
        }
    std::printf("(256 sequences of 16 tokens per cell; uniform attention over 16 keys: max w = 0.0625, entropy = ln 16 = %.3f;\n"
                " L = sum(weights * R), R ~ N(0, 1), so dL/dweights has the same size for every d_k)\n", std::log(16.0));
    const nn::ScalingStats &raw = stats[4], &fixed = stats[5];  // d_k = 128
    std::printf("at d_k = 128 unscaled, %.0f%% of rows put > 0.99 of their weight on one key, and the median row's gradient\n"
                "at the softmax input is %.1fx smaller than with scaling. The mean gradient hides this (%.2f vs %.2f): the\n"
                "unsaturated rows get large ones. W_Q's gradient is %.1fx larger, since the missing 1/sqrt(d_k) multiplies it\n"
                "too: updates of the wrong size, going to the rows that are not saturated.\n", 100 * raw.saturated_rows,
                fixed.median_row_grad / raw.median_row_grad, raw.grad_norm_logits, fixed.grad_norm_logits,
                raw.grad_norm_w_q / fixed.grad_norm_w_q);
    m["scaling"] = Json::Object{{"sequences", 256}, {"tokens", 16}, {"cells", js}};

    // One series per scaling choice, x = d_k, y = the chosen statistic.
    auto series = [&](auto stat, bool sc) {
        plots::Series s{.name = sc ? "scaled by 1/sqrt(d_k)" : "unscaled"};
        for (const auto& st : stats)
            if (st.scaled == sc) s.x.push_back(static_cast<double>(st.d_k)), s.y.push_back(stat(st));
        return s;
    };
    auto chart = [&](auto stat, std::string title, std::string y_title, bool log_y, double uniform = NAN) {
        plots::LineChartOptions o{.title = title, .x_title = "d_k (log scale)", .y_title = y_title, .log_x = true, .log_y = log_y};
        std::vector<plots::Series> lines{series(stat, false), series(stat, true)};
        if (!std::isnan(uniform))  // what uniform attention over the 16 keys would give
            lines.push_back({.name = "uniform attention", .x = {8, 128}, .y = {uniform, uniform}, .markers = false, .dashed = true});
        return plots::line_chart(lines, o);
    };
    plots::LineChartOptions vo{.title = "Variance of q.k: grows like d_k unscaled, stays near 1 scaled", .x_title = "d_k (log scale)",
                               .y_title = "Var(score) (log scale)", .log_x = true, .log_y = true, .fit_slope = true};
    out.figure(plots::line_chart({series([](auto& st) { return st.score_variance; }, false),
                                  series([](auto& st) { return st.score_variance; }, true)}, vo), "scaling_variance");
    out.figure(plots::hstack({chart([](auto& st) { return st.mean_max_weight; }, "Mean max weight per row", "max_j w_ij (1 = one-hot)", false, 1.0 / 16),
                              chart([](auto& st) { return st.mean_entropy; }, "Mean row entropy", "entropy (nats)", false, std::log(16.0))},
                             "Softmax saturation without scaling (16 keys per query)"), "scaling_saturation");
    out.figure(plots::hstack({chart([](auto& st) { return st.median_row_grad; }, "Median row gradient at the softmax input", "median_i |dL/d logits_i| (log)", true),
                              chart([](auto& st) { return st.grad_norm_w_q; }, "Gradient reaching W_Q", "|dL/dW_Q| (log)", true)},
                             "Gradients through the softmax, scaled vs unscaled"), "scaling_gradients");

    // The same small task, trained with and without scaling at d_k = 128, same seed.
    nn::PointerTaskConfig pc;
    pc.seed = seed;
    std::printf("\npointer task (output the token at the position a pointer token names): d_k %lld, %lld data tokens, "
                "vocab %lld, batch %lld, %lld AdamW steps at lr %g, seed %llu\n", static_cast<long long>(pc.d_k),
                static_cast<long long>(pc.T), static_cast<long long>(pc.vocab), static_cast<long long>(pc.batch),
                static_cast<long long>(pc.steps), pc.lr, static_cast<unsigned long long>(pc.seed));
    std::vector<plots::Series> curves;
    Json jt = Json::Object{{"d_k", pc.d_k}, {"steps", pc.steps}, {"batch", pc.batch}, {"lr", pc.lr}, {"seed", static_cast<std::int64_t>(pc.seed)},
                           {"chance_loss", std::log(static_cast<double>(pc.vocab))}};
    for (bool sc : {false, true}) {
        nn::PointerTaskResult r = nn::train_pointer_task(pc, sc);
        const std::string key = sc ? "scaled" : "unscaled";
        std::printf("  %-9s held-out loss %.4f, accuracy %.1f%% (chance: loss ln %lld = %.3f, accuracy %.1f%%)\n", key.c_str(),
                    r.final_loss, 100 * r.final_accuracy, static_cast<long long>(pc.vocab), std::log(static_cast<double>(pc.vocab)),
                    100.0 / static_cast<double>(pc.vocab));
        jt[key] = Json::Object{{"final_loss", r.final_loss}, {"final_accuracy", r.final_accuracy}, {"loss_curve", Json::Array(r.loss.begin(), r.loss.end())}};
        plots::Series s{.name = sc ? "scaled by 1/sqrt(128)" : "unscaled", .markers = false};
        for (std::size_t i = 0; i < r.loss.size(); ++i) s.x.push_back(static_cast<double>(i + 1)), s.y.push_back(r.loss[i]);
        curves.push_back(s);
    }
    m["scaling_training"] = jt;
    out.figure(plots::line_chart(curves, {.title = "Pointer task at d_k = 128, with and without 1/sqrt(d_k) (same seed)", .x_title = "step",
                                          .y_title = "training loss (nats)"}), "scaling_training");
    require_keys(m, kPhase1MetricKeys, "phase 1");
    out.save_metrics();
}
