// heads.cpp — tinygpt heads: the course's ablations on any trained model, measured on the
// held-out data of its own run (training/held_out.hpp): the toy grammar's validation set, or
// the last tenth of its corpus, which it never trained on.
//
//   1. each head alone switched off: the loss increase over the full model      analyses/head_pruning
//   2. heads off cumulatively, least important first: the fewest within --tolerance
//   3. how far each head looks (mean |i - j|), beside uniform attention           analyses/attention_distance
//   4. the loss with the attention further restricted by each --mask, at evaluation only
//   5. causal models: the future never reaches the past (bit for bit), and the  analyses/causality
//      loss with the causal mask removed
//
// Every number is printed; with --out each part is drawn and all of them recorded in heads.json.
#include "tools/tinygpt/common.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analyses/attention_distance.hpp"
#include "analyses/attention_weights.hpp"
#include "analyses/causality.hpp"
#include "analyses/head_pruning.hpp"
#include "app/report.hpp"
#include "data/vocab.hpp"
#include "io/json.hpp"
#include "plots/bar_chart.hpp"
#include "plots/heatmap.hpp"
#include "plots/layout.hpp"
#include "plots/save.hpp"
#include "tensor/ops.hpp"
#include "training/held_out.hpp"
#include "training/mask_spec.hpp"

namespace attnlab::tinygpt {

void declare_heads(lab::Options& o) {
    o.add("checkpoint", "PATH", "", "the model: any checkpoint tinygpt train wrote (toy grammar or corpus, causal or masked-token)");
    o.add_path("out", "DIR", "", "where the figures go: head_pruning, pruning_to_minimum, attention_distance, mask_losses "
                                 "(.svg and .png each) and heads.json; without it, only the printout");
    o.add("tolerance", "X", "0.05", "pruning to the minimum: the most the held-out loss may rise, in nats (0 to 100)");
    o.add("mask", "LIST", "", "masks that further restrict the attention at evaluation: local:W, strided:S or causal, "
                              "comma-separated; default local:W,strided:S with W = context/8 (at least 1) and S = context/8 "
                              "(at least 2)");
    o.add_path("corpus", "FILE", "", "a corpus model's text, where it is now (default: the path its checkpoint records); "
                                     "it must be the very text it was trained on");
}

namespace {

// --mask's restrictions, in order. "none" restricts nothing, so it is refused here; the
// loss without the causal mask is part 5's.
std::vector<lab::MaskSpec> mask_flag(const lab::Options& o) {
    std::vector<lab::MaskSpec> out;
    if (!o.given("mask")) return out;
    for (const std::string& text : o.word_list("mask")) {
        try {
            out.push_back(lab::parse_mask(text));
        } catch (const ValueError& e) {
            throw UsageError(e.what());
        }
        if (out.back().kind == lab::MaskSpec::Kind::none)
            throw UsageError("--mask 'none' restricts nothing; list local:W, strided:S or causal (a causal model's loss "
                             "without its mask is printed under 'break causality')");
    }
    return out;
}

// The default restrictions: a window and a stride of an eighth of the context.
std::vector<lab::MaskSpec> default_masks(std::int64_t context) {
    const std::int64_t w = std::max<std::int64_t>(1, context / 8), s = std::max<std::int64_t>(2, context / 8);
    return {{lab::MaskSpec::Kind::local, w}, {lab::MaskSpec::Kind::strided, s}};
}

// The mask's rule on a T x T window, ANDed with the model's own at evaluation.
nn::Mask restriction(const lab::MaskSpec& m, std::int64_t T) {
    switch (m.kind) {
        case lab::MaskSpec::Kind::local: return nn::Mask::local(T, T, m.width, 0);
        case lab::MaskSpec::Kind::strided: return nn::Mask::strided(T, T, m.width, 0);
        case lab::MaskSpec::Kind::causal: return nn::Mask::causal(T);
        case lab::MaskSpec::Kind::none: break;
    }
    return nn::Mask();
}

// Keys a query may see, averaged over the queries of a T x T window: the model's mask and `extra`.
double keys_per_query(const nn::Transformer& model, const nn::Mask& extra, std::int64_t T) {
    const nn::Mask m = model.attention_mask(T, T) & extra;
    return m.empty() ? static_cast<double>(T) : sum(m.allowed()).item() / static_cast<double>(T);
}

Json rows_of(const Tensor& t) {  // [R, C] -> [[...], ...]
    Json rows = Json::array();
    for (const auto& row : lab::to_matrix(t)) rows.push_back(Json(Json::Array(row.begin(), row.end())));
    return rows;
}

// How far each head looks over every held-out row, cut to its real tokens, one batch at a time.
lab::AttentionDistance held_out_distance(nn::Transformer& model, const lab::HeldOut& held) {
    std::vector<lab::AttentionDistance> parts;
    for (const lab::Batch& b : held.batches) {
        const lab::TracedForward run = lab::traced_forward(model, b.ids, b.padding);  // layers[l]: [B, H, T, T]
        std::vector<std::vector<Tensor>> rows;                                         // rows[r][l]: [H, T_r, T_r]
        for (std::int64_t r = 0; r < b.ids.size(0); ++r) {
            const std::int64_t T = b.lengths.empty() ? b.ids.size(1) : b.lengths[static_cast<std::size_t>(r)];
            std::vector<Tensor> layers;
            for (const Tensor& w : run.layers) layers.push_back(w.select(0, r).narrow(1, 0, T).narrow(2, 0, T));
            rows.push_back(std::move(layers));
        }
        parts.push_back(lab::attention_distance(model, rows));
    }
    return lab::combine(parts);
}

struct Context {
    nn::LoadedCheckpoint ck;
    lab::HeldOut held;
    std::string name, dir;  // the checkpoint's stem; --out ("" = print only)
    Json record = Json::object();
    std::vector<std::string> figures;
    nn::Transformer& model() { return *ck.model; }
    double loss(nn::Transformer& m, const nn::Mask& extra = nn::Mask()) const { return lab::evaluate_batches(m, held.batches, extra).loss; }
    void figure(const plots::Figure& f, const std::string& stem) {
        if (dir.empty()) return;
        plots::save(f, dir + "/" + stem);
        figures.push_back(dir + "/" + stem);
    }
};

void section(const std::string& title) { std::printf("\n%s\n", title.c_str()); }

// 1 and 2: heads off alone, then cumulatively.
void pruning(Context& c, double tolerance) {
    nn::Transformer& model = c.model();
    const lab::HeldOutLoss loss = [&](nn::Transformer& m) { return c.loss(m); };
    const lab::PruningToMinimum r = lab::prune_to_minimum(model, tolerance, loss);
    const std::int64_t L = model.config().n_layers, H = model.config().n_heads;
    section("1. Each head alone switched off: held-out loss increase over the full model's " + plots::layout::format_fixed(r.base, 4));
    const std::vector<std::string> names = lab::head_names(model);
    lab::Table t({{"head", "head", 7, -1}, {"val_loss", "val loss", 8, 4}, {"increase", "increase", 9, 4}});
    t.print_header();
    plots::Matrix increase(static_cast<std::size_t>(L), std::vector<double>(static_cast<std::size_t>(H)));
    for (std::size_t i = 0; i < names.size(); ++i) {
        t.row({names[i], r.base + r.importance[i], r.importance[i]});
        increase[i / static_cast<std::size_t>(H)][i % static_cast<std::size_t>(H)] = r.importance[i];
    }
    const auto most = std::max_element(r.importance.begin(), r.importance.end()) - r.importance.begin();
    std::printf("=> the model needs %s most: without it the loss rises %.4f nats\n", names[static_cast<std::size_t>(most)].c_str(),
                r.importance[static_cast<std::size_t>(most)]);
    const auto below = std::count_if(r.importance.begin(), r.importance.end(), [](double x) { return x < 0; });
    if (below > 0)
        std::printf("=> %lld heads lower the loss when switched off: the model does better on this held-out text without them\n",
                    static_cast<long long>(below));
    c.record["base_val_loss"] = r.base;
    c.record["head_pruning"] = Json::Object{{"heads", t.json()}, {"increase", rows_of(from_vector(r.importance, {L, H}, kFloat64))}};
    plots::HeatmapOptions hm;
    hm.title = c.name + ": held-out loss increase, one head off";
    for (std::int64_t l = 1; l <= L; ++l) hm.row_labels.push_back("layer " + std::to_string(l));
    for (std::int64_t h = 1; h <= H; ++h) hm.col_labels.push_back("H" + std::to_string(h));
    hm.x_title = "head switched off", hm.y_title = "", hm.annotate = true, hm.decimals = 4;
    hm.colormap = *std::min_element(r.importance.begin(), r.importance.end()) < 0 ? plots::Colormap::red_blue : plots::Colormap::reds;
    hm.colorbar_label = "increase (nats)";
    c.figure(plots::heatmap(increase, hm), "head_pruning");

    section("2. Pruning to the minimum: heads off one after another, least important first");
    const lab::Table steps = lab::pruning_table(r, names);
    std::printf("=> %lld of %zu heads keep the held-out loss within %.2f nats of the full model's %.4f\n",
                static_cast<long long>(r.fewest_heads), r.order.size(), tolerance, r.base);
    c.record["pruning_to_minimum"] = Json::Object{{"tolerance", tolerance}, {"fewest_heads", r.fewest_heads}, {"steps", steps.json()}};
    c.figure(lab::pruning_figure(r, steps, tolerance, c.name), "pruning_to_minimum");
}

// 3: how far each head looks on the held-out rows.
void distance(Context& c) {
    section("3. Attention distance: mean |i - j| weighted by attention, over every query of the held-out rows");
    std::printf("'uniform' is the distance if each query spread its weight evenly over the keys the model's mask allows\n");
    const lab::AttentionDistance d = held_out_distance(c.model(), c.held);
    lab::Table t({{"layer", "layer", 5, -1}, {"head", "head", 4, -1}, {"distance", "distance", 8, 3}, {"ratio", "/ uniform", 9, 2}});
    t.print_header();
    Json layers = Json::array();
    for (std::int64_t l = 0; l < d.per_head.size(0); ++l) {
        for (std::int64_t h = 0; h < d.per_head.size(1); ++h) t.row({l + 1, h + 1, d.per_head.at({l, h}), d.per_head.at({l, h}) / d.uniform});
        t.row({l + 1, "all", d.layer_mean(l), d.layer_mean(l) / d.uniform});
        layers.push_back(d.layer_mean(l));
    }
    std::printf("uniform attention: %.3f tokens, over %.0f queries\n", d.uniform, d.queries);
    c.record["attention_distance"] = Json::Object{{"uniform", d.uniform}, {"queries", d.queries}, {"per_head", rows_of(d.per_head)},
                                                  {"per_layer", layers}};
    c.figure(lab::attention_distance_chart(d, c.name + ": how far each head looks on held-out text"), "attention_distance");
}

// 4 and 5b: the same weights, reading fewer (or more) keys. Returns the bars of mask_losses.
void masks(Context& c, const std::vector<lab::MaskSpec>& specs, std::vector<std::string>& labels, std::vector<double>& losses) {
    nn::Transformer& model = c.model();
    const std::int64_t T = model.config().context;
    const double base = c.record.at("base_val_loss").as_double();
    section("4. Custom masks at evaluation: the attention further restricted, the weights unchanged");
    lab::Table t({{"mask", "mask", 12, -1}, {"keys", "keys/query", 10, 1}, {"val_loss", "val loss", 8, 4}, {"increase", "increase", 9, 4}});
    t.print_header();
    t.row({"(its own)", keys_per_query(model, nn::Mask(), T), base, 0.0});
    for (const lab::MaskSpec& m : specs) {
        const nn::Mask extra = restriction(m, T);
        const double l = c.loss(model, extra);
        t.row({m.name(), keys_per_query(model, extra, T), l, l - base});
        labels.push_back(m.name()), losses.push_back(l - base);
    }
    std::printf("=> the increase under local:W is what the model loses without the tokens more than W positions away\n");
    c.record["masks"] = t.json();
}

void causality(Context& c, std::vector<std::string>& labels, std::vector<double>& losses) {
    nn::Transformer& model = c.model();
    section("5. Break causality");
    if (!model.config().causal) {
        std::printf("does not apply: '%s' is a bidirectional (masked-token) model; every position already reads the "
                    "tokens after it, by design\n", c.name.c_str());
        c.record["causality"] = Json::Object{{"applies", false}};
        return;
    }
    // (a) The first held-out row: every later token changed, or shuffled; the earlier logits must not move.
    const Tensor first = c.held.batches.front().ids.select(0, 0);  // [T]
    const std::vector<std::int64_t> ids = first.to_vector<std::int64_t>();
    // Replacements: a grammar model's words (below them: <pad> <bos> <eos> [MASK]); any id of a corpus model's vocabulary.
    const bool corpus = c.ck.metadata.contains("corpus") && !c.ck.metadata.at("corpus").empty();
    const std::vector<lab::CausalityRow> rows = lab::check_causality(model, ids, corpus ? 0 : data::Vocab::kFirstWord);
    double prefix = 0, after = INFINITY;
    for (const lab::CausalityRow& r : rows) prefix = std::max({prefix, r.prefix_changed, r.prefix_shuffled}), after = std::min(after, r.after_changed);
    std::printf("(a) the first held-out row (%zu tokens): every token after position i changed, then shuffled, for each i\n"
                "    largest change of the logits at positions <= i: %g (%s)\n"
                "    smallest change after i: %g (the changes did reach the model)\n",
                ids.size(), prefix, prefix == 0 ? "exactly 0: the future never reaches the past" : "NOT 0: the mask leaks", after);
    // (b) The same weights without the causal mask (its own window or stride kept).
    const auto open = lab::with_mask(model, false, model.config().window, model.config().stride);
    const double base = c.record.at("base_val_loss").as_double(), without = c.loss(*open);
    std::printf("(b) held-out loss with the causal mask removed at evaluation: %.4f (%+.4f)\n"
                "    each position now also reads the tokens after it, its own target among them; the model was never\n"
                "    trained to use them, so this measures how much the unseen keys disturb it, not how well a model\n"
                "    that may look ahead would do (trained without the mask, it would learn to copy the answer)\n",
                without, without - base);
    c.record["causality"] = Json::Object{{"applies", true}, {"largest_prefix_change", prefix}, {"smallest_change_after", after},
                                         {"val_loss_without_causal_mask", without}};
    labels.push_back("no causal mask"), losses.push_back(without - base);
}

}  // namespace

int cmd_heads(const lab::Options& o) {
    Context c;
    c.dir = path_flag(o, "out");
    if (!c.dir.empty()) c.dir = out_dir(o, "out");
    const double tolerance = o.real("tolerance", 0, 100);
    const std::string corpus = path_flag(o, "corpus");
    if (!corpus.empty()) check_input("--corpus", corpus);
    std::vector<lab::MaskSpec> specs = mask_flag(o);
    c.ck = load(o);
    if (specs.empty()) specs = default_masks(c.ck.model->config().context);
    c.name = std::filesystem::path(o.text("checkpoint")).stem().string();
    try {
        c.held = lab::held_out_of(c.ck, o.text("checkpoint"), corpus);
    } catch (const lab::CorpusMismatch& e) {  // --corpus names the wrong text: a bad value of the flag
        if (!corpus.empty()) throw UsageError(e.what());
        throw;
    }
    const bool best = c.ck.metadata.contains("kept") && c.ck.metadata.at("kept") == "best";
    std::printf("%s: %lld layers x %lld heads, %s, step %lld%s; measured on %s\n", c.name.c_str(),
                (long long)c.model().config().n_layers, (long long)c.model().config().n_heads,
                c.model().config().causal ? "causal" : "bidirectional", (long long)c.ck.step,
                best ? " (kept: the run's lowest validation loss)" : "", c.held.description.c_str());
    c.record["checkpoint"] = o.text("checkpoint");
    c.record["held_out"] = c.held.description;
    pruning(c, tolerance);
    distance(c);
    std::vector<std::string> labels;
    std::vector<double> losses;
    masks(c, specs, labels, losses);
    causality(c, labels, losses);
    c.figure(plots::bar_chart(labels, losses, {.title = c.name + ": held-out loss with the attention restricted at evaluation",
                                               .value_title = "loss increase over its own mask (nats)", .horizontal = true,
                                               .decimals = 4}),
             "mask_losses");
    if (c.dir.empty()) return 0;
    std::printf("\n");
    report(c.figures);
    save_json(c.dir + "/heads.json", c.record);
    std::printf("wrote %s/heads.json\n", c.dir.c_str());
    return 0;
}

}  // namespace attnlab::tinygpt
