// phase4_causal.cpp — Phase 4: causal masking and autoregressive attention.
//
// `make phase4` runs it and writes out/phase4/ (figures as SVG + PNG, metrics.json).
// It follows the seed: the mask and its −∞ form; the same attention with and
// without it; proof that the future cannot leak; what happens when training or
// testing breaks causality; generation one token at a time (and the KV cache);
// padding and combined masks; custom masks; entropy during training and head pruning;
// the course's experimental setting (d_model 128, H 8, 32 tokens) and its 8 heads; the graph
// backward() walks for the whole model, one box per module.
// Also writes out/data/phase4_causal_weights.npy for the summary sheet.
// The models: the trained causal_model (out/checkpoints/, trained here if missing)
// and four short TinyGPT runs that differ only in their mask (phase4_experiments.hpp).
// `phase4 --help` lists the settings: the sentence, the checkpoint (any causal model: the
// comparisons train its architecture; a model of the learner's own corpus runs the steps that
// do not need the toy grammar, on its own text, and names the others it skips), the seed,
// the masks of step 7 (--mask), the heads step 8 switches off (--prune), the comparisons'
// steps, --out.
#include <chrono>
#include <cmath>
#include <filesystem>

#include "data/lm_batches.hpp"
#include "app/report.hpp"
#include "nn/generate.hpp"
#include "phases/phase4_experimental_setting.hpp"
#include "phases/phase4_experiments.hpp"
#include "phases/phase4_model_graph.hpp"
#include "phases/phase4_pruning.hpp"
#include "phases/phase4_complexity.hpp"
#include "phases/course_errata.hpp"
#include "phases/phase4_learning.hpp"
#include "phases/phase_common.hpp"
#include "training/trained_enough.hpp"
#include "plots/bar_chart.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"
#include "plots/mask_chart.hpp"
#include "plots/table.hpp"
#include "io/fileio.hpp"

using namespace attnlab;
using namespace attnlab::phase;
using phase4::fixed3;
using phase4::json_of;
using phase4::len;
using phase4::row;

namespace {

constexpr std::int64_t kEntropyEvery = 25;    // record attention entropy every N steps

// What the sections share: the settings, the model, the sentence, the runs of step 4.
struct Phase4 : Frame {
    explicit Phase4(const lab::Options& o) : Frame(o, "phase4") {}
    nn::LoadedCheckpoint ckpt;
    lab::TrainConfig recipe;               // causal_model's, with the loaded model's architecture and --seed
    std::int64_t steps = 0;               // of every compared run
    std::vector<std::int64_t> ids, prompt;  // <bos> sentence; <bos> its first two words
    std::string prompt_text;                // the first two words ("the cat")
    std::int64_t T = 0;
    std::unique_ptr<nn::Transformer> encoder;  // the model's weights without the mask
    lab::TrainResult masked, unmasked;     // step 4's runs (masked is also step 7's and 8's reference)
    lab::TrainResult whole;                // step 8's replay of the recipe's whole run (step 9 draws it learning)
    lab::AttentionTimeline timeline;       // the sentence's attention at each evaluation of that replay (step 9)
    // A model of the learner's own corpus (tinygpt train --corpus): no grammar to train or
    // validate on, no <bos>; the sections that need the grammar say so and are skipped.
    bool corpus = false;
    std::int64_t first = 1;                    // ids[first..] are the sentence's own tokens (after <bos>)
    std::int64_t eos = data::Vocab::kEos;      // generation stops there; -1 for a corpus (one stream, no <eos>)
    nn::Transformer& gpt() const { return *ckpt.model; }
    std::vector<std::string> labels(const std::vector<std::int64_t>& tokens) const { return phase::token_labels(tokens, ckpt.info.vocab); }
    std::string text(const std::vector<std::int64_t>& tokens) const {
        return phase4::text_of(tokens, ckpt.info.vocab, lab::task_from_kind(ckpt.info.kind) == lab::Task::chars ? "" : " ");
    }
};

// True (and says why, in one line) if `what` needs the toy grammar and the model is of a corpus.
bool skipped_on_corpus(const Phase4& p, const std::string& what, const std::string& why) {
    if (p.corpus) std::printf("\n=== %s: skipped: %s; '%s' is a model of its own corpus ===\n", what.c_str(), why.c_str(),
                              p.opt.text("checkpoint").c_str());
    return p.corpus;
}

// The model (any causal model: of the toy grammar, or of a corpus), the recipe of every run compared with it, the sentence.
void section0_model_and_sentence(Phase4& p) {
    p.ckpt = load_model(p.opt, lab::Task::causal);
    if (!p.gpt().config().causal) p.opt.fail("checkpoint", "phase 4 needs a causal model (next-token); this one is bidirectional");
    p.corpus = p.ckpt.info.vocab != lab::grammar_vocab();
    p.first = p.corpus ? 0 : 1, p.eos = p.corpus ? -1 : data::Vocab::kEos;
    p.recipe = lab::standard_config(lab::Task::causal);
    const nn::TransformerConfig& c = p.gpt().config();
    p.recipe.d_model = c.d_model, p.recipe.n_heads = c.n_heads, p.recipe.n_layers = c.n_layers, p.recipe.context = c.context;
    p.recipe.seed = p.seed;
    std::printf("Phase 4: causal masking and autoregressive attention (seed %llu)\n", (unsigned long long)p.recipe.seed);
    p.m["seed"] = static_cast<std::int64_t>(p.recipe.seed);
    p.ids = p.corpus ? corpus_sentence_ids(p.opt, p.ckpt) : sentence_ids(p.opt, p.ckpt.info.vocab, c.context);
    if (!p.corpus) p.ids.insert(p.ids.begin(), data::Vocab::kBos);  // rows start with <bos> in training
    p.T = len(p.ids);
    p.prompt.assign(p.ids.begin(), p.ids.begin() + std::min<std::int64_t>(p.first + 2, p.T));
    p.prompt_text = p.text(std::vector<std::int64_t>(p.prompt.begin() + p.first, p.prompt.end()));
    if (p.corpus) std::printf("a model of its own corpus: the sentence is \"%s\"\n", p.text(p.ids).c_str());
}

void section1_causal_mask(Phase4& p) {
    section("1. The causal mask (" + std::to_string(p.T - p.first) + " x " + std::to_string(p.T - p.first) + ")");
    const std::vector<std::string> labels = p.labels(p.ids), words(labels.begin() + p.first, labels.end());  // without <bos>
    const nn::Mask mask = nn::Mask::causal(len(words));
    std::printf("allowed (1 = may attend, 0 = blocked); row = query i, column = key j:\n%s\n", to_string(mask.allowed()).c_str());
    std::printf("additive form, added to the scores before softmax:\n%s\n", to_string(mask.additive()).c_str());
    std::printf("softmax([2, -inf, 3]) = %s: the blocked score gets exactly 0 (a score of 0 would get %.2f)\n",
                to_string(softmax(tensor({2.0, -INFINITY, 3.0}), -1)).c_str(), softmax(tensor({2.0, 0.0, 3.0}), -1).at({1}));
    print_softmax_errata(p);
    p.out.figure(plots::mask_chart({to_matrix(mask.allowed())}, {.title = "Causal mask: query i sees keys j <= i",
                                                                .row_labels = words, .col_labels = words}),
                 "causal_mask",
                 "Phase 4: the causal mask; query i may attend to keys j <= i only.");
}

void section2_bidirectional_vs_causal(Phase4& p) {
    section("2. Bidirectional vs causal attention (layer 1, mean of its heads)");
    p.encoder = phase4::with_mask(p.gpt(), /*causal=*/false);  // the same weights without the mask
    const Tensor full = mean(phase4::layer_weights(*p.encoder, row(p.ids), 0).select(0, 0), 0);  // [T, T]
    const Tensor causal = mean(phase4::layer_weights(p.gpt(), row(p.ids), 0).select(0, 0), 0);   // [T, T]
    const double upper_max = max(abs(triu(causal, 1))).item(), future = sum(triu(full, 1)).item() / double(p.T);
    std::printf("causal panel: largest weight above the diagonal = %g (exactly zero: %s)\n", upper_max, upper_max == 0 ? "yes" : "NO");
    std::printf("full panel: weight a query gives to later tokens, mean %.3f\n", future);
    // Checked to be exactly 0 above, the upper triangle is drawn hatched (−∞ means "masked" to the heatmap).
    const plots::Matrix causal_m = to_matrix(masked_fill(causal, triu(ones({p.T, p.T}), 1), -INFINITY));
    plots::HeatmapGridOptions bo;
    bo.title = "Same input, same causal model: its mask removed vs kept";
    bo.row_labels = bo.col_labels = p.labels(p.ids);
    // The left panel is not a trained bidirectional model: the causal one, read without its mask.
    bo.panel_titles = {"mask removed (sees later tokens)", "causal (upper triangle = 0)"};
    bo.annotate = true, bo.columns = 2, bo.vmin = 0, bo.colormap = plots::Colormap::blues;
    bo.mask_label = "blocked by the causal mask: weight exactly 0";
    bo.colorbar_label = "attention weight (mean of " + std::to_string(p.gpt().config().n_heads) + " heads)";
    p.out.figure(plots::heatmap_grid({to_matrix(full), causal_m}, bo), "bidirectional_vs_causal",
                 "Phase 4: the causal model's own weights, read with its mask removed (left: not a trained "
                 "bidirectional model; it was never trained to use later tokens) and with it (right).");
    p.m["bidirectional_vs_causal"] = Json::Object{{"causal_upper_triangle_max", upper_max}, {"full_mean_future_weight", future}};
    lab::headline(p.m, "causal_upper_triangle_max", upper_max, "largest causal weight above the diagonal");
    save_key_matrix("phase4_causal_weights", causal, p.labels(p.ids), p.labels(p.ids), p.out.root());
}

void section3_verify_causality(Phase4& p) {
    section("3. Verify causality: change or shuffle every token after position i");
    const std::vector<std::int64_t> long_ids =
        p.corpus ? p.ids : phase4::with_bos("the cat sat on the mat because it was comfortable");
    std::printf("sequence: %s\nmax |change in logits| at positions <= i, and after i (changed tokens):\n", p.text(long_ids).c_str());
    lab::Table t({{"i", "i", 2, -1}, {"token", "token i", 12, -1}, {"prefix_changed", "changed <=i", 12, 2, true, true},
                  {"prefix_shuffled", "shuffled <=i", 12, 2, true, true}, {"after_changed", "changed >i", 12, 3},
                  {"no_mask_prefix_changed", "same weights, no mask: changed <=i", 34, 2, true, true}}, "  ");
    t.print_header();
    // Replacements: a grammar model's words (ids below are <pad> <bos> <eos> [MASK]); any id of a corpus model's vocabulary.
    const std::int64_t first = p.corpus ? 0 : data::Vocab::kFirstWord;
    const auto rows = lab::check_causality(p.gpt(), long_ids, first), leaks = lab::check_causality(*p.encoder, long_ids, first);
    double worst = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto& r = rows[k];
        worst = std::max({worst, r.prefix_changed, r.prefix_shuffled});
        t.row({r.i, p.labels(long_ids)[r.i], r.prefix_changed, r.prefix_shuffled, r.after_changed, leaks[k].prefix_changed});
    }
    std::printf("=> outputs at positions <= i are bit-identical for every i: %s\n", worst == 0 ? "yes" : "NO");
    p.m["causality_check"] = t.json();
}

// Step 4's two runs, the first --steps of the recipe with and without the mask.
void train_with_and_without(Phase4& p) {
    const lab::TrainConfig& r = p.recipe;
    std::printf("each run: the model's recipe (d_model %lld, %lld heads, %lld layers, T %lld, B %lld), its first %lld steps\n",
                (long long)r.d_model, (long long)r.n_heads, (long long)r.n_layers, (long long)r.context, (long long)r.batch,
                (long long)p.steps);
    p.masked = phase4::train_variant(r, {lab::MaskSpec::Kind::causal}, p.steps, kEntropyEvery);
    p.unmasked = phase4::train_variant(r, {lab::MaskSpec::Kind::none}, p.steps, p.steps);
    const std::string checkpoint = p.opt.text("checkpoint"), csv_path = lab::loss_csv_path(checkpoint);
    const bool have_csv = std::filesystem::exists(csv_path);  // absent if only the .safetensors was copied
    const std::int64_t same = have_csv ? phase4::matching_steps(read_file(csv_path), p.masked.curve) : -1;
    const std::string verdict = have_csv ? std::to_string(same) + " of " + std::to_string(p.steps) + " steps identical"
                                         : "no loss curve there to compare";
    std::printf("the run with the mask retraces the model's training (%s): %s\n", csv_path.c_str(), verdict.c_str());
    p.m["causality_experiment"] = Json::Object{{"steps", p.steps}, {"steps_identical_to_causal_model", same}};
}

void section4_break_causality(Phase4& p) {
    if (skipped_on_corpus(p, "4. Break causality", "it trains TinyGPT on the toy grammar and compares with its Bayes floor")) return;
    section("4. Break causality: the same TinyGPT trained with and without the mask");
    train_with_and_without(p);
    const double floor = p.masked.final_eval.floor;
    // run: the row's name in metrics.json, "trained_with_mask/eval_without_mask" and so on.
    lab::Table t({{"run", "", 0, -1, false}, {"trained", "trained", 12, -1}, {"evaluated", "evaluated", 12, -1},
                  {"val_loss", "val loss", 8, 3}, {"above_floor", "vs floor", 8, 3},
                  {"greedy_from_the_cat", "greedy continuation of the prompt", 40, -1}}, "  ");
    t.print_header();
    for (auto* run : {&p.masked, &p.unmasked}) {
        const bool trained_causal = run->model->config().causal;
        for (bool eval_causal : {true, false}) {
            auto model = phase4::with_mask(*run->model, eval_causal);
            const double loss = lab::evaluate(*model, lab::Task::causal).loss;
            const std::string gen = p.text(phase4::greedy_recompute(*model, p.prompt, 10, p.eos));
            const std::string trained = trained_causal ? "with mask" : "without mask", evaluated = eval_causal ? "with mask" : "without mask";
            const std::string run_name = std::string(trained_causal ? "trained_with_mask" : "trained_without_mask") +
                                         (eval_causal ? "/eval_with_mask" : "/eval_without_mask");
            t.row({run_name, trained, evaluated, loss, loss - floor, gen});
        }
    }
    Json& ce = p.m["causality_experiment"];
    const Json two_by_two = t.json_by("run");
    ce["bayes_floor"] = floor, ce["val_loss"] = two_by_two;
    ce["train_loss_last20_with_mask"] = phase4::final_train_loss(p.masked);
    ce["train_loss_last20_without_mask"] = phase4::final_train_loss(p.unmasked);
    lab::headline(p.m, "bayes_floor", floor, "Bayes floor");
    lab::headline(p.m, "val_loss_trained_with_mask_eval_with_mask", two_by_two.at("trained_with_mask/eval_with_mask").at("val_loss"),
                  "trained and evaluated with the mask");
    lab::headline(p.m, "val_loss_trained_without_mask_eval_with_mask", two_by_two.at("trained_without_mask/eval_with_mask").at("val_loss"),
                  "trained without, evaluated with");
    lab::headline(p.m, "train_loss_last20_without_mask", phase4::final_train_loss(p.unmasked), "training loss without the mask");
    std::printf("training loss (last 20 steps): with the mask %.3f, without %.3f (it sees its targets); Bayes floor %.3f\n",
                phase4::final_train_loss(p.masked), phase4::final_train_loss(p.unmasked), floor);
    std::vector<plots::Series> curves;
    for (auto* run : {&p.masked, &p.unmasked}) {
        plots::Series s{.name = run == &p.masked ? "trained with the mask" : "trained without (sees its targets)", .markers = false};
        for (const auto& pt : run->curve) s.x.push_back(double(pt.step)), s.y.push_back(pt.loss);
        curves.push_back(s);
    }
    curves.push_back({.name = "Bayes floor (validation)", .x = {1.0, double(p.steps)}, .y = {floor, floor},
                      .color = plots::palette::ink, .markers = false, .dashed = true});
    p.out.figure(plots::line_chart(curves, {.title = "Training loss with and without the causal mask", .x_title = "step",
                                            .y_title = "training loss (nats)"}), "causality_experiment",
                 "Phase 4: training loss with and without the causal mask (without it the model reads the answer).");
    std::vector<std::vector<std::string>> cells;
    for (const Json& r : t.json().as_array())
        cells.push_back({r.at("trained").as_string(), r.at("evaluated").as_string(), fixed3(r.at("val_loss").as_double()),
                         (r.at("above_floor").as_double() > 0 ? "+" : "") + fixed3(r.at("above_floor").as_double()),
                         p.prompt_text + " " + r.at("greedy_from_the_cat").as_string()});
    p.out.figure(plots::table_figure({"trained", "evaluated", "val loss", "vs floor", "greedy continuation"}, cells,
                                     {.title = "Train/test with and without the mask (floor " + fixed3(floor) + ")"}),
                 "causality_table",
                 "Phase 4: trained with or without the mask x evaluated with or without it: validation loss and a greedy continuation.");
}

void section5_generation(Phase4& p) {
    section("5. Generation from \"" + p.prompt_text + "\" (greedy), top-5 at each step");
    const nn::Generation g = nn::generate(p.gpt(), p.prompt, {.max_new_tokens = 20, .stop_token = p.eos});
    Json steps = Json::array();
    std::vector<std::int64_t> so_far = p.prompt;
    for (std::size_t k = 0; k < g.tokens.size(); ++k) {
        std::printf("  %-40s ->", p.text(so_far).c_str());
        Json top = Json::array();
        for (const auto& [id, prob] : phase4::top_probabilities(g.logits[k], 5)) {
            std::printf(" %s %.2f", p.labels({id})[0].c_str(), prob);
            top.push_back(Json::Object{{"token", p.labels({id})[0]}, {"p", prob}});
        }
        std::printf("\n");
        steps.push_back(top), so_far.push_back(g.tokens[k]);
    }
    std::printf("generated: %s\n", p.text(so_far).c_str());
    // The KV cache: same tokens, far less work. The model's context holds few learned positions, so a
    // 256-token run needs a model with context prompt + 256; its weights are random (untrained),
    // which changes nothing about the work a step does. Greedy, no stop token, median of 3 runs each.
    nn::TransformerConfig long_cfg = p.gpt().config();
    long_cfg.context = len(p.prompt) + 256;
    nn::Transformer long_gpt(long_cfg, p.recipe.seed);
    Json kv = Json::object();
    for (auto* model : {&p.gpt(), &long_gpt}) {
        const phase4::KVComparison c = phase4::compare_kv_cache(*model, p.prompt, 3);
        const bool trained = model == &p.gpt();
        std::printf("%s: %lld new tokens: with cache %.1f ms, without %.1f ms, speed-up %.1fx; same tokens: %s, max |logit difference| %.2g\n",
                    trained ? "the trained model" : ("random TinyGPT, context " + std::to_string(long_cfg.context)).c_str(),
                    (long long)c.new_tokens, c.ms_cached, c.ms_recomputed, c.ms_recomputed / c.ms_cached,
                    c.same_tokens ? "yes" : "NO", c.max_logit_diff);
        kv[trained ? "causal_model" : "context_259_random"] = Json::Object{
            {"new_tokens", c.new_tokens}, {"ms_with_cache", c.ms_cached}, {"ms_without_cache", c.ms_recomputed},
            {"speedup", c.ms_recomputed / c.ms_cached}, {"same_tokens", c.same_tokens}, {"max_logit_diff", c.max_logit_diff}};
    }
    p.m["generation"] = Json::Object{{"prompt", p.prompt_text}, {"text", p.text(so_far)}, {"top5", steps}, {"kv_cache", kv}};
    // "speedup" in the key: a timing, which make check-metrics leaves out as it does the one it repeats.
    lab::headline(p.m, "kv_cache_speedup_" + std::to_string(long_cfg.context - len(p.prompt)) + "_tokens",
                  kv["context_259_random"]["speedup"], "KV-cache speed-up, " + std::to_string(long_cfg.context - len(p.prompt)) + " tokens", 1);
}

void section6_padding(Phase4& p) {
    section("6. Padding and combined (causal AND padding) masks");
    // A corpus model: its sentence and the sentence's first half, so one of them is padded.
    const std::vector<std::vector<std::int64_t>> seqs =
        p.corpus ? std::vector<std::vector<std::int64_t>>{p.ids, {p.ids.begin(), p.ids.begin() + std::max<std::int64_t>(1, p.T / 2)}}
                 : std::vector<std::vector<std::int64_t>>{phase4::with_bos("the cat sat on the mat because it was comfortable"),
                                                          phase4::with_bos("the dog saw the cat")};
    const phase4::PaddedBatch padded = phase4::pad_batch(seqs);
    const Tensor& batch = padded.ids;                                      // [B=2, T] int64
    const std::vector<std::int64_t>& lengths = padded.lengths;
    const std::int64_t Tp = batch.size(1);
    const nn::Mask padding = nn::Mask::padding(lengths, Tp);              // [B, 1, T]
    const nn::Mask combined = nn::Mask::causal(Tp) & padding;             // [B, T, T]
    std::printf("lengths %lld and %lld, padded to T = %lld with <pad>\npadding mask (per sentence, keys):\n%s\n",
                (long long)lengths[0], (long long)lengths[1], (long long)Tp, to_string(padding.allowed()).c_str());
    std::printf("combined mask, sentence 2:\n%s\n", to_string(combined.allowed().select(0, 1)).c_str());
    Json pad_json = Json::object();
    std::vector<plots::Matrix> pad_panels, comb_panels;
    for (std::int64_t b = 0; b < 2; ++b) {
        pad_panels.push_back(to_matrix(expand(padding.allowed().select(0, b), {Tp, Tp})));
        comb_panels.push_back(to_matrix(combined.allowed().select(0, b)));
    }
    for (auto* model : {p.encoder.get(), &p.gpt()}) {  // padding alone (no causal mask), then combined
        const double padded_max = phase4::max_weight_on_padding(*model, batch, padding, lengths);
        NoGradGuard no_grad;  // the real tokens of sentence 2 are unchanged by the padding after them
        const Tensor batched = model->forward(batch, padding).select(0, 1).narrow(0, 0, lengths[1]);
        const double real_diff = phase4::max_abs_diff(batched, phase4::logits_of(*model, seqs[1]));
        const char* what = model == &p.gpt() ? "combined" : "padding";
        std::printf("%s mask: largest weight on a padded key, any layer and head: %g; sentence 2's logits vs "
                    "run alone: max |diff| %.2g\n", what, padded_max, real_diff);
        pad_json[what] = Json::Object{{"max_weight_on_padding", padded_max}, {"max_logit_diff_vs_unpadded", real_diff}};
    }
    p.m["padding"] = pad_json;
    const auto tokens = [&](std::int64_t n) {
        return p.corpus ? std::to_string(n) + " tokens" : "<bos> + " + std::to_string(n - 1) + " words";
    };
    plots::MaskChartOptions po{.panel_titles = {"sentence 1 (" + tokens(lengths[0]) + ")", "sentence 2 (" + tokens(lengths[1]) +
                                                    " + " + std::to_string(Tp - lengths[1]) + " <pad>)"}};
    for (std::int64_t b = 0; b < 2; ++b) {
        po.panel_row_labels.push_back(p.labels(batch.select(0, b).to_vector<std::int64_t>()));
        po.panel_col_labels.push_back(po.panel_row_labels.back());
    }
    po.title = "Padding mask: no query attends to <pad>";
    p.out.figure(plots::mask_chart(pad_panels, po), "padding_mask",
                 "Phase 4: padded key positions get exactly zero weight.");
    po.title = "Combined mask: causal AND padding";
    p.out.figure(plots::mask_chart(comb_panels, po), "combined_mask",
                 "Phase 4: causal and padding masks combined.");
}

void section7_custom_masks(Phase4& p, const std::vector<lab::MaskSpec>& variants) {
    std::string names;
    for (const lab::MaskSpec& v : variants) names += (names.empty() ? "" : ", ") + v.name();
    if (skipped_on_corpus(p, "7. Custom masks (" + names + ")", "each is trained on the toy grammar, as in step 4")) return;
    section("7. Custom masks (" + names + "), each trained as in step 4");
    const double floor = p.masked.final_eval.floor;
    std::vector<lab::TrainResult> runs;
    for (const lab::MaskSpec& v : variants) runs.push_back(phase4::train_variant(p.recipe, v, p.steps, p.steps));
    std::vector<plots::Matrix> panels;
    std::vector<std::string> titles;
    Json losses = Json::object();
    std::vector<std::pair<std::string, lab::TrainResult*>> all{{"full causal", &p.masked}};
    for (std::size_t i = 0; i < variants.size(); ++i) all.emplace_back(variants[i].name(), &runs[i]);
    for (auto [name, run] : all) {
        const double loss = run->final_eval.loss;
        std::printf("%-12s val loss after %lld steps: %.3f (%+.3f vs floor, %.1f s)\n", name.c_str(), (long long)p.steps,
                    loss, loss - floor, run->seconds);
        losses[name] = loss;
        const nn::Mask mask = run->model->attention_mask(p.T, p.T);
        const Tensor allowed = mask.empty() ? ones({p.T, p.T}) : mask.allowed();
        const Tensor w = mean(phase4::layer_weights(*run->model, row(p.ids), 0).select(0, 0), 0);  // [T, T]
        panels.push_back(to_matrix(masked_fill(w, eq(allowed, zeros({})), -INFINITY)));  // blocked: hatched
        titles.push_back(name + ": val loss " + fixed3(loss));
    }
    std::vector<lab::RunRecord> records;
    for (auto [name, run] : all) {
        records.push_back({name, {}, run->final_eval.accuracy, 1.0 / static_cast<double>(run->vocab.size())});
        for (const lab::TrainPoint& step : run->curve) records.back().losses.push_back(step.loss);
    }
    lab::print_untrained_warning(records);
    p.m["custom_masks"] = Json::Object{{"steps", p.steps}, {"bayes_floor", floor}, {"val_loss", losses}};
    for (std::size_t i = 0; i < variants.size(); ++i)
        lab::headline(p.m, "custom_mask_val_loss_" + variants[i].name(), losses[variants[i].name()], variants[i].name() + " mask: val loss");
    plots::HeatmapGridOptions co;
    co.title = "Custom masks: layer 1 attention (mean of " + std::to_string(p.gpt().config().n_heads) + " heads)";
    co.row_labels = co.col_labels = p.labels(p.ids);
    co.panel_titles = titles, co.columns = 3, co.vmin = 0, co.colormap = plots::Colormap::blues;
    co.mask_label = "blocked by the mask", co.colorbar_label = "attention weight";
    p.out.figure(plots::heatmap_grid(panels, co), "custom_masks",
                 "Phase 4: local and strided attention patterns of models trained with them.");
}

void section8_entropy_during_training(Phase4& p, const std::vector<std::string>& heads) {
    if (skipped_on_corpus(p, "8. Attention entropy during training", "it replays the standard training on the toy grammar")) return;
    section("8. Attention entropy during training, and pruning heads");
    // The recipe's whole run (causal_model's own training, replayed), not only step 4's first --steps.
    // The same replay reads the sentence at each evaluation for step 9: the run is trained once.
    const Tensor probe = data::make_lm_validation(data::toy_grammar(), 1, 16, p.recipe.context)[0].ids;  // (1, T)
    p.timeline.probe = p.ids;
    phase4::EntropyRun run = phase4::entropy_over_training(p.recipe, kEntropyEvery, probe, lab::recording(p.timeline));
    p.whole = std::move(run.run);
    const std::vector<double> trained = phase4::mean_entropy_per_head(p.gpt(), probe);  // the loaded checkpoint's
    const double last = run.steps.back();
    std::vector<plots::Series> es;
    for (std::size_t h = 0; h < heads.size(); ++h) {
        plots::Series s{.name = heads[h], .x = run.steps};
        for (const auto& e : run.entropy) s.y.push_back(e[h]);
        std::printf("%s mean entropy: step 0 %.3f -> step %lld %.3f nats (the checkpoint: %.3f)\n", heads[h].c_str(),
                    s.y.front(), (long long)last, s.y.back(), trained[h]);
        p.m["entropy_evolution"][heads[h]] = json_of(s.y);
        es.push_back(s);
    }
    const double uniform = phase4::uniform_causal_entropy(probe.size(1));
    es.push_back({.name = "uniform over allowed keys", .x = {0, last}, .y = {uniform, uniform},
                  .color = plots::palette::ink, .markers = false, .dashed = true});
    p.m["entropy_evolution"]["steps"] = json_of(run.steps);
    p.m["entropy_evolution"]["uniform_reference"] = uniform;
    p.m["entropy_evolution"]["checkpoint"] = json_of(trained);
    const std::string title = "Attention entropy per head over the whole training run (" + std::to_string((long long)last) + " steps)";
    p.out.figure(plots::line_chart(es, {.title = title, .x_title = "training step", .y_title = "entropy (nats)"}), "entropy_evolution",
                 "Phase 4: attention entropy per head over causal_model's whole training run, against uniform attention.");
}

// --prune each: one head off at a time (experiment 1). --prune L.H,L.H,...: those heads off
// one after another, each staying off, so the last bar is the model without all of them.
void section8_head_pruning(Phase4& p, const std::vector<std::string>& heads, const std::vector<std::size_t>& order) {
    if (skipped_on_corpus(p, "8. Pruning heads", "the loss it measures is on the toy grammar's validation set")) return;
    const double base = lab::evaluate(p.gpt(), lab::Task::causal).loss;
    std::vector<double> increase;
    std::vector<std::string> labels;
    if (order.empty()) {
        const std::vector<double> pruned = lab::pruning_losses(p.gpt(), phase4::grammar_val_loss);
        std::printf("val loss %.4f with all heads; switching off one head:\n", base);
        for (std::size_t h = 0; h < pruned.size(); ++h) {
            increase.push_back(pruned[h] - base), labels.push_back(heads[h]);
            std::printf("  %s off: %.4f (%+.4f)\n", heads[h].c_str(), pruned[h], increase.back());
        }
        p.m["head_pruning"] = Json::Object{{"base_val_loss", base}, {"heads", json_of(increase)}};
    } else {
        const std::vector<double> pruned = lab::cumulative_pruning_losses(p.gpt(), order, phase4::grammar_val_loss);
        std::printf("val loss %.4f with all heads; switching heads off one after another:\n", base);
        for (std::size_t k = 0; k < order.size(); ++k) {
            increase.push_back(pruned[k] - base), labels.push_back("+ " + heads[order[k]]);
            std::printf("  %s off too: %.4f (%+.4f)\n", heads[order[k]].c_str(), pruned[k], increase.back());
        }
        p.m["head_pruning"] = Json::Object{{"base_val_loss", base}, {"order", p.opt.text("prune")}, {"cumulative", json_of(increase)}};
    }
    p.out.figure(plots::bar_chart(labels, increase, {.title = order.empty() ? "Pruning: loss increase, one head off"
                                                                            : "Pruning: loss increase, heads off one after another",
                                                     .value_title = "validation loss increase (nats)",
                                                     .category_title = order.empty() ? "head switched off" : "",  // "+ L2 H1" says it
                                                     .horizontal = true, .decimals = 4}),
                 "head_pruning",
                 order.empty() ? "Phase 4: validation-loss increase when one head is switched off."
                                : "Phase 4: validation-loss increase as heads are switched off one after another (--prune order).");
}

// --prune as indices into head_names (layer-major): "each" gives none (one head at a time).
std::vector<std::size_t> prune_order(const lab::Options& opt, const std::vector<std::string>& heads) {
    if (opt.text("prune") == "each") return {};
    std::vector<std::size_t> order;
    for (const std::string& item : opt.word_list("prune")) {
        const std::string name = "L" + item.substr(0, item.find('.')) + " H" + item.substr(item.find('.') + 1);
        const auto it = std::find(heads.begin(), heads.end(), name);
        if (item.find('.') == std::string::npos || it == heads.end())
            opt.fail("prune", "'" + item + "' is not a head of this model (write layer.head from 1, e.g. 1.2; it has " +
                                  heads.front() + " to " + heads.back() + ")");
        order.push_back(static_cast<std::size_t>(it - heads.begin()));
    }
    return order;
}

}  // namespace

int main(int argc, char** argv) try {
    const auto t_start = std::chrono::steady_clock::now();
    lab::Options opt("phase4", "Phase 4: causal masking and autoregressive attention.");
    add_common_flags(opt, {.phase = "phase4", .model = "causal_model", .seed = lab::standard_config(lab::Task::causal).seed});
    opt.add("mask", "LIST", "local:2,strided:2", "masks step 7 trains beside the causal one: none, local:W, strided:S");
    opt.add("prune", "ORDER", "each", "heads step 8 switches off: each (one at a time) or layer.head,... (one after another)");
    opt.add("steps", "N", "200", "training steps of every run steps 4 and 7 compare");
    opt.parse(argc, argv);
    std::vector<lab::MaskSpec> variants;
    for (const std::string& spec : opt.word_list("mask")) {
        try {
            variants.push_back(lab::parse_mask(spec));
        } catch (const ValueError& e) {
            opt.usage_error(e.what());
        }
        if (variants.back().kind == lab::MaskSpec::Kind::causal)
            opt.fail("mask", "causal is always trained, as every comparison's reference: list the others (none, local:W, strided:S)");
    }
    Phase4 p(opt);
    p.steps = opt.integer("steps", kEntropyEvery, 100000);
    section0_model_and_sentence(p);
    const std::vector<std::size_t> order = prune_order(opt, phase4::head_names(p.gpt()));
    section1_causal_mask(p);
    section2_bidirectional_vs_causal(p);
    section3_verify_causality(p);
    section4_break_causality(p);
    section5_generation(p);
    phase4::section5b_complexity(p, p.gpt().config(), len(p.prompt));
    section6_padding(p);
    section7_custom_masks(p, variants);
    section8_entropy_during_training(p, phase4::head_names(p.gpt()));
    section8_head_pruning(p, phase4::head_names(p.gpt()), order);
    if (!skipped_on_corpus(p, "8b. Pruning to the minimum", "it measures the loss on the toy grammar's validation set"))
        phase4::section8b_pruning_to_minimum(p, p.gpt());
    if (!skipped_on_corpus(p, "9. Attention while it learns", "it replays the standard training on the toy grammar"))
        phase4::section9_attention_while_it_learns(p, p.timeline, p.whole, p.ckpt.info.vocab);
    if (!skipped_on_corpus(p, "10. The experimental setting", "it trains a model of the toy grammar"))
        phase4::section10_experimental_setting(p, p.steps * 6 / 10);  // d_model 128, H 8, 32 tokens
    phase4::section11_whole_model_graph(p, p.gpt(), p.ids, opt.text("checkpoint"));
    p.m["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    p.out.save_metrics();
    std::printf("phase 4 done in %.1f s\n", p.m["seconds"].as_double());
} catch (const std::exception& e) {  // none of the sections expected it: say what, exit 1
    return phase::unexpected_error(argv[0], e);
}
