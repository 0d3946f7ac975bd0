// phase3_visualization.cpp — Phase 3: seeing what trained attention does.
//
// Two trained models read the toy sentences: causal_model (TinyGPT, next-token
// prediction, causal mask) and multi_head_model (the bidirectional encoder, masked-token
// prediction); both have 2 layers of 4 heads. Every sequence is <bos> words <eos>, as
// the training rows packed each sentence (data/packing.hpp), so the models read what
// they were trained on. The program goes:
//   1. load the models (training them first if out/checkpoints/ lacks them)
//   2. attention flow: one node-link diagram per head of causal_model
//   3. one head's matrix as a 3-D landscape, turning through 360 degrees
//   4. attention rollout through causal_model's layers, beside its raw last layer
//   5. attention distance per layer and head: local or global, causal or bidirectional?
//   6. the explorer page: both models' weights, run live in the page on any text (the toy sentences listed),
//      and the causal model's dL/dA on the listed sentences for its weights | dL/dA toggle
//   7. head types: which heads follow the grammar's dependencies (and on generated text, 7b)
//   8. gradients through attention: dL/dA per head, gradient-weighted rollout
// and writes out/phase3/: attention_flow, 3d_attention (+ .gif), attention_rollout,
// attention_distance, head_types, attention_gradients, gradient_weighted_rollout (.svg + .png),
// explorer.html, explorer_data.json, metrics.json.
// Every figure and printed line numbers layers and heads from 1 (layer 1, head 1), as
// phases 1, 2 and 4 and the seeds do; the loops below count from 0, as the tensors do,
// and add 1 where they print. metrics.json holds indices, not labels: its "layer" and
// "head" fields and the positions in its per-layer arrays count from 0.
// `phase3 --help` lists the settings: --sentence (studied in steps 2-5 and shown first in
// the explorer, before the toy sentences), --checkpoint (the model of steps 2-4, causal_model
// by default), --compare-checkpoint (the model beside it, multi_head_model), --seed, --out.
// Models of the learner's own corpus (tinygpt train --corpus) are studied too, both of the same
// vocabulary and tokens: the sentence is then the corpus's first tokens (or --sentence in its
// vocabulary), read without <bos> and <eos> as the corpus was, and step 7, which needs the
// grammar's gold pairs, says in one line that it is skipped; every other step runs.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>

#include "app/report.hpp"
#include "autograd/node.hpp"
#include "data/toy_sequences.hpp"
#include "analyses/attention_weights.hpp"
#include "analyses/attention_distance.hpp"
#include "analyses/attention_stats.hpp"
#include "analyses/show.hpp"
#include "phases/phase3_head_types.hpp"
#include "explorer/explorer.hpp"
#include "phases/phase3_gradients.hpp"
#include "phases/phase_common.hpp"
#include "plots/attention_flow.hpp"
#include "plots/bar_chart.hpp"
#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"
#include "plots/surface3d.hpp"

using namespace attnlab;

namespace {

using Layers = std::vector<Tensor>;  // layers[l]: [H, T, T], one sequence

// A model and what it did on each sentence.
struct Studied {
    std::string key, name;  // "causal", "causal_model" (or the --checkpoint path)
    nn::LoadedCheckpoint checkpoint;
    std::vector<Layers> attention;  // per toy sentence
    nn::Transformer& model() { return *checkpoint.model; }
};

// <bos> words <eos>: ids [T]
std::vector<std::int64_t> framed(const std::vector<std::int64_t>& words) {
    std::vector<std::int64_t> ids{data::Vocab::kBos};
    ids.insert(ids.end(), words.begin(), words.end());
    ids.push_back(data::Vocab::kEos);
    return ids;
}

void print_matrix(const std::string& title, const std::vector<std::string>& tokens, const Tensor& m) {  // m [T, T]
    std::printf("  %s (rows: queries, columns: keys)\n  %8s", title.c_str(), "");
    for (const std::string& t : tokens) std::printf("%7.6s", t.c_str());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        std::printf("\n  %8s", tokens[i].c_str());
        for (std::size_t j = 0; j < tokens.size(); ++j)
            std::printf("%7.3f", m.select(0, static_cast<std::int64_t>(i)).select(0, static_cast<std::int64_t>(j)).item());
    }
    std::printf("\n");
}

Json json_array(const std::vector<double>& values) { return Json(Json::Array(values.begin(), values.end())); }

Json json_matrix(const Tensor& m) {  // [R, C] -> [[...], ...]
    Json rows = Json::array();
    for (const auto& row : phase::to_matrix(m)) rows.push_back(json_array(row));
    return rows;
}

}  // namespace

namespace {

// One sentence as the models read it. The toy grammar's models read <bos> words <eos>, as its
// training rows packed each sentence (data/packing.hpp); a corpus model reads the tokens alone,
// as its one stream of training text.
struct Sequence {
    std::vector<std::int64_t> ids;    // [T], what the models read
    std::vector<std::string> tokens;  // the same in the vocabulary's spelling (what the explorer looks up)
    std::vector<std::string> labels;  // as axes show them (phase::token_labels: whitespace made visible)
    std::string text;                 // the words (or characters) alone, as the explorer lists them
};

// What the sections share: the settings, the two models, the sentences and what the models did.
struct Phase3 : phase::Frame {
    explicit Phase3(const lab::Options& o) : Frame(o, "phase3") {}
    std::vector<Sequence> sequences;  // [0] is --sentence, then the toy sentences (for the toy grammar's models)
    std::string text;                 // --sentence as phase::studied_sentence reads it, on one line
    std::vector<Studied> models;      // [0] the studied (causal) one, [1] the bidirectional one
    bool corpus = false;              // the models were trained on the learner's corpus, not the toy grammar
    std::int64_t L = 0, H = 0;
    const Layers& toy() const { return models[0].attention[0]; }  // models[0] on sequences[0]
    const std::vector<std::string>& tokens() const { return sequences[0].labels; }
};

// The sentences: --sentence first (phase::studied_sentence: a corpus model's own tokens, by
// default the corpus's first ones), then, for the toy grammar, data/toy_sequences.txt.
void read_sentences(Phase3& p) {
    const nn::LoadedCheckpoint& ck = p.models[0].checkpoint;
    const phase::Sentence studied = phase::studied_sentence(p.opt, ck);
    p.text = studied.text;
    std::vector<std::vector<std::int64_t>> sentences{studied.ids};
    if (!p.corpus)
        for (const auto& s : data::load_toy_sequences(data::toy_grammar().vocab()))
            if (s != studied.ids) sentences.push_back(s);
    const bool chars = lab::task_from_kind(ck.info.kind) == lab::Task::chars;
    for (const auto& s : sentences) {
        Sequence q{p.corpus ? s : framed(s), {}, {}, ""};
        for (std::int64_t id : q.ids) q.tokens.push_back(ck.info.vocab[static_cast<std::size_t>(id)]);
        for (std::int64_t id : s) q.text += (q.text.empty() || chars ? "" : " ") + ck.info.vocab[static_cast<std::size_t>(id)];
        q.labels = phase::token_labels(q.ids, ck.info.vocab);
        p.sequences.push_back(std::move(q));
    }
}

// The model beside the studied one reads the same sentences: the same vocabulary, tokenised the same way.
void check_same_tokens(const Phase3& p) {
    const nn::LoadedCheckpoint &ck = p.models[0].checkpoint, &other = p.models[1].checkpoint;
    auto chars = [](const nn::LoadedCheckpoint& c) { return lab::task_from_kind(c.info.kind) == lab::Task::chars; };
    if (other.info.vocab == ck.info.vocab && chars(other) == chars(ck)) return;
    auto tokens = [](const nn::LoadedCheckpoint& c) { return std::to_string(c.info.vocab.size()) + " tokens"; };
    p.opt.fail("compare-checkpoint", "trained on " + phase::trained_on(other) + ", " + tokens(other) + ", but --checkpoint on " +
                                         phase::trained_on(ck) + ", " + tokens(ck) +
                                         ": both read the same sentences, so they need the same vocabulary and tokens");
}

void section1_models(Phase3& p) {
    phase::section("1. The trained models");
    p.models.push_back({"causal", p.opt.given("checkpoint") ? p.opt.text("checkpoint") : "causal_model",
                        phase::load_model(p.opt, lab::Task::causal), {}});
    p.corpus = p.models[0].checkpoint.info.vocab != lab::grammar_vocab();
    if (p.corpus && !p.opt.given("compare-checkpoint"))  // said before the default is loaded (or trained) for nothing
        p.opt.fail("compare-checkpoint", "not given, and the default reads the toy grammar, but --checkpoint was trained on " +
                                             phase::trained_on(p.models[0].checkpoint) +
                                             ": give a model of the same corpus and tokens (tinygpt train --corpus FILE ...)");
    p.models.push_back({"bidirectional", p.opt.given("compare-checkpoint") ? p.opt.text("compare-checkpoint") : "multi_head_model",
                        phase::load_model(p.opt, lab::Task::multi_head, "compare-checkpoint"), {}});
    check_same_tokens(p);
    if (p.models[1].name == p.models[0].name) p.models[1].name += " (compared)";  // one model beside itself: two keys in metrics.json
    // The explorer labels each model by its key: the kind it really is, so a second causal
    // model given as --compare-checkpoint is not called bidirectional.
    if (p.models[1].model().config().causal) p.models[1].key = p.models[0].model().config().causal ? "causal-compared" : "causal";
    read_sentences(p);
    for (Studied& s : p.models) {
        for (const Sequence& q : p.sequences) s.attention.push_back(lab::attention_weights(s.model(), q.ids));
        const nn::TransformerConfig& c = s.model().config();
        auto extra = [&](const char* key) {
            const auto it = s.checkpoint.info.extra.find(key);
            return it == s.checkpoint.info.extra.end() ? std::string("?") : it->second;
        };
        const std::string floor = p.corpus ? "" : " (Bayes floor " + extra("bayes_floor").substr(0, 5) + ")";  // none for a corpus
        std::printf("  %-17s %s, %lld layers x %lld heads, d_model %lld; step %lld of %s; val loss %s%s\n",
                    s.name.c_str(), c.causal ? "causal" : "bidirectional", (long long)c.n_layers, (long long)c.n_heads,
                    (long long)c.d_model, (long long)s.checkpoint.step, extra("total_steps").c_str(),
                    extra("val_loss").substr(0, 5).c_str(), floor.c_str());
    }
    if (p.corpus)
        std::printf("  trained on %s; the sentence (%zu tokens): %s\n", phase::trained_on(p.models[0].checkpoint).c_str(),
                    p.tokens().size(), p.text.c_str());
    p.L = static_cast<std::int64_t>(p.toy().size()), p.H = p.toy()[0].size(0);
    p.m["sentence"] = p.text;
    p.m["tokens"] = Json(Json::Array(p.tokens().begin(), p.tokens().end()));
}

void section2_attention_flow(Phase3& p) {
    const std::string& name = p.models[0].name;
    phase::section("2. Attention flow: " + name + ", every head; each query -> its strongest key");
    const std::vector<std::string>& tokens = p.tokens();
    std::vector<plots::Figure> panels;
    for (std::int64_t l = 0; l < p.L; ++l)
        for (std::int64_t h = 0; h < p.H; ++h) {
            const Tensor w = p.toy()[l].select(0, h);  // [T, T]
            std::printf("  layer %lld head %lld:", (long long)l + 1, (long long)h + 1);
            for (std::int64_t i = 1; i < w.size(0); ++i) {  // each query's strongest key (query 0 has only itself)
                const auto j = static_cast<std::size_t>(argmax(w.select(0, i), 0).item());
                std::printf(" %s->%s", tokens[static_cast<std::size_t>(i)].c_str(), tokens[j].c_str());
            }
            std::printf("\n");
            panels.push_back(plots::attention_flow(
                tokens, phase::to_matrix(w), {.title = "layer " + std::to_string(l + 1) + ", head " + std::to_string(h + 1)}));
        }
    p.out.figure(plots::figure_grid(panels, {.title = name + " on \"" + p.text +
                                                          "\": query (top) -> key (bottom), width = weight",
                                             .columns = 2}),
                 "attention_flow",
                 "Phase 3: who attends to whom, one diagram per head; edge width is the weight.");
}

void section3_landscape(Phase3& p) {
    phase::section("3. The attention matrix as a 3-D landscape");
    // The sharpest head (lowest mean entropy) has the most relief to look at.
    std::int64_t best_l = 0, best_h = 0;
    double best_entropy = INFINITY;
    for (std::int64_t l = 0; l < p.L; ++l)
        for (std::int64_t h = 0; h < p.H; ++h)
            if (const double e = mean(lab::row_entropy(p.toy()[l].select(0, h))).item(); e < best_entropy)
                best_entropy = e, best_l = l, best_h = h;
    std::printf("  sharpest head: layer %lld head %lld (mean entropy %.3f nats)\n", (long long)best_l + 1,
                (long long)best_h + 1, best_entropy);
    const plots::Surface3DOptions surface{
        .title = p.models[0].name + ", layer " + std::to_string(best_l + 1) + " head " + std::to_string(best_h + 1),
        .row_labels = p.tokens(), .col_labels = p.tokens(), .width = 560, .height = 480};
    const plots::Matrix landscape = phase::to_matrix(p.toy()[best_l].select(0, best_h));
    p.out.figure(plots::surface3d(landscape, surface), "3d_attention",
                 "Phase 3: one head's attention matrix as a landscape (the GIF turns it through 360 degrees).");
    plots::save_turntable_gif(landscape, surface, p.out.dir() + "/3d_attention.gif", 36, 8);
    std::printf("  wrote %s/3d_attention.gif (36 frames, 360 degrees, looping)\n", p.out.dir().c_str());
    p.m["3d_attention"] = Json::Object{{"layer", best_l}, {"head", best_h}, {"mean_entropy", best_entropy}};
}

void section4_rollout(Phase3& p) {
    phase::section("4. Attention rollout: A = 0.5 W + 0.5 I per layer, heads averaged, multiplied through");
    const std::vector<std::string>& tokens = p.tokens();
    const std::string L = std::to_string(p.L);
    const Tensor raw = mean(p.toy()[p.L - 1], 0);             // [T, T]
    const Tensor rollout = lab::attention_rollout(p.toy());  // [T, T]
    print_matrix("raw layer " + L + " (the last), heads averaged", tokens, raw);
    print_matrix("rollout over layers 1-" + L, tokens, rollout);
    const std::int64_t T = raw.size(0);
    const std::string first = p.corpus ? "the first token, '" + tokens[0] + "'," : tokens[0];  // <bos> for the toy grammar
    std::printf("  the last query draws %.3f of its rollout from %s and %.3f from itself (raw last layer: %.3f, %.3f)\n",
                rollout.select(0, T - 1).select(0, 0).item(), first.c_str(), rollout.select(0, T - 1).select(0, T - 1).item(),
                raw.select(0, T - 1).select(0, 0).item(), raw.select(0, T - 1).select(0, T - 1).item());
    plots::HeatmapGridOptions grid;
    grid.title = p.models[0].name + ": what each query reads, directly and through the layers";
    grid.panel_titles = {"raw layer " + L + " (the last), heads averaged", "rollout over layers 1-" + L};
    grid.row_labels = grid.col_labels = tokens;
    grid.annotate = true;
    grid.vmin = 0, grid.vmax = 1;
    grid.colorbar_label = "weight";
    grid.columns = 2;
    if (p.models[0].model().config().causal) {  // the keys the mask blocks are drawn hatched
        grid.mask.assign(static_cast<std::size_t>(T), std::vector<bool>(static_cast<std::size_t>(T)));
        for (std::int64_t i = 0; i < T; ++i)
            for (std::int64_t j = i + 1; j < T; ++j) grid.mask[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = true;
    }
    p.out.figure(plots::heatmap_grid({phase::to_matrix(raw), phase::to_matrix(rollout)}, grid), "attention_rollout",
                 "Phase 3: attention rolled out through the layers, beside the last layer's raw weights.");
    p.m["rollout"] = json_matrix(rollout);
    phase::save_key_matrix("phase3_rollout", rollout, tokens, tokens, p.out.root());
    p.m["raw_last_layer"] = json_matrix(raw);
}

// One model's distance, entropy and weight on key 0 (<bos>, or a corpus model's first token) per
// layer and head, means over every query of every sentence; prints its rows and returns its
// panel. layer_ratio: distance / uniform per layer.
plots::Figure distance_of(Studied& s, std::size_t index, Json& out, std::vector<double>& layer_ratio, double& uniform) {
    const std::int64_t L = static_cast<std::int64_t>(s.attention[0].size()), H = s.attention[0][0].size(0);
    const lab::AttentionDistance far = lab::attention_distance(s.model(), s.attention);
    const Tensor& distance = far.per_head;  // [L, H]
    uniform = far.uniform;
    Tensor entropy = zeros({L, H}, kFloat64), bos = zeros({L, H}, kFloat64);
    for (const Layers& layers : s.attention) {
        const Tensor w = stack(layers, 0).to(kFloat64);  // [L, H, T, T]
        entropy = entropy + sum(lab::row_entropy(w), 2);
        bos = bos + sum(w.select(3, 0), 2);  // the weight on key 0
    }
    entropy = entropy / far.queries, bos = bos / far.queries;
    const plots::Matrix d = phase::to_matrix(distance), e = phase::to_matrix(entropy), b = phase::to_matrix(bos);
    const char* key0 = s.checkpoint.info.vocab == lab::grammar_vocab() ? "bos_weight" : "first_token_weight";
    Json model_json = Json::Object{{"uniform", uniform}, {"layers", Json::array()}};
    for (std::size_t l = 0; l < d.size(); ++l) {
        for (std::size_t h = 0; h < d[l].size(); ++h) {
            std::printf("  %-17s %5zu %4zu %8.3f %8.3f %6.2f %8.3f %6.3f\n", s.name.c_str(), l + 1, h + 1, d[l][h],
                        uniform, d[l][h] / uniform, e[l][h], b[l][h]);
        }
        const double layer_mean = far.layer_mean(static_cast<std::int64_t>(l));
        std::printf("  %-17s %5zu  all %8.3f %8.3f %6.2f\n", s.name.c_str(), l + 1, layer_mean, uniform, layer_mean / uniform);
        layer_ratio.push_back(layer_mean / uniform);
        model_json["layers"].push_back(Json::Object{{"distance", json_array(d[l])}, {"entropy", json_array(e[l])},
                                                    {key0, json_array(b[l])}, {"mean_distance", layer_mean}});
    }
    out[s.name] = std::move(model_json);
    return lab::attention_distance_chart(far, s.name + (s.model().config().causal ? " (causal)" : " (bidirectional)"),
                                         plots::palette::categorical(index));
}

void section5_attention_distance(Phase3& p) {
    const std::string sentences = p.sequences.size() == 1 ? "sentence" : std::to_string(p.sequences.size()) + " sentences";
    phase::section("5. Attention distance: mean |i - j| weighted by attention, over every query of the " + sentences);
    std::printf("  'uniform' is the distance if each query spread its weight evenly over the keys its mask allows\n");
    std::printf("  %-17s %5s %4s %8s %8s %6s %8s %6s\n", "model", "layer", "head", "distance", "uniform", "ratio", "entropy",
                p.corpus ? "first" : "<bos>");
    std::vector<plots::Figure> panels;
    std::vector<std::vector<double>> layer_ratio(p.models.size());  // [model][layer]: distance / uniform, heads averaged
    std::vector<double> uniforms(p.models.size()), overall(p.models.size());
    for (std::size_t mi = 0; mi < p.models.size(); ++mi)
        panels.push_back(distance_of(p.models[mi], mi, p.m["attention_distance"], layer_ratio[mi], uniforms[mi]));
    std::printf("\n  Deeper layers, more local or more global? (distance / uniform, heads averaged)\n");
    for (std::size_t mi = 0; mi < p.models.size(); ++mi) {
        const double change = layer_ratio[mi].back() - layer_ratio[mi][0];
        std::printf("    %-17s layer 1: %.2f, layer %zu: %.2f -> the last layer looks %s\n", p.models[mi].name.c_str(),
                    layer_ratio[mi][0], layer_ratio[mi].size(), layer_ratio[mi].back(),
                    std::abs(change) < 0.05 ? "about as far (a change under 0.05)"
                    : change > 0            ? "further (more global)"
                                            : "closer (more local)");
        // Heads and layers averaged: the distance itself, and as a share of uniform attention's under the same mask.
        overall[mi] = std::accumulate(layer_ratio[mi].begin(), layer_ratio[mi].end(), 0.0) / double(layer_ratio[mi].size());
    }
    std::printf("  Masking: uniform attention would reach %.2f tokens for %s, %.2f for %s.\n"
                "  The trained models reach %.2f and %.2f: %.2f and %.2f of their own uniform.\n",
                uniforms[0], p.models[0].name.c_str(), uniforms[1], p.models[1].name.c_str(), overall[0] * uniforms[0],
                overall[1] * uniforms[1], overall[0], overall[1]);
    p.m["distance_over_uniform"] =
        Json::Object{{p.models[0].name, json_array(layer_ratio[0])}, {p.models[1].name, json_array(layer_ratio[1])}};
    for (std::size_t mi = 0; mi < 2; ++mi)
        for (std::size_t l = 0; l < layer_ratio[mi].size(); ++l)
            lab::headline(p.m, "distance_over_uniform_" + p.models[mi].name + "_layer_" + std::to_string(l + 1),
                          p.m["distance_over_uniform"][p.models[mi].name].as_array()[l],
                          "attention distance / uniform, " + p.models[mi].name + " layer " + std::to_string(l + 1), 2);
    p.out.figure(plots::figure_grid(panels, {.title = "Attention distance: mean |i - j| over every query of the " + sentences,
                                             .columns = 1}),
                 "attention_distance",
                 "Phase 3: how far each head looks (mean |i - j|), per layer, for both models.");
}

void section6_explorer(Phase3& p) {
    phase::section(std::string("6. The explorer: both models, live, on ") + (p.corpus ? "the sentence" : "the toy sentences") +
                   " or any text in their vocabulary");
    std::vector<std::pair<std::string, std::vector<std::string>>> sentences;
    std::vector<std::vector<std::string>> listed;
    for (const Sequence& q : p.sequences) sentences.emplace_back(q.text, q.tokens), listed.push_back(q.tokens);
    Json models = Json::array();
    for (Studied& s : p.models) {
        const bool causal = s.model().config().causal;
        // The page frames typed text as section 1 does: <bos> words <eos>, or a corpus model's tokens alone.
        const lab::Framing framing = p.corpus ? lab::prompt_framing(s.checkpoint) : lab::Framing{false, {"<bos>"}, {"<eos>"}};
        Json m = lab::explorer_model(
            s.checkpoint, {s.key, s.name,
                           causal ? "TinyGPT, next-token prediction: a token sees itself and earlier ones"
                                  : "bidirectional encoder, masked-token prediction: a token sees all",
                           p.opt.text(&s == &p.models[0] ? "checkpoint" : "compare-checkpoint"), framing});
        if (causal) m["gradients"] = lab::explorer_gradients(s.checkpoint, listed);  // the page's dL/dA toggle
        models.push_back(std::move(m));
    }
    const std::string page = lab::write_explorer_page(lab::explorer_data(sentences, std::move(models)), p.out.dir());
    std::printf("  wrote %s (%zu KB: %zu sentence%s listed, %zu models' weights) and explorer_data.json\n", page.c_str(),
                static_cast<std::size_t>(std::filesystem::file_size(page) / 1024), p.sequences.size(),
                p.sequences.size() == 1 ? "" : "s", p.models.size());
    if (p.corpus)
        std::printf("  open it: the sentence is listed first\n");
    else
        std::printf("  open it, or one view: %s#model=causal&text=the+dog+saw+the+cat&layer=2&head=3&token=3\n", page.c_str());
}

}  // namespace

int main(int argc, char** argv) try {
    lab::Options opt("phase3", "Phase 3: seeing what trained attention does (flow, 3-D, rollout, distance, explorer).");
    phase::add_common_flags(opt, {.phase = "phase3", .model = "causal_model", .seed = 0});
    opt.add("compare-checkpoint", "PATH", "out/checkpoints/multi_head_model.safetensors", "the bidirectional model shown beside it");
    opt.parse(argc, argv);
    manual_seed(opt.seed());  // nothing in phase 3 draws random numbers today; a learner's addition would
    Phase3 p(opt);
    section1_models(p);
    section2_attention_flow(p);
    section3_landscape(p);
    section4_rollout(p);
    section5_attention_distance(p);
    section6_explorer(p);
    phase3::section7_head_types(p, p.models[0].checkpoint, p.models[1].checkpoint);
    phase3::section8_attention_gradients(p, p.models[0].model(), p.sequences[0].ids, p.tokens(), p.text);
    p.out.save_metrics();
    return 0;
} catch (const std::exception& e) {  // none of the sections expected it: say what, exit 1
    return phase::unexpected_error(argv[0], e);
}
