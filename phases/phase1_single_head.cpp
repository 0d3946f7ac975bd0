// phase1_single_head.cpp — Phase 1: scaled dot-product self-attention,
// run on "the cat sat on the mat" through the trained single_head_model.
//
//   Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V
//
// Steps, in the course's order: 1. one query and one key, then one query against
// all keys; 2. the matrix form for the whole sentence, checked against the layer's
// own forward; 3. the flow for the token "sat"; 4. two hand-worked examples;
// 5. why the sqrt(d_k): variance, saturation, gradients, training; 6. permutation
// equivariance; 7-8. three tokens with Q = K = V = X and a random SelfAttention; 9. the graph
// backward() walks and the ops as they run.
//
// The model is a 2-layer bidirectional encoder (d_model 64, one head, d_k = d_model
// = 64, as single-head attention usually has it); we look at its first
// attention layer, whose input X is ln1(tok_emb + pos_emb). Its projections have a
// bias, so Q = X W_Q^T + b_Q (Linear weights are stored [out, in], as in PyTorch).
// Writes out/phase1/*.svg|png, out/phase1/metrics.json, out/data/attention_weights.npy.
// `phase1 --help` lists the settings: the sentence, the checkpoint (any model whose vocabulary
// has the sentence's words; in a multi-head one, phase 1 follows the head --head chooses), the
// seed, the d_k of step 5's experiment, the pointer task's steps, --out.
#include <algorithm>
#include <cmath>
#include <iostream>

#include "autograd/node.hpp"
#include "app/report.hpp"
#include "experiments/scaling_experiment.hpp"
#include "phases/phase1_permutation.hpp"
#include "phases/phase1_untrained.hpp"
#include "phases/phase1_graph.hpp"
#include "phases/phase1_worked_examples.hpp"
#include "phases/phase_common.hpp"
#include "phases/course_errata.hpp"
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
    n = std::min<int>(n, static_cast<int>(v.size()));
    std::partial_sort(idx.begin(), idx.begin() + n, idx.end(), [&](auto a, auto b) { return std::abs(v[a]) > std::abs(v[b]); });
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back("[" + std::to_string(idx[i]) + "] " + (v[idx[i]] >= 0 ? "+" : "") + num(v[idx[i]], 2));
    return out;
}

// What the sections share: the settings, the model's first attention layer, the sentence.
struct Phase1 : Frame {
    explicit Phase1(const lab::Options& o) : Frame(o, "phase1") {}
    nn::LoadedCheckpoint ckpt;
    std::vector<std::string> tokens;
    std::vector<std::int64_t> ids;  // the sentence
    std::string text;               // as read (tokens are its axis labels)
    std::int64_t T = 0, d_model = 0, d_k = 0, head = 0;  // head: which one (from 0) of a multi-head layer
    std::int64_t query = 0, key = 0;  // step 1's pair: the third word and the second ("sat", "cat")
    Tensor X, q_query, sat_scores, sat_weights, sat_out, weights;  // step 1 and 2's results
    nn::Block& block() const { return *ckpt.model->blocks[0]; }
    // x W_hᵀ + b_h: the d_k rows of W (and b) that make the studied head (all of W for one head; no b in qkv-head).
    Tensor project(const nn::Linear& W, const Tensor& x) const {
        const bool one = block().attn.n_heads == 1;
        const Tensor y = matmul(x, (one ? W.weight : W.weight.narrow(0, head * d_k, d_k)).mT());
        return W.bias.defined() ? y + (one ? W.bias : W.bias.narrow(0, head * d_k, d_k)) : y;
    }
};

void section0_model_and_sentence(Phase1& p) {
    section("0. The trained single-head model and the sentence");
    nn::Transformer& model = *p.ckpt.model;
    model.eval();
    // A multi-head model: phase 1 follows one of its heads (--head), which works exactly like a single head.
    p.head = p.opt.integer("head", 1, p.block().attn.n_heads) - 1;
    if (p.block().attn.n_heads > 1) p.m["head"] = p.head + 1;
    const Sentence sentence = studied_sentence(p.opt, p.ckpt);  // the grammar's words, or a corpus model's tokens
    const std::vector<std::int64_t>& ids_v = sentence.ids;
    p.ids = sentence.ids, p.tokens = sentence.labels, p.text = sentence.text;
    p.T = static_cast<std::int64_t>(p.tokens.size());
    p.query = std::min<std::int64_t>(2, p.T - 1), p.key = std::min<std::int64_t>(1, p.T - 1);
    Tensor ids = from_vector(ids_v, {1, p.T});
    std::cout << "tokens: " << p.text << "\nids: " << ids << "\n";
    p.d_model = model.config().d_model, p.d_k = p.block().attn.d_k;
    std::printf("d_model = %lld, heads = %lld, d_k = %lld (layer 1 of %zu)%s\n", static_cast<long long>(p.d_model),
                static_cast<long long>(p.block().attn.n_heads), static_cast<long long>(p.d_k), model.blocks.size(),
                p.block().attn.n_heads > 1 ? (", studying head " + std::to_string(p.head + 1)).c_str() : "");
    // X: the input of the first attention layer, one row per token
    p.X = p.block().ln1.forward(model.embed(ids)).select(0, 0);  // (T, d_model): ln1(tok_emb + pos_emb)
}

void section1_one_query(Phase1& p) {
    section("1. One query and one key, then one query against every key");
    const nn::MultiHeadAttention& a = p.block().attn;
    const std::string& qw = p.tokens[p.query];
    p.q_query = p.project(a.w_q, p.X.select(0, p.query));
    const Tensor k_key = p.project(a.w_k, p.X.select(0, p.key));  // (d_k)
    const double s = matmul(p.q_query, k_key).item();               // 1-D . 1-D: the dot product
    std::printf("score(%s -> %s) = q_%s . k_%s = %.4f;  / sqrt(%lld) = %.4f\n", qw.c_str(), p.tokens[p.key].c_str(),
                qw.c_str(), p.tokens[p.key].c_str(), s, static_cast<long long>(p.d_k), s / std::sqrt(double(p.d_k)));
    const Tensor K_all = p.project(a.w_k, p.X), V_all = p.project(a.w_v, p.X);                  // (T, d_k)
    p.sat_scores = matmul(K_all, p.q_query) / std::sqrt(static_cast<double>(p.d_k));            // (T)
    p.sat_weights = softmax(p.sat_scores, -1), p.sat_out = matmul(p.sat_weights, V_all);         // (T), (d_k)
    std::cout << "scaled scores of '" << qw << "': " << p.sat_scores << "\nweights of '" << qw << "':       "
              << p.sat_weights << "\noutput of '" << qw << "' = sum_j w_j v_j, shape " << p.sat_out.shape().str() << "\n";
}

void section2_matrix_form(Phase1& p) {
    section("2. The matrix form: the whole sentence at once");
    const nn::MultiHeadAttention& a = p.block().attn;
    Tensor Q = p.project(a.w_q, p.X), K = p.project(a.w_k, p.X), V = p.project(a.w_v, p.X);  // (T, d_k) each
    const std::int64_t cols = std::min<std::int64_t>(4, p.d_k);  // the first columns: enough to see them, short enough to read
    for (const auto& [name, t] : {std::pair{"X", p.X}, std::pair{"Q", Q}, std::pair{"K", K}, std::pair{"V", V}})
        std::cout << name << " " << t.shape().str() << " (first " << cols << " columns):\n" << t.narrow(1, 0, cols) << "\n";
    Tensor scores = matmul(Q, K.mT());                                  // (T, T): score_ij = q_i . k_j
    Tensor scaled = scores / std::sqrt(static_cast<double>(p.d_k));     // (T, T)
    p.weights = softmax(scaled, -1);                                    // (T, T), rows sum to 1
    Tensor output = matmul(p.weights, V);                               // (T, d_k)
    std::cout << "scores = Q K^T:\n" << scores << "\nscaled = scores / sqrt(" << p.d_k << "):\n" << scaled
              << "\nweights = softmax(scaled):\n" << p.weights << "\nrow sums: " << sum(p.weights, -1)
              << "\noutput = weights V (first 6 of " << p.d_k << " columns):\n"
              << output.narrow(1, 0, std::min<std::int64_t>(6, p.d_k)) << "\n";
    // The layer computes the same thing (then projects with W_O): check it to within 1e-6. In a
    // multi-head layer, with only the studied head switched on, W_O reads just its d_k columns.
    nn::MultiHeadAttention& layer_attn = p.block().attn;
    const bool one = a.n_heads == 1;
    if (!one) {
        std::vector<bool> only(static_cast<std::size_t>(a.n_heads), false);
        only[static_cast<std::size_t>(p.head)] = true;
        layer_attn.set_head_mask(only);
    }
    nn::AttentionResult layer = layer_attn.forward(p.X.unsqueeze(0));
    if (!one) layer_attn.set_head_mask(std::vector<bool>(static_cast<std::size_t>(a.n_heads), true));
    const Tensor after_w_o = !a.w_o ? output  // qkv-head: no W_O, the head's output is the layer's
                                    : matmul(output, (one ? a.w_o->weight : a.w_o->weight.narrow(1, p.head * p.d_k, p.d_k)).mT()) +
                                          a.w_o->bias;
    const double dw = max(abs(layer.weights.select(0, 0).select(0, p.head) - p.weights)).item();
    const double dout = max(abs(layer.output.select(0, 0) - after_w_o)).item();
    std::printf("check against the layer's forward: max |dweights| = %.2e, max |doutput after W_O| = %.2e\n", dw, dout);
    if (dw > 1e-6 || dout > 1e-6) throw ValueError("phase 1: the step-by-step attention differs from the layer's");
    p.m["layer_check"] = Json::Object{{"max_abs_diff_weights", dw}, {"max_abs_diff_output", dout}};

    plots::HeatmapOptions ho;
    ho.title = (a.n_heads == 1 ? "Attention weights, single head (layer 1): "
                               : "Attention weights, head " + std::to_string(p.head + 1) + " of " + std::to_string(a.n_heads) +
                                     " (layer 1): ") + p.text;
    ho.row_labels = ho.col_labels = p.tokens;
    ho.annotate = true;
    ho.vmin = 0.0, ho.vmax = 1.0;
    ho.colorbar_label = "weight (each row sums to 1)";
    p.out.figure(plots::heatmap(to_matrix(p.weights), ho), "attention_heatmap",
                 "Phase 1: single-head attention weights on the sentence; every row sums to 1.");
    save_key_matrix("attention_weights", p.weights, p.tokens, p.tokens, p.out.root());
    p.m["tokens"] = Json::Array(p.tokens.begin(), p.tokens.end());
    p.m["shapes"] = Json::Object{{"X", p.X.shape().str()}, {"Q", Q.shape().str()}, {"K", K.shape().str()},
                                 {"V", V.shape().str()}, {"scores", scores.shape().str()}, {"output", output.shape().str()}};
    p.m["d_k"] = p.d_k;
    p.m["scores"] = to_json(scores), p.m["scaled_scores"] = to_json(scaled), p.m["weights"] = to_json(p.weights);
    p.m["row_sums"] = to_json(sum(p.weights, -1)), p.m["output"] = to_json(output);
}

void section3_flow(Phase1& p) {
    const std::string& qw = p.tokens[p.query];
    section("3. The flow for one token: '" + qw + "'");
    std::vector<std::string> score_lines{"q_" + qw + " . k_j / sqrt(" + std::to_string(p.d_k) + ")"}, weight_lines{"softmax"};
    for (std::int64_t j = 0; j < p.T; ++j) {
        score_lines.push_back(p.tokens[j] + "  " + num(p.sat_scores.at({j}), 2));
        weight_lines.push_back(p.tokens[j] + "  " + num(p.sat_weights.at({j}), 3));
    }
    auto box_lines = [](std::string head, std::vector<std::string> rest) {  // a vector's box: its name, then its largest entries
        rest.insert(rest.begin(), {head, "largest |entries|:"});
        return rest;
    };
    const std::string T = std::to_string(p.T), dk = "[" + std::to_string(p.d_k) + "]", Tdk = "[" + T + " x " + std::to_string(p.d_k) + "]";
    std::vector<plots::FlowBox> boxes{
        {.id = "x", .lines = box_lines("x_" + qw + " (input)", top_entries(p.X.select(0, p.query), 3)), .note = "[" + std::to_string(p.d_model) + "]", .column = 0, .row = 0},
        {.id = "X", .lines = {"X, all " + T + " tokens", "ln1(tok + pos)"}, .note = "[" + T + " x " + std::to_string(p.d_model) + "]", .column = 0, .row = 1.6},
        {.id = "q", .lines = box_lines("q_" + qw + " = x W_Q + b", top_entries(p.q_query, 3)), .note = dk, .column = 1, .row = 0},
        {.id = "k", .lines = {"keys K = X W_K + b"}, .note = Tdk, .column = 1, .row = 1.2},
        {.id = "v", .lines = {"values V = X W_V + b"}, .note = Tdk, .column = 1, .row = 2.0},
        {.id = "s", .lines = score_lines, .note = "scores [" + T + "]", .column = 2, .row = 0.6},
        {.id = "w", .lines = weight_lines, .note = "weights [" + T + "], sum " + num(sum(p.sat_weights).item(), 3), .column = 3, .row = 0.6},
        {.id = "o", .lines = box_lines("output = sum_j w_j v_j", top_entries(p.sat_out, 3)), .note = dk, .column = 4, .row = 0.6, .fill = plots::rgb(0xfdf0e6)},
    };
    std::vector<plots::FlowEdge> edges{{"x", "q", "W_Q"}, {"X", "k", "W_K"}, {"X", "v", "W_V"}, {"q", "s", ""},
                                       {"k", "s", ""},    {"s", "w", ""},    {"w", "o", ""},    {"v", "o", ""}};
    const std::string title = "How '" + qw + "' attends: input -> q, k, v -> scores -> weights -> output";
    p.out.figure(plots::flow_diagram(boxes, edges, {.title = title}), "qkv_flow",
                 "Phase 1: one token's path through attention: input, q/k/v, scores, weights, output, with their shapes.");
    p.m[qw] = Json::Object{{"scaled_scores", to_json(p.sat_scores)}, {"weights", to_json(p.sat_weights)},
                           {"output_norm", std::sqrt(sum(p.sat_out * p.sat_out).item())}};
    lab::headline(p.m, "query_weight_on_key", p.m[qw]["weights"].as_array()[static_cast<std::size_t>(p.key)],
                  "weight of '" + qw + "' on '" + p.tokens[p.key] + "'");
}

void section4_worked_examples(Phase1& p) {
    section("4. Two hand-worked examples, computed");
    Json examples = Json::array();
    for (const WorkedExample& ex : {unscaled_one_query_example(), scaled_four_keys_example()}) {
        nn::AttentionResult r = ex.run();
        std::cout << ex.name << ":\n  weights " << r.weights << "\n  output  " << r.output << "\n";
        Json e = Json::Object{{"name", ex.name}, {"weights_row0", to_json(r.weights.select(0, 0))},
                              {"output_row0", to_json(r.output.select(0, 0))}};
        e["course_printed_weights_row0"] = Json::Array(ex.course_row0.begin(), ex.course_row0.end());
        e["course_printed_output_row0"] = Json::Array(ex.course_out0.begin(), ex.course_out0.end());
        examples.push_back(e);
    }
    std::printf("the unscaled example's output is often printed as [2.751, 3.750]: that multiplies by the weights rounded to 3 decimals\n"
                "(they sum to 0.999); the exact output is the one above, [2.754, 3.754].\n"
                "the scaled example's row 0 is not 'approximately [0.31, 0.17, 0.31, 0.20]': row 0 of QK^T is [1, 0, 1, 0],\n"
                "so the weights must be [a, b, a, b]; they are [0.335, 0.165, 0.335, 0.165], as computed above.\n");
    p.m["worked_examples"] = examples;
}

// Step 5's statistics: one column each, printed, recorded and drawn from this one list.
lab::Table scaling_table() {
    return lab::Table({{"d_k", "d_k", 5, -1}, {"scaled", "scaling", 8, -1}, {"score_variance", "Var(score)", 10, 3},
                       {"mean_max_weight", "max w", 7, 3}, {"mean_entropy", "entropy", 8, 3},
                       {"saturated_rows", "rows>0.99", 9, 3}, {"grad_norm_logits", "|dL/dlogit|", 11, 4},
                       {"median_row_grad_logits", "median row", 12, 4}, {"grad_norm_w_q", "|dL/dW_Q|", 10, 2}});
}

void section5_why_sqrt_dk(Phase1& p, const std::vector<std::int64_t>& dks) {
    section("5. Why sqrt(d_k): the variance experiment on random unit-variance q, k");
    lab::Table t = scaling_table();
    t.print_header();
    std::vector<lab::ScalingStats> stats;
    for (std::int64_t d : dks)
        for (bool sc : {false, true}) {
            const lab::ScalingStats& st = stats.emplace_back(lab::measure_scaling(d, sc, 256, 16, p.seed));
            t.row({d, sc, st.score_variance, st.mean_max_weight, st.mean_entropy, st.saturated_rows, st.grad_norm_logits,
                   st.median_row_grad, st.grad_norm_w_q});
        }
    std::printf("(scaling yes = scores divided by sqrt(d_k); 256 sequences of 16 tokens per cell; uniform attention over 16 keys: max w = 0.0625,\n"
                " entropy = ln 16 = %.3f; L = sum(weights * R), R ~ N(0, 1), so dL/dweights has the same size for every d_k)\n", std::log(16.0));
    const lab::ScalingStats &raw = stats[stats.size() - 2], &fixed = stats.back();  // the largest d_k
    std::printf("at d_k = %lld unscaled, %.0f%% of rows put > 0.99 of their weight on one key, and the median row's gradient\n"
                "at the softmax input is %.1fx smaller than with scaling. The mean gradient hides this (%.2f vs %.2f): the\n"
                "unsaturated rows get large ones. W_Q's gradient is %.1fx larger, since the missing 1/sqrt(d_k) multiplies it\n"
                "too: updates of the wrong size, going to the rows that are not saturated.\n", static_cast<long long>(raw.d_k),
                100 * raw.saturated_rows, fixed.median_row_grad / raw.median_row_grad, raw.grad_norm_logits,
                fixed.grad_norm_logits, raw.grad_norm_w_q / fixed.grad_norm_w_q);
    p.m["scaling"] = Json::Object{{"sequences", 256}, {"tokens", 16}, {"cells", t.json()}};

    // One series per scaling choice, x = d_k, y = the column.
    auto lines = [&](const std::string& key) {
        auto scaled = [](bool sc) { return [sc](const Json& r) { return r.at("scaled").as_bool() == sc; }; };
        return std::vector<plots::Series>{t.series("d_k", key, {.name = "unscaled"}, scaled(false)),
                                          t.series("d_k", key, {.name = "scaled by 1/sqrt(d_k)"}, scaled(true))};
    };
    auto chart = [&](const std::string& key, std::string title, std::string y_title, bool log_y, double uniform = NAN) {
        std::vector<plots::Series> l = lines(key);
        if (!std::isnan(uniform))  // what uniform attention over the 16 keys would give
            l.push_back({.name = "uniform attention", .x = {double(dks.front()), double(dks.back())}, .y = {uniform, uniform}, .markers = false, .dashed = true});
        return plots::line_chart(l, {.title = title, .x_title = "d_k (log scale)", .y_title = y_title, .log_x = true, .log_y = log_y});
    };
    p.out.figure(plots::line_chart(lines("score_variance"), {.title = "Variance of q.k: grows like d_k unscaled, stays near 1 scaled",
                 .x_title = "d_k (log scale)", .y_title = "Var(score) (log scale)", .log_x = true, .log_y = true,
                 .fit_slope = dks.size() > 1}), "scaling_variance",
                 "Phase 1: the variance of q.k grows with d_k unless the scores are divided by sqrt(d_k).");
    p.out.figure(plots::hstack({chart("mean_max_weight", "Mean max weight per row", "max_j w_ij (1 = one-hot)", false, 1.0 / 16),
                                chart("mean_entropy", "Mean row entropy", "entropy (nats)", false, std::log(16.0))},
                               "Softmax saturation without scaling (16 keys per query)"), "scaling_saturation",
                 "Phase 1: unscaled scores saturate the softmax: peaky rows, low entropy.");
    p.out.figure(plots::hstack({chart("median_row_grad_logits", "Median row gradient at the softmax input", "median_i |dL/d logits_i| (log)", true),
                                chart("grad_norm_w_q", "Gradient reaching W_Q", "|dL/dW_Q| (log)", true)},
                               "Gradients through the softmax, scaled vs unscaled"), "scaling_gradients",
                 "Phase 1: a saturated softmax passes almost no gradient back to the scores.");
}

// The same small task, trained with and without scaling at the largest d_k, same seed.
void section5b_train_with_and_without(Phase1& p, std::int64_t d_k, std::int64_t steps) {
    lab::PointerTaskConfig pc;
    pc.seed = p.seed, pc.d_k = d_k, pc.steps = steps;
    std::printf("\npointer task (output the token at the position a pointer token names): d_k %lld, %lld data tokens, "
                "vocab %lld, batch %lld, %lld AdamW steps at lr %g, seed %llu\n", static_cast<long long>(pc.d_k),
                static_cast<long long>(pc.T), static_cast<long long>(pc.vocab), static_cast<long long>(pc.batch),
                static_cast<long long>(pc.steps), pc.lr, static_cast<unsigned long long>(pc.seed));
    std::printf("  chance: loss ln %lld = %.3f, accuracy %.3f\n", static_cast<long long>(pc.vocab),
                std::log(static_cast<double>(pc.vocab)), 1.0 / static_cast<double>(pc.vocab));
    // One row per setting: printed, recorded (with its loss curve, not printed) and drawn.
    lab::Table t({{"setting", "setting", 9, -1}, {"final_loss", "held-out loss", 13, 4}, {"final_accuracy", "accuracy", 8, 3},
                  {"loss_curve", "", 0, -1, false}}, "  ");
    t.print_header();
    for (bool sc : {false, true}) {
        const lab::PointerTaskResult r = lab::train_pointer_task(pc, sc);
        t.row({sc ? "scaled" : "unscaled", r.final_loss, r.final_accuracy, Json::Array(r.loss.begin(), r.loss.end())});
    }
    Json jt = Json::Object{{"d_k", pc.d_k}, {"steps", pc.steps}, {"batch", pc.batch}, {"lr", pc.lr}, {"seed", static_cast<std::int64_t>(pc.seed)},
                           {"chance_loss", std::log(static_cast<double>(pc.vocab))}};
    const Json by_setting = t.json_by("setting");
    for (const auto& [setting, result] : by_setting.as_object()) jt[setting] = result;
    p.m["scaling_training"] = jt;
    lab::headline(p.m, "pointer_unscaled_loss", jt["unscaled"]["final_loss"], "pointer task at d_k " + std::to_string(d_k) + ", unscaled: loss");
    lab::headline(p.m, "pointer_unscaled_accuracy", jt["unscaled"]["final_accuracy"], "unscaled: accuracy");
    lab::headline(p.m, "pointer_scaled_loss", jt["scaled"]["final_loss"], "scaled by 1/sqrt(d_k): loss");
    lab::headline(p.m, "pointer_scaled_accuracy", jt["scaled"]["final_accuracy"], "scaled: accuracy");
    std::vector<plots::Series> curves;
    for (const Json& row : t.json().as_array()) {
        const bool sc = row.at("setting").as_string() == "scaled";
        plots::Series s{.name = sc ? "scaled by 1/sqrt(" + std::to_string(d_k) + ")" : "unscaled", .markers = false};
        const Json::Array& loss = row.at("loss_curve").as_array();
        for (std::size_t i = 0; i < loss.size(); ++i) s.x.push_back(static_cast<double>(i + 1)), s.y.push_back(loss[i].as_double());
        curves.push_back(s);
    }
    const std::string title = "Pointer task at d_k = " + std::to_string(d_k) + ", with and without 1/sqrt(d_k) (same seed)";
    p.out.figure(plots::line_chart(curves, {.title = title, .x_title = "step", .y_title = "training loss (nats)"}), "scaling_training",
                 "Phase 1: the pointer task trained with and without 1/sqrt(d_k) scaling.");
}

}  // namespace

int main(int argc, char** argv) try {
    lab::Options opt("phase1", "Phase 1: single-head scaled dot-product attention, step by step.");
    add_common_flags(opt, {.phase = "phase1", .model = "single_head_model", .seed = 0});
    opt.add("d-k", "LIST", "8,32,128", "head widths of step 5's sqrt(d_k) experiment; the pointer task uses the largest");
    opt.add("steps", "N", "200", "training steps of step 5's pointer task");
    opt.add("head", "N", "1", "with a multi-head --checkpoint: the head of layer 1 to study (1 to its number of heads)");
    opt.parse(argc, argv);
    std::vector<std::int64_t> dks = opt.int_list("d-k", 1, 1024);
    std::sort(dks.begin(), dks.end());
    const std::int64_t steps = opt.integer("steps", 1, 100000);
    Phase1 p(opt);
    manual_seed(p.seed);
    std::printf("Phase 1: single-head scaled dot-product attention (seed %llu)\n", static_cast<unsigned long long>(p.seed));
    p.m["seed"] = static_cast<std::int64_t>(p.seed);
    p.ckpt = load_model(opt, lab::Task::single_head);  // trains the standard one first if it is missing
    // Steps 1-2 rebuild softmax attention by hand and step 6 runs the model with and without its positions.
    const nn::TransformerConfig& mc = p.ckpt.model->config();
    if (mc.normalizer.kind != nn::Normalizer::Kind::softmax || mc.positions == nn::PositionScheme::none)
        opt.fail("checkpoint", "phase 1 rebuilds softmax attention and removes the model's positions; this model has positions '" +
                                   std::string(nn::position_scheme_name(mc.positions)) + "' and normalizer '" +
                                   nn::normalizer_flag(mc.normalizer) + "' (tinygpt show reads any model)");
    NoGradGuard no_grad;  // from here on nothing trains but step 5, whose functions record their own graphs
    section0_model_and_sentence(p);
    section1_one_query(p);
    section2_matrix_form(p);
    section3_flow(p);
    section4_worked_examples(p);
    phase1::section4b_sat_scale_erratum(p);
    section5_why_sqrt_dk(p, dks);
    section5b_train_with_and_without(p, dks.back(), steps);
    phase1::section6_permutation_equivariance(p, p.ckpt, p.ids, p.tokens);
    phase1::section7_three_tokens(p);
    phase1::section8_random_self_attention(p);
    phase1::section9_graph_backward_walks(p, p.block().attn, p.X);
    p.out.save_metrics();
} catch (const std::exception& e) {  // none of the sections expected it: say what, exit 1
    return phase::unexpected_error(argv[0], e);
}
