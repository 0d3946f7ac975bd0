// phase2_multi_head.cpp — Phase 2 of seed 000: multi-head attention, run on
// "the cat sat on the mat" through the trained multi_head_model (d_model 64, H = 4
// heads of d_k = 16, 2 layers, bidirectional).
//
//   MultiHead(X) = Concat(head_1, ..., head_H) W_O,   head_h = Attention(X W_Q^h, X W_K^h, X W_V^h)
//
// Steps, as the seed orders them: 1. split into heads, attend in parallel,
// concatenate, project (checked against the layer) and the parameter count;
// 2. one heatmap per head; 3. entropy per head; 4. what each head specialises in
// (seed 002 §3) and how alike the heads are; 5. concatenation and projection
// (seed 002 §4); 6. single head vs multi-head, and a sweep over the number of heads.
// Writes out/phase2/*.svg|png, out/phase2/metrics.json, out/data/multi_head_patterns.npy.
#include <cmath>
#include <iostream>

#include "autograd/node.hpp"
#include "nn/attention_stats.hpp"
#include "nn/head_analysis.hpp"
#include "lab/train.hpp"
#include "phases/phase12_metrics.hpp"
#include "phases/phase_common.hpp"
#include "plots/bar_chart.hpp"
#include "plots/compose.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"
#include "plots/table.hpp"

using namespace attnlab;
using namespace attnlab::phase;

namespace {

std::string fixed(double v, int decimals = 3) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

}  // namespace

int main() {
    const std::uint64_t seed = 0;
    manual_seed(seed);
    std::printf("Phase 2: multi-head attention (seed %llu)\n", static_cast<unsigned long long>(seed));
    Output out("out/phase2");
    Json& m = out.metrics();
    m["seed"] = static_cast<std::int64_t>(seed);

    section("0. The trained multi_head_model and the toy sentence");
    nn::LoadedCheckpoint ckpt = lab::load_or_train(lab::Task::multi_head);
    nn::Transformer& model = *ckpt.model;
    model.eval();
    const std::vector<std::string> tokens = words(kToySentence);
    const auto T = static_cast<std::int64_t>(tokens.size());
    Tensor ids = from_vector(encode(kToySentence), {1, T});
    nn::MultiHeadAttention& attn = model.blocks[0]->attn;
    const std::int64_t d_model = attn.d_model, H = attn.n_heads, d_k = attn.d_k;
    std::printf("d_model = %lld, H = %lld, d_k = d_model / H = %lld; layer 1 of %zu\n", static_cast<long long>(d_model),
                static_cast<long long>(H), static_cast<long long>(d_k), model.blocks.size());

    section("1. Split into heads, attend in parallel, concatenate, project");
    Tensor q, k, v, weights, heads, concat, projected;
    {
        NoGradGuard no_grad;
        Tensor X = model.blocks[0]->ln1.forward(model.tok_emb.forward(ids) + model.pos_emb.forward(arange(T)));  // (1, T, d_model)
        // project with the full-width W_Q (all heads' W_Q^h side by side), then split d_model into H x d_k
        auto split = [&](const nn::Linear& W) { return W.forward(X).view({1, T, H, d_k}).transpose(1, 2); };  // (1, H, T, d_k)
        q = split(attn.w_q), k = split(attn.w_k), v = split(attn.w_v);
        Tensor scores = matmul(q, k.mT()) / std::sqrt(static_cast<double>(d_k));  // (1, H, T, T): every head at once
        weights = softmax(scores, -1);                                             // (1, H, T, T)
        heads = matmul(weights, v);                                                // (1, H, T, d_k)
        concat = heads.transpose(1, 2).reshape({1, T, d_model});                   // (1, T, H·d_k): heads side by side
        projected = attn.w_o.forward(concat);                                      // (1, T, d_model)
        std::cout << "X " << X.shape().str() << " -> Q = X W_Q^T + b " << attn.w_q.forward(X).shape().str()
                  << " -> split " << q.shape().str() << "\nscores = q k^T / sqrt(" << d_k << ") " << scores.shape().str()
                  << " -> softmax " << weights.shape().str() << " -> weights v " << heads.shape().str()
                  << "\nconcatenate " << concat.shape().str() << " -> W_O " << projected.shape().str() << "\n";
        std::cout << "head 1 weights:\n" << weights.select(0, 0).select(0, 0) << "\n";
        nn::AttentionResult layer = attn.forward(X);
        const double dw = max(abs(layer.weights - weights)).item(), dout = max(abs(layer.output - projected)).item();
        std::printf("check against the layer's forward: max |dweights| = %.2e, max |doutput| = %.2e\n", dw, dout);
        if (dw > 1e-6 || dout > 1e-6) throw ValueError("phase 2: the step-by-step attention differs from the layer's");
        m["layer_check"] = Json::Object{{"max_abs_diff_weights", dw}, {"max_abs_diff_output", dout}};
    }
    Json counts = Json::array();
    for (std::int64_t h : {4, 8}) {
        const std::int64_t n = nn::MultiHeadAttention(64, h).parameter_count(), formula = 4 * 64 * 64 + 4 * 64;
        std::printf("MultiHeadAttention(64, %lld): %lld parameters = 4 d^2 + 4 d = %lld (W_Q, W_K, W_V, W_O and their biases)\n",
                    static_cast<long long>(h), static_cast<long long>(n), static_cast<long long>(formula));
        counts.push_back(Json::Object{{"d_model", 64}, {"n_heads", h}, {"parameters", n}, {"formula_4d2_4d", formula}});
    }
    std::printf("the count does not depend on H: more heads means narrower heads (d_k = d_model / H), not more weights\n");
    m["parameter_counts"] = counts;
    m["shapes"] = Json::Object{{"q_split", q.shape().str()}, {"weights", weights.shape().str()}, {"heads", heads.shape().str()},
                               {"concat", concat.shape().str()}, {"projected", projected.shape().str()}};

    section("2. One heatmap per head");
    Tensor patterns = weights.select(0, 0);  // (H, T, T)
    std::vector<plots::Matrix> panels;
    for (std::int64_t h = 0; h < H; ++h) panels.push_back(to_matrix(patterns.select(0, h)));
    plots::HeatmapGridOptions go;
    go.title = "Attention weights of each head (layer 1): the cat sat on the mat";
    go.row_labels = go.col_labels = tokens;
    go.annotate = true;
    go.vmin = 0.0, go.vmax = 1.0;
    go.columns = 2;
    go.colorbar_label = "attention weight";
    out.figure(plots::heatmap_grid(panels, go), "multi_head_grid");
    save_key_matrix("multi_head_patterns", patterns, tokens, tokens);
    m["tokens"] = Json::Array(tokens.begin(), tokens.end());
    m["weights"] = to_json(patterns);

    section("3. Entropy per head: focused or diffuse?");
    nn::HeadProfile prof = nn::profile_heads(patterns);
    std::vector<std::string> head_names, bar_labels;
    for (std::int64_t h = 0; h < H; ++h) {
        head_names.push_back("head " + std::to_string(h + 1));
        bar_labels.push_back(head_names.back() + " " + prof.kind[h]);
        std::printf("%s: mean row entropy %.3f nats (e^H = %.2f keys' worth) -> %s\n", head_names.back().c_str(),
                    prof.entropy[h], std::exp(prof.entropy[h]), prof.kind[h].c_str());
    }
    std::printf("uniform attention over %lld keys: ln %lld = %.3f; focused means below half of that\n",
                static_cast<long long>(T), static_cast<long long>(T), prof.max_entropy);
    plots::BarChartOptions bo{.title = "Mean attention entropy per head (layer 1); focused = below ln(6)/2",
                              .value_title = "entropy (nats)", .category_title = "head", .decimals = 3,
                              .reference = prof.max_entropy, .reference_label = "uniform max ln 6 = " + fixed(prof.max_entropy)};
    out.figure(plots::bar_chart(bar_labels, prof.entropy, bo), "attention_entropy");

    section("4. Head specialisation (seed 002 section 3) and head similarity");
    std::printf("%-7s %9s %8s %8s %8s %9s\n", "head", "entropy", "self", "local", "global", "previous");
    std::vector<std::vector<std::string>> rows;
    plots::Matrix spec;
    Json jp = Json::array();
    for (std::int64_t h = 0; h < H; ++h) {
        std::printf("%-7s %9.3f %8.3f %8.3f %8.3f %9.3f\n", head_names[h].c_str(), prof.entropy[h], prof.self[h],
                    prof.local[h], prof.global[h], prof.previous[h]);
        spec.push_back({prof.self[h], prof.local[h], prof.global[h], prof.previous[h]});
        jp.push_back(Json::Object{{"head", h + 1}, {"entropy", prof.entropy[h]}, {"kind", prof.kind[h]}, {"self", prof.self[h]},
                                  {"local", prof.local[h]}, {"global", prof.global[h]}, {"previous", prof.previous[h]}});
    }
    m["heads"] = jp;
    plots::HeatmapOptions so;
    so.title = "What each head attends to (layer 1, mean over the 6 queries)";
    so.row_labels = head_names;
    so.col_labels = {"self i=j", "local |i-j|<=1", "global |i-j|>1", "previous j=i-1"};
    so.x_title = "share of the attention weight", so.y_title = "head";
    so.annotate = true, so.colormap = plots::Colormap::blues, so.vmin = 0.0, so.vmax = 1.0;
    out.figure(plots::heatmap(spec, so), "head_specialization");
    Tensor sim = nn::head_similarity(patterns);  // (H, H)
    std::cout << "cosine similarity of the heads' patterns:\n" << sim << "\n";
    plots::HeatmapOptions simo;
    simo.title = "Cosine similarity of the heads' patterns (layer 1)";
    simo.row_labels = simo.col_labels = head_names;
    simo.x_title = simo.y_title = "head";
    simo.annotate = true, simo.colormap = plots::Colormap::blues, simo.vmin = 0.0, simo.vmax = 1.0;
    out.figure(plots::heatmap(to_matrix(sim), simo), "head_similarity");
    m["head_similarity"] = to_json(sim);

    section("5. Concatenation and projection (seed 002 section 4)");
    // Drawn as the seed draws it: features down, tokens across, so the concatenation is the heads stacked.
    std::vector<plots::Matrix> head_out;
    std::vector<std::string> head_titles;
    for (std::int64_t h = 0; h < H; ++h) {
        head_out.push_back(to_matrix(heads.select(0, 0).select(0, h).mT()));  // (d_k, T)
        head_titles.push_back("head " + std::to_string(h + 1) + " (" + std::to_string(h * d_k) + "-" + std::to_string((h + 1) * d_k - 1) + ")");
    }
    const double lim = std::max(max(abs(concat)).item(), max(abs(projected)).item());  // one colour scale for all three
    plots::HeatmapGridOptions ho;
    ho.col_labels = tokens, ho.x_title = "token", ho.y_title = "feature";
    ho.colormap = plots::Colormap::red_blue, ho.vmin = -lim, ho.vmax = lim, ho.colorbar_label = "value";
    ho.cell_size = 11, ho.columns = 1, ho.panel_titles = head_titles;
    ho.title = "1. Per head: " + std::to_string(H) + " x [" + std::to_string(d_k) + " x " + std::to_string(T) + "]";  // (features in the concatenation)
    plots::HeatmapOptions co = ho;
    co.title = "2. Concatenated [" + std::to_string(d_model) + " x " + std::to_string(T) + "]";
    plots::HeatmapOptions po = ho;
    po.title = "3. Projected by W_O [" + std::to_string(d_model) + " x " + std::to_string(T) + "]";
    out.figure(plots::hstack({plots::heatmap_grid(head_out, ho), plots::heatmap(to_matrix(concat.select(0, 0).mT()), co),
                              plots::heatmap(to_matrix(projected.select(0, 0).mT()), po)},
                             "Heads' outputs, concatenated (the same numbers), then mixed by W_O", 40),
               "concat_projection");
    std::cout << "token 'the' (0), head outputs concatenated, first 8 features: " << concat.select(0, 0).select(0, 0).narrow(0, 0, 8)
              << "\nafter W_O, first 8 features:                            " << projected.select(0, 0).select(0, 0).narrow(0, 0, 8) << "\n";

    section("6. Single head vs multi-head, and a sweep over the number of heads");
    nn::LoadedCheckpoint single = lab::load_or_train(lab::Task::single_head);
    const std::int64_t val_batch = lab::standard_config(lab::Task::multi_head).batch;
    Json cmp = Json::object();
    for (auto [name, mdl] : {std::pair{"single_head_model", single.model.get()}, std::pair{"multi_head_model", ckpt.model.get()}}) {
        lab::Evaluation e = lab::evaluate(*mdl, mdl->config().n_heads == 1 ? lab::Task::single_head : lab::Task::multi_head, val_batch);
        std::printf("%-18s H = %lld: validation loss %.4f (Bayes floor %.4f, +%.4f), accuracy %.2f%%, %lld parameters\n", name,
                    static_cast<long long>(mdl->config().n_heads), e.loss, e.floor, e.loss - e.floor, 100 * e.accuracy,
                    static_cast<long long>(mdl->parameter_count()));
        cmp[name] = Json::Object{{"n_heads", mdl->config().n_heads}, {"val_loss", e.loss}, {"val_accuracy", e.accuracy},
                                 {"bayes_floor", e.floor}, {"parameters", mdl->parameter_count()}};
    }
    m["single_vs_multi"] = cmp;

    // The sweep: the masked-token task of the standard models, at a budget that fits a phase run.
    lab::TrainConfig sweep = lab::standard_config(lab::Task::multi_head);
    sweep.n_layers = 1, sweep.context = 16, sweep.batch = 32, sweep.steps = 400, sweep.warmup = 40;
    sweep.eval_every = sweep.steps, sweep.seed = seed, sweep.progress = lab::TrainConfig::Progress::quiet;
    std::printf("heads sweep: d_model %lld, %lld layer, context %lld, batch %lld, %lld steps (warm-up %lld), lr %g, seed %llu; "
                "validation: %lld batches of %lld\n", static_cast<long long>(sweep.d_model), static_cast<long long>(sweep.n_layers),
                static_cast<long long>(sweep.context), static_cast<long long>(sweep.batch), static_cast<long long>(sweep.steps),
                static_cast<long long>(sweep.warmup), sweep.lr, static_cast<unsigned long long>(sweep.seed),
                static_cast<long long>(sweep.val_batches), static_cast<long long>(sweep.batch));
    const std::vector<std::int64_t> head_counts{1, 2, 4, 8, 16};
    std::vector<nn::SweepPoint> pts = nn::heads_sweep(sweep, head_counts);
    plots::Series loss_s{.name = "validation loss"}, floor_s{.name = "Bayes floor (no model can go lower)", .markers = false, .dashed = true};
    Json jsw = Json::array();
    std::printf("%5s %5s %10s %10s %9s %9s %8s\n", "heads", "d_k", "val loss", "above", "accuracy", "params", "seconds");
    for (const nn::SweepPoint& p : pts) {
        std::printf("%5lld %5lld %10.4f %10.4f %8.2f%% %9lld %8.1f\n", static_cast<long long>(p.n_heads), static_cast<long long>(p.d_k),
                    p.eval.loss, p.eval.loss - p.eval.floor, 100 * p.eval.accuracy, static_cast<long long>(p.parameters), p.seconds);
        loss_s.x.push_back(static_cast<double>(p.n_heads)), loss_s.y.push_back(p.eval.loss);
        floor_s.x.push_back(static_cast<double>(p.n_heads)), floor_s.y.push_back(p.eval.floor);
        jsw.push_back(Json::Object{{"n_heads", p.n_heads}, {"d_k", p.d_k}, {"val_loss", p.eval.loss}, {"val_accuracy", p.eval.accuracy},
                                   {"bayes_floor", p.eval.floor}, {"parameters", p.parameters}, {"seconds", p.seconds}});
    }
    m["heads_sweep"] = Json::Object{{"d_model", sweep.d_model}, {"n_layers", sweep.n_layers}, {"context", sweep.context},
                                    {"batch", sweep.batch}, {"steps", sweep.steps}, {"seed", static_cast<std::int64_t>(sweep.seed)},
                                    {"results", jsw}};
    out.figure(plots::line_chart({loss_s, floor_s}, {.title = "Validation loss vs number of heads (d_model 64, same steps and seed)",
                                                     .x_title = "heads H (log scale; d_k = 64 / H)", .y_title = "loss (nats)",
                                                     .log_x = true}), "heads_sweep");
    require_keys(m, kPhase2MetricKeys, "phase 2");
    out.save_metrics();
}
