// phase2_multi_head.cpp — Phase 2: multi-head attention, run on
// "the cat sat on the mat" through the trained multi_head_model (d_model 64, H = 4
// heads of d_k = 16, 2 layers, bidirectional).
//
//   MultiHead(X) = Concat(head_1, ..., head_H) W_O,   head_h = Attention(X W_Q^h, X W_K^h, X W_V^h)
//
// Steps, as the course orders them: 1. split into heads, attend in parallel,
// concatenate, project (checked against the layer) and the parameter count;
// 2. one heatmap per head; 3. entropy per head; 4. what each head specialises in
// (self, local, global) and how alike the heads are; 5. concatenation and projection
// (W_O); 6. single head vs multi-head, and a sweep over the number of heads.
// Writes out/phase2/*.svg|png, out/phase2/metrics.json, out/data/multi_head_patterns.npy.
// `phase2 --help` lists the settings: the sentence, the checkpoint (any multi-head
// model), the seed, the head counts and d_model of step 6's sweep, its steps, --out.
#include <cmath>
#include <iostream>

#include "autograd/node.hpp"
#include "analyses/attention_stats.hpp"
#include "analyses/head_analysis.hpp"
#include "app/report.hpp"
#include "phases/phase2_heads_cost.hpp"
#include "phases/phase2_parameter_counts.hpp"
#include "phases/phase2_untrained_heads.hpp"
#include "phases/phase_common.hpp"
#include "training/trained_enough.hpp"
#include "plots/bar_chart.hpp"
#include "plots/compose.hpp"
#include "plots/heatmap.hpp"
#include "plots/layout.hpp"
#include "plots/line_chart.hpp"
#include "plots/table.hpp"


using namespace attnlab;
using namespace attnlab::phase;

namespace {

// What the sections share: the settings, the model, the sentence and step 1's tensors.
struct Phase2 : Frame {
    explicit Phase2(const lab::Options& o) : Frame(o, "phase2") {}
    nn::LoadedCheckpoint ckpt;
    std::vector<std::string> tokens, head_names;  // tokens as axis labels
    std::string text;                             // the sentence as read
    Tensor ids;                                          // (1, T)
    std::int64_t T = 0, d_model = 0, H = 0, d_k = 0;
    Tensor weights, heads, concat, projected, patterns;  // step 1's tensors; patterns (H, T, T)
    nn::MultiHeadAttention& attn() const { return ckpt.model->blocks[0]->attn; }
};

void section0_model_and_sentence(Phase2& p) {
    section("0. The trained multi-head model and the sentence");
    nn::Transformer& model = *p.ckpt.model;
    model.eval();
    const Sentence sentence = studied_sentence(p.opt, p.ckpt);  // the grammar's words, or a corpus model's tokens
    const std::vector<std::int64_t>& ids = sentence.ids;
    p.tokens = sentence.labels, p.text = sentence.text;
    p.T = static_cast<std::int64_t>(ids.size());
    p.ids = from_vector(ids, {1, p.T});
    p.d_model = p.attn().d_model, p.H = p.attn().n_heads, p.d_k = p.attn().d_k;
    for (std::int64_t h = 0; h < p.H; ++h) p.head_names.push_back("head " + std::to_string(h + 1));
    std::printf("sentence: %s (%lld tokens)\n", p.text.c_str(), static_cast<long long>(p.T));
    std::printf("d_model = %lld, H = %lld, d_k = d_model / H = %lld; layer 1 of %zu\n", static_cast<long long>(p.d_model),
                static_cast<long long>(p.H), static_cast<long long>(p.d_k), model.blocks.size());
}

void section1_split_attend_concat(Phase2& p, std::int64_t d_model) {
    section("1. Split into heads, attend in parallel, concatenate, project");
    const std::int64_t T = p.T, H = p.H, d_k = p.d_k;
    nn::Transformer& model = *p.ckpt.model;
    nn::MultiHeadAttention& attn = p.attn();
    Tensor q;
    {
        NoGradGuard no_grad;
        Tensor X = model.blocks[0]->ln1.forward(model.embed(p.ids));  // (1, T, d_model): ln1(tok_emb + positions)
        // project with the full-width W_Q (all heads' W_Q^h side by side), then split d_model into H x d_k
        auto split = [&](const nn::Linear& W) { return W.forward(X).view({1, T, H, d_k}).transpose(1, 2); };  // (1, H, T, d_k)
        q = split(attn.w_q);
        Tensor k = split(attn.w_k), v = split(attn.w_v);
        Tensor scores = matmul(q, k.mT()) / std::sqrt(static_cast<double>(d_k));  // (1, H, T, T): every head at once
        p.weights = softmax(scores, -1);                                           // (1, H, T, T)
        p.heads = matmul(p.weights, v);                                            // (1, H, T, d_k)
        p.concat = p.heads.transpose(1, 2).reshape({1, T, p.d_model});             // (1, T, H·d_k): heads side by side
        p.projected = attn.w_o->forward(p.concat);                                  // (1, T, d_model)
        std::cout << "X " << X.shape().str() << " -> Q = X W_Q^T + b " << attn.w_q.forward(X).shape().str()
                  << " -> split " << q.shape().str() << "\nscores = q k^T / sqrt(" << d_k << ") " << scores.shape().str()
                  << " -> softmax " << p.weights.shape().str() << " -> weights v " << p.heads.shape().str()
                  << "\nconcatenate " << p.concat.shape().str() << " -> W_O " << p.projected.shape().str() << "\n";
        std::cout << "head 1 weights:\n" << p.weights.select(0, 0).select(0, 0) << "\n";
        nn::AttentionResult layer = attn.forward(X);
        const double dw = max(abs(layer.weights - p.weights)).item(), dout = max(abs(layer.output - p.projected)).item();
        std::printf("check against the layer's forward: max |dweights| = %.2e, max |doutput| = %.2e\n", dw, dout);
        if (dw > 1e-6 || dout > 1e-6) throw ValueError("phase 2: the step-by-step attention differs from the layer's");
        p.m["layer_check"] = Json::Object{{"max_abs_diff_weights", dw}, {"max_abs_diff_output", dout}};
    }
    std::printf("parameters of one MultiHeadAttention(d_model, H) = 4 d^2 + 4 d (W_Q, W_K, W_V, W_O and their biases):\n");
    lab::Table counts({{"d_model", "d_model", 8, -1}, {"n_heads", "H", 3, -1}, {"parameters", "parameters", 10, -1},
                       {"formula_4d2_4d", "4 d^2 + 4 d", 11, -1}}, "  ");
    counts.print_header();
    for (std::int64_t h : {4, 8})
        counts.row({d_model, h, nn::MultiHeadAttention(d_model, h).parameter_count(), 4 * d_model * d_model + 4 * d_model});
    std::printf("the count does not depend on H: more heads means narrower heads (d_k = d_model / H), not more weights\n");
    p.m["parameter_counts"] = counts.json();
    const Json& first = counts.json().as_array()[0];
    lab::headline(p.m, "mha_parameters", first.at("parameters"),
                  "MHA parameters, d_model " + std::to_string(d_model) + ", " + std::to_string(first.at("n_heads").as_int64()) + " heads", 0);
    p.m["shapes"] = Json::Object{{"q_split", q.shape().str()}, {"weights", p.weights.shape().str()}, {"heads", p.heads.shape().str()},
                                 {"concat", p.concat.shape().str()}, {"projected", p.projected.shape().str()}};
}

void section2_heatmap_per_head(Phase2& p) {
    section("2. One heatmap per head");
    p.patterns = p.weights.select(0, 0);  // (H, T, T)
    std::vector<plots::Matrix> panels;
    for (std::int64_t h = 0; h < p.H; ++h) panels.push_back(to_matrix(p.patterns.select(0, h)));
    plots::HeatmapGridOptions go;
    go.title = "Attention weights of each head (layer 1): " + p.text;
    go.row_labels = go.col_labels = p.tokens;
    go.annotate = true;
    go.vmin = 0.0, go.vmax = 1.0;
    go.columns = 2;
    go.colorbar_label = "attention weight";
    p.out.figure(plots::heatmap_grid(panels, go), "multi_head_grid",
                 "Phase 2: one heatmap per head of the trained multi-head model's first layer.");
    save_key_matrix("multi_head_patterns", p.patterns, p.tokens, p.tokens, p.out.root());
    p.m["tokens"] = Json::Array(p.tokens.begin(), p.tokens.end());
    p.m["weights"] = to_json(p.patterns);
}

// Steps 3 and 4: one profile per head, one table: printed, recorded, drawn.
void section3_4_entropy_and_specialisation(Phase2& p) {
    section("3. Entropy per head: focused or diffuse? 4. Head specialisation");
    const lab::HeadProfile prof = lab::profile_heads(p.patterns);
    lab::Table t({{"head", "head", 4, -1}, {"entropy", "entropy", 8, 3}, {"kind", "kind", 8, -1}, {"self", "self", 6, 3},
                  {"local", "local", 6, 3}, {"global", "global", 6, 3}, {"previous", "previous", 8, 3}});
    t.print_header();
    std::vector<std::string> bar_labels;
    for (std::int64_t h = 0; h < p.H; ++h) {
        t.row({h + 1, prof.entropy[h], prof.kind[h], prof.self[h], prof.local[h], prof.global[h], prof.previous[h]});
        bar_labels.push_back(p.head_names[h] + " " + prof.kind[h]);
    }
    p.m["heads"] = t.json();
    const std::string lnT = "ln(" + std::to_string(p.T) + ")";
    std::printf("uniform attention over %lld keys: %s = %.3f; focused means an entropy below half of that\n",
                static_cast<long long>(p.T), lnT.c_str(), prof.max_entropy);
    plots::BarChartOptions bo{.title = "Mean attention entropy per head (layer 1); focused = below " + lnT + "/2",
                              .value_title = "entropy (nats)", .category_title = "head", .decimals = 3,
                              .reference = prof.max_entropy, .reference_label = "uniform max " + lnT + " = " + plots::layout::format_fixed(prof.max_entropy, 3)};
    p.out.figure(plots::bar_chart(bar_labels, t.column("entropy"), bo), "attention_entropy",
                 "Phase 2: mean attention entropy per head, against the uniform maximum.");

    plots::Matrix spec(static_cast<std::size_t>(p.H));  // [head][self, local, global, previous]
    for (const char* key : {"self", "local", "global", "previous"})
        for (std::size_t h = 0; const double v : t.column(key)) spec[h++].push_back(v);
    plots::HeatmapOptions so;
    so.title = "What each head attends to (layer 1, mean over the " + std::to_string(p.T) + " queries)";
    so.row_labels = p.head_names;
    so.col_labels = {"self i=j", "local |i-j|<=1", "global |i-j|>1", "previous j=i-1"};
    so.x_title = "share of the attention weight", so.y_title = "head";
    so.annotate = true, so.colormap = plots::Colormap::blues, so.vmin = 0.0, so.vmax = 1.0;
    p.out.figure(plots::heatmap(spec, so), "head_specialization",
                 "Phase 2: how much of each head's attention goes to itself, its neighbours, the previous token.");
}

void section4_head_similarity(Phase2& p) {
    const Tensor sim = lab::head_similarity(p.patterns);  // (H, H)
    std::cout << "cosine similarity of the heads' patterns:\n" << sim << "\n";
    plots::HeatmapOptions simo;
    simo.title = "Cosine similarity of the heads' patterns (layer 1)";
    simo.row_labels = simo.col_labels = p.head_names;
    simo.x_title = simo.y_title = "head";
    simo.annotate = true, simo.colormap = plots::Colormap::blues, simo.vmin = 0.0, simo.vmax = 1.0;
    p.out.figure(plots::heatmap(to_matrix(sim), simo), "head_similarity",
                 "Phase 2: cosine similarity between the heads' attention patterns.");
    p.m["head_similarity"] = to_json(sim);
}

void section5_concat_projection(Phase2& p) {
    section("5. Concatenation and projection");
    // Drawn as the course draws it: features down, tokens across, so the concatenation is the heads stacked.
    const std::int64_t H = p.H, d_k = p.d_k, T = p.T;
    std::vector<plots::Matrix> head_out;
    std::vector<std::string> head_titles;
    for (std::int64_t h = 0; h < H; ++h) {
        head_out.push_back(to_matrix(p.heads.select(0, 0).select(0, h).mT()));  // (d_k, T)
        head_titles.push_back("head " + std::to_string(h + 1) + " (" + std::to_string(h * d_k) + "-" + std::to_string((h + 1) * d_k - 1) + ")");
    }
    const double lim = std::max(max(abs(p.concat)).item(), max(abs(p.projected)).item());  // one colour scale for all three
    plots::HeatmapGridOptions ho;
    ho.col_labels = p.tokens, ho.x_title = "token", ho.y_title = "feature";
    ho.colormap = plots::Colormap::red_blue, ho.vmin = -lim, ho.vmax = lim, ho.colorbar_label = "value";
    ho.cell_size = 11, ho.columns = 1, ho.panel_titles = head_titles;
    const std::string dT = " x " + std::to_string(T) + "]";
    ho.title = "1. Per head: " + std::to_string(H) + " x [" + std::to_string(d_k) + dT;
    plots::HeatmapOptions co = ho;
    co.title = "2. Concatenated [" + std::to_string(p.d_model) + dT;
    plots::HeatmapOptions po = ho;
    po.title = "3. Projected by W_O [" + std::to_string(p.d_model) + dT;
    p.out.figure(plots::hstack({plots::heatmap_grid(head_out, ho), plots::heatmap(to_matrix(p.concat.select(0, 0).mT()), co),
                                plots::heatmap(to_matrix(p.projected.select(0, 0).mT()), po)},
                               "Heads' outputs, concatenated (the same numbers), then mixed by W_O", 40),
                 "concat_projection",
                 "Phase 2: the per-head outputs, their concatenation, and the W_O projection.");
    const std::int64_t n = std::min<std::int64_t>(8, p.d_model);
    std::cout << "token '" << p.tokens[0] << "' (0), head outputs concatenated, first 8 features: "
              << p.concat.select(0, 0).select(0, 0).narrow(0, 0, n)
              << "\nafter W_O, first 8 features:                            " << p.projected.select(0, 0).select(0, 0).narrow(0, 0, n) << "\n";
}

// The columns both comparisons of step 6 print and record.
std::vector<lab::Column> evaluation_columns() {
    return {{"val_loss", "val loss", 9, 4}, {"val_accuracy", "accuracy", 8, 4}, {"bayes_floor", "floor", 7, 4},
            {"parameters", "params", 7, -1}};
}

void section6_single_vs_multi(Phase2& p) {
    section("6. Single head vs multi-head");
    nn::LoadedCheckpoint single = load_model(p.opt, lab::Task::single_head, "compare-checkpoint");
    const std::int64_t val_batch = lab::standard_config(lab::Task::multi_head).batch;
    std::vector<lab::Column> cols{{"model", "model", 18, -1}, {"n_heads", "H", 3, -1}};
    const std::string single_name = p.opt.given("compare-checkpoint") ? p.opt.text("compare-checkpoint") : "single_head_model";
    for (const lab::Column& c : evaluation_columns()) cols.push_back(c);
    lab::Table t(cols);
    t.print_header();
    const std::string name = p.opt.given("checkpoint") ? p.opt.text("checkpoint") : "multi_head_model";
    for (auto [label, c] : {std::pair{single_name, &single}, std::pair{name, &p.ckpt}}) {
        if (c->info.vocab != lab::grammar_vocab()) {  // a model of the learner's corpus: no grammar validation set
            std::printf("%s: skipped: a model of its own corpus; this comparison is on the toy grammar's validation set\n", label.c_str());
            continue;
        }
        const lab::Evaluation e = lab::evaluate(*c->model, lab::task_from_kind(c->info.kind), val_batch);
        t.row({label, c->model->config().n_heads, e.loss, e.accuracy, e.floor, c->model->parameter_count()});
    }
    p.m["single_vs_multi"] = t.json_by("model");
    for (const Json& r : t.json().as_array())
        lab::headline(p.m, r.at("model").as_string() + "_val_loss", r.at("val_loss"), r.at("model").as_string() + " val loss");
    if (t.json().size() > 0) lab::headline(p.m, "bayes_floor", t.json().as_array().back().at("bayes_floor"), "Bayes floor");
}

// The sweep: the masked-token task of the standard models, at a budget that fits a phase run.
void section6c_heads_sweep(Phase2& p, const std::vector<std::int64_t>& head_counts, std::int64_t d_model, std::int64_t steps) {
    section("6c. A sweep over the number of heads");
    lab::TrainConfig sweep = lab::standard_config(lab::Task::multi_head);
    sweep.d_model = d_model, sweep.n_layers = 1, sweep.context = 16, sweep.batch = 32, sweep.steps = steps;
    sweep.warmup = std::min<std::int64_t>(40, steps / 10);
    sweep.eval_every = sweep.steps, sweep.seed = p.seed, sweep.progress = lab::TrainConfig::Progress::quiet;
    std::printf("heads sweep: d_model %lld, %lld layer, context %lld, batch %lld, %lld steps (warm-up %lld), lr %g, seed %llu; "
                "validation: %lld batches of %lld\n", static_cast<long long>(sweep.d_model), static_cast<long long>(sweep.n_layers),
                static_cast<long long>(sweep.context), static_cast<long long>(sweep.batch), static_cast<long long>(sweep.steps),
                static_cast<long long>(sweep.warmup), sweep.lr, static_cast<unsigned long long>(sweep.seed),
                static_cast<long long>(sweep.val_batches), static_cast<long long>(sweep.batch));
    std::vector<lab::Column> cols{{"n_heads", "heads", 5, -1}, {"d_k", "d_k", 5, -1}};
    for (const lab::Column& c : evaluation_columns()) cols.push_back(c);
    cols.push_back({"seconds", "seconds", 7, 1});
    cols.push_back({"ms_per_step", "ms/step", 7, 1});
    lab::Table t(cols);
    t.print_header();
    std::vector<lab::RunRecord> runs;
    const double chance = 1.0 / static_cast<double>(lab::grammar_vocab().size());  // guessing a hidden word uniformly
    for (const lab::SweepPoint& pt : lab::heads_sweep(sweep, head_counts)) {
        t.row({pt.n_heads, pt.d_k, pt.eval.loss, pt.eval.accuracy, pt.eval.floor, pt.parameters, pt.seconds,
               1000 * pt.seconds / static_cast<double>(steps)});
        runs.push_back({std::to_string(pt.n_heads) + " heads", pt.losses, pt.eval.accuracy, chance});
    }
    lab::print_untrained_warning(runs);
    p.m["heads_sweep"] = Json::Object{{"d_model", sweep.d_model}, {"n_layers", sweep.n_layers}, {"context", sweep.context},
                                      {"batch", sweep.batch}, {"steps", sweep.steps}, {"seed", static_cast<std::int64_t>(sweep.seed)},
                                      {"results", t.json()}};
    for (const Json& r : t.json().as_array()) {
        const std::int64_t h = r.at("n_heads").as_int64();
        lab::headline(p.m, "heads_sweep_" + std::to_string(h) + "_val_loss", r.at("val_loss"),
                      "heads sweep, " + std::to_string(h) + (h == 1 ? " head" : " heads") + ": val loss");
    }
    const std::string dm = std::to_string(d_model);
    p.out.figure(plots::line_chart({t.series("n_heads", "val_loss", {.name = "validation loss"}),
                                    t.series("n_heads", "bayes_floor", {.name = "Bayes floor (no model can go lower)", .markers = false, .dashed = true})},
                                   {.title = "Validation loss vs number of heads (d_model " + dm + ", same steps and seed)",
                                    .x_title = "heads H (log scale; d_k = " + dm + " / H)", .y_title = "loss (nats)", .log_x = true}),
                 "heads_sweep",
                 "Phase 2: validation loss against the number of heads at d_model " + dm + ", with the Bayes floor.");
    phase2::draw_time_per_step(p, t, d_model, sweep.context);
}

}  // namespace

int main(int argc, char** argv) try {
    lab::Options opt("phase2", "Phase 2: multi-head attention, step by step, and a sweep over the number of heads.");
    add_common_flags(opt, {.phase = "phase2", .model = "multi_head_model", .seed = 0});
    opt.add("compare-checkpoint", "PATH", "out/checkpoints/single_head_model.safetensors", "the model step 6 compares with --checkpoint");
    opt.add("heads", "LIST", "1,2,4,8,16", "head counts of step 6's sweep (each must divide --d-model)");
    opt.add("d-model", "N", "64", "d_model of step 6's sweep and of step 1's parameter count");
    opt.add("steps", "N", "400", "training steps of each model in the sweep");
    opt.parse(argc, argv);
    const std::int64_t d_model = opt.integer("d-model", 1, 1024), steps = opt.integer("steps", 1, 100000);
    const std::vector<std::int64_t> head_counts = opt.int_list("heads", 1, d_model);
    for (std::int64_t h : head_counts)
        if (d_model % h != 0) opt.fail("heads", std::to_string(h) + " heads do not divide --d-model " + std::to_string(d_model));
    Phase2 p(opt);
    manual_seed(p.seed);
    std::printf("Phase 2: multi-head attention (seed %llu)\n", static_cast<unsigned long long>(p.seed));
    p.m["seed"] = static_cast<std::int64_t>(p.seed);
    p.ckpt = load_model(opt, lab::Task::multi_head);
    if (p.ckpt.model->config().normalizer.kind != nn::Normalizer::Kind::softmax)  // step 1 rebuilds softmax attention by hand
        opt.fail("checkpoint", "phase 2 rebuilds softmax attention step by step; this model normalizes with " +
                                   nn::normalizer_flag(p.ckpt.model->config().normalizer) + " (tinygpt show reads any model)");
    section0_model_and_sentence(p);
    section1_split_attend_concat(p, d_model);
    section2_heatmap_per_head(p);
    section3_4_entropy_and_specialisation(p);
    section4_head_similarity(p);
    section5_concat_projection(p);
    section6_single_vs_multi(p);
    phase2::section6b_single_vs_multi_parameters(p, d_model, 4);
    section6c_heads_sweep(p, head_counts, d_model, steps);
    phase2::section7_untrained_heads(p, p.patterns, p.tokens);
    p.out.save_metrics();
} catch (const std::exception& e) {  // none of the sections expected it: say what, exit 1
    return phase::unexpected_error(argv[0], e);
}
