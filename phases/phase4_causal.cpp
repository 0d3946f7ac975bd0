// phase4_causal.cpp — Seed 000, Phase 4: causal masking and autoregressive attention.
//
// `make phase4` runs it and writes out/phase4/ (figures as SVG + PNG, metrics.json).
// It follows the seed: the mask and its −∞ form; the same attention with and
// without it; proof that the future cannot leak; what happens when training or
// testing breaks causality; generation one token at a time (and the KV cache);
// padding and combined masks; custom masks; entropy during training and head pruning.
// Also writes out/data/phase4_causal_weights.npy for the summary sheet.
// The models: the trained causal_model (out/checkpoints/, trained here if missing)
// and four short TinyGPT runs that differ only in their mask (phase4_experiments.hpp).
#include <chrono>
#include <cmath>
#include <filesystem>

#include "data/lm_batches.hpp"
#include "nn/generate.hpp"
#include "phases/phase4_experiments.hpp"
#include "phases/phase_common.hpp"
#include "plots/bar_chart.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"
#include "plots/mask_chart.hpp"
#include "plots/table.hpp"
#include "tensor/fileio.hpp"

using namespace attnlab;
using namespace attnlab::phase;
using phase4::fixed3;
using phase4::json_of;
using phase4::len;
using phase4::row;
using phase4::text_of;
using phase4::token_labels;

// causal_model's seed (lab::standard_config), which every run below reuses: the causal one retraces it.
const std::uint64_t kSeed = lab::standard_config(lab::Task::causal).seed;
constexpr std::int64_t kCompareSteps = 200;   // steps of each compared TinyGPT (the causal_model recipe, stopped early)
constexpr std::int64_t kEntropyEvery = 25;    // record attention entropy every N steps
constexpr std::int64_t kEos = data::Vocab::kEos;

int main() {
    const auto t_start = std::chrono::steady_clock::now();
    std::printf("Phase 4: causal masking and autoregressive attention (seed %llu)\n", (unsigned long long)kSeed);
    Output out("out/phase4");
    Json& m = out.metrics();
    m["seed"] = static_cast<std::int64_t>(kSeed);
    nn::LoadedCheckpoint ckpt = lab::load_or_train(lab::Task::causal);
    nn::Transformer& gpt = *ckpt.model;
    const std::vector<std::int64_t> ids = phase4::with_bos(kToySentence);  // rows start with <bos> in training
    const std::int64_t T = len(ids);

    // ---- 1. The causal mask: lower triangle allowed, upper blocked; −∞ where blocked
    section("1. The causal mask (6 x 6)");
    const nn::Mask causal6 = nn::Mask::causal(6);
    std::printf("allowed (1 = may attend, 0 = blocked); row = query i, column = key j:\n%s\n",
                to_string(causal6.allowed()).c_str());
    std::printf("additive form, added to the scores before softmax:\n%s\n", to_string(causal6.additive()).c_str());
    std::printf("softmax([2, -inf, 3]) = %s: the blocked score gets exactly 0 (a score of 0 would get %.2f)\n",
                to_string(softmax(tensor({2.0, -INFINITY, 3.0}), -1)).c_str(),
                softmax(tensor({2.0, 0.0, 3.0}), -1).at({1}));
    out.figure(plots::mask_chart({to_matrix(causal6.allowed())}, {.title = "Causal mask: query i sees keys j <= i",
                                                                  .row_labels = words(kToySentence),
                                                                  .col_labels = words(kToySentence)}),
               "causal_mask");

    // ---- 2. Bidirectional vs causal: same input, same weights, layer 1 of causal_model
    section("2. Bidirectional vs causal attention (causal_model, layer 1, mean of its heads)");
    auto encoder = phase4::with_mask(gpt, /*causal=*/false);  // the same weights without the mask
    const Tensor full = mean(phase4::layer_weights(*encoder, row(ids), 0).select(0, 0), 0);  // [T, T]
    const Tensor causal = mean(phase4::layer_weights(gpt, row(ids), 0).select(0, 0), 0);    // [T, T]
    const double upper_max = max(abs(triu(causal, 1))).item(), future = sum(triu(full, 1)).item() / double(T);
    std::printf("causal panel: largest weight above the diagonal = %g (exactly zero: %s)\n", upper_max,
                upper_max == 0 ? "yes" : "NO");
    std::printf("full panel: weight a query gives to later tokens, mean %.3f\n", future);
    // Checked to be exactly 0 above, the upper triangle is drawn hatched (−∞ means "masked" to the heatmap).
    const plots::Matrix causal_m = to_matrix(masked_fill(causal, triu(ones({T, T}), 1), -INFINITY));
    plots::HeatmapGridOptions bo;
    bo.title = "Same input, same weights: full vs causal attention";
    bo.row_labels = bo.col_labels = token_labels(ids);
    bo.panel_titles = {"bidirectional (no mask)", "causal (upper triangle = 0)"};
    bo.annotate = true, bo.columns = 2, bo.vmin = 0, bo.colormap = plots::Colormap::blues;
    bo.mask_label = "blocked by the causal mask: weight exactly 0";
    bo.colorbar_label = "attention weight (mean of 4 heads)";
    out.figure(plots::heatmap_grid({to_matrix(full), causal_m}, bo), "bidirectional_vs_causal");
    m["bidirectional_vs_causal"] =
        Json::Object{{"causal_upper_triangle_max", upper_max}, {"full_mean_future_weight", future}};
    save_key_matrix("phase4_causal_weights", causal, token_labels(ids), token_labels(ids));

    // ---- 3. Verify causality (seed experiment 1): the future cannot change the past
    section("3. Verify causality: change or shuffle every token after position i");
    const std::vector<std::int64_t> long_ids = phase4::with_bos("the cat sat on the mat because it was comfortable");
    std::printf("sequence: %s\nmax |change in logits| at positions <= i, and after i (changed tokens):\n",
                text_of(long_ids).c_str());
    std::printf("  %2s %-12s %12s %12s %12s  %s\n", "i", "token i", "changed <=i", "shuffled <=i", "changed >i",
                "same weights, no mask: changed <=i");
    const auto rows = phase4::check_causality(gpt, long_ids), leaks = phase4::check_causality(*encoder, long_ids);
    double worst = 0;
    Json causality = Json::array();
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto& r = rows[k];
        worst = std::max({worst, r.prefix_changed, r.prefix_shuffled});
        std::printf("  %2lld %-12s %12g %12g %12.3f  %g\n", (long long)r.i, token_labels(long_ids)[r.i].c_str(),
                    r.prefix_changed, r.prefix_shuffled, r.after_changed, leaks[k].prefix_changed);
        causality.push_back(Json::Object{{"i", r.i}, {"prefix_changed", r.prefix_changed},
                                         {"prefix_shuffled", r.prefix_shuffled}, {"after_changed", r.after_changed},
                                         {"no_mask_prefix_changed", leaks[k].prefix_changed}});
    }
    std::printf("=> outputs at positions <= i are bit-identical for every i: %s\n", worst == 0 ? "yes" : "NO");
    m["causality_check"] = causality;

    // ---- 4. Break causality (experiments 2 and 3): train with and without the mask
    section("4. Break causality: the same TinyGPT trained with and without the mask");
    std::printf("each run: causal_model's recipe (d_model 64, 4 heads, 2 layers, T 32, B 16), its first %lld steps\n",
                (long long)kCompareSteps);
    const Tensor probe = data::make_lm_validation(data::toy_grammar(), 1, 16, 32)[0].ids;  // entropy is measured on it
    std::vector<double> entropy_steps;
    std::vector<std::vector<double>> entropy;  // [record][head]
    auto record = [&](std::int64_t step, nn::Transformer& model) {
        entropy_steps.push_back(double(step)), entropy.push_back(phase4::mean_entropy_per_head(model, probe));
    };
    lab::TrainResult masked = phase4::train_variant({"causal"}, kCompareSteps, kEntropyEvery, record);
    lab::TrainResult unmasked = phase4::train_variant({"no mask", false}, kCompareSteps, kCompareSteps);
    const double floor = masked.final_eval.floor;
    const std::string csv_path = lab::loss_csv_path("out/checkpoints/causal_model.safetensors");
    const bool have_csv = std::filesystem::exists(csv_path);  // absent if only the .safetensors was copied
    const std::int64_t same_steps = have_csv ? phase4::matching_steps(read_file(csv_path), masked.curve) : -1;
    const std::string verdict = have_csv ? std::to_string(same_steps) + " of " + std::to_string(kCompareSteps) +
                                               " steps identical" : "no loss curve there to compare";
    std::printf("the run with the mask retraces causal_model's training (%s): %s\n", csv_path.c_str(), verdict.c_str());
    const std::vector<std::int64_t> prompt = phase4::with_bos("the cat");
    std::vector<std::vector<std::string>> table;
    Json two_by_two = Json::object();
    for (auto* run : {&masked, &unmasked}) {
        const bool trained_causal = run->model->config().causal;
        std::printf("trained %s mask: %.1f s, training loss (last 20 steps) %.3f, Bayes floor %.3f\n",
                    trained_causal ? "with" : "without", run->seconds, phase4::final_train_loss(*run), floor);
        for (bool eval_causal : {true, false}) {
            auto model = phase4::with_mask(*run->model, eval_causal);
            const double loss = lab::evaluate(*model, lab::Task::causal).loss;
            const std::string gen = text_of(phase4::greedy_recompute(*model, prompt, 10, kEos));
            std::printf("  evaluated %-12s val loss %.3f (%+.3f vs floor)  greedy: the cat | %s\n",
                        eval_causal ? "with mask:" : "without:", loss, loss - floor, gen.c_str());
            const std::string key = std::string(trained_causal ? "trained_with_mask" : "trained_without_mask") +
                                    (eval_causal ? "/eval_with_mask" : "/eval_without_mask");
            two_by_two[key] = Json::Object{{"val_loss", loss}, {"greedy_from_the_cat", gen}};
            table.push_back({trained_causal ? "with mask" : "without mask", eval_causal ? "with mask" : "without mask",
                             fixed3(loss), (loss > floor ? "+" : "") + fixed3(loss - floor), "the cat " + gen});
        }
    }
    m["causality_experiment"] = Json::Object{
        {"steps", kCompareSteps}, {"steps_identical_to_causal_model", same_steps}, {"bayes_floor", floor},
        {"val_loss", two_by_two}, {"train_loss_last20_with_mask", phase4::final_train_loss(masked)},
        {"train_loss_last20_without_mask", phase4::final_train_loss(unmasked)}};
    std::vector<plots::Series> curves;
    for (auto* run : {&masked, &unmasked}) {
        plots::Series s{.name = run == &masked ? "trained with the mask" : "trained without (sees its targets)"};
        for (const auto& p : run->curve) s.x.push_back(double(p.step)), s.y.push_back(p.loss);
        s.markers = false, curves.push_back(s);
    }
    curves.push_back({.name = "Bayes floor (validation)", .x = {1.0, double(kCompareSteps)}, .y = {floor, floor},
                      .color = plots::palette::ink, .markers = false, .dashed = true});
    out.figure(plots::line_chart(curves, {.title = "Training loss with and without the causal mask",
                                          .x_title = "step", .y_title = "training loss (nats)"}),
               "causality_experiment");
    out.figure(plots::table_figure({"trained", "evaluated", "val loss", "vs floor", "greedy continuation"}, table,
                                   {.title = "Train/test with and without the mask (floor " + fixed3(floor) + ")"}),
               "causality_table");

    // ---- 5. Autoregressive generation with causal_model, and the KV cache
    section("5. Generation from \"the cat\" (causal_model, greedy), top-5 at each step");
    const nn::Generation g = nn::generate(gpt, prompt, {.max_new_tokens = 20, .stop_token = kEos});
    Json steps = Json::array();
    std::vector<std::int64_t> so_far = prompt;
    for (std::size_t k = 0; k < g.tokens.size(); ++k) {
        std::printf("  %-40s ->", text_of(so_far).c_str());
        Json top = Json::array();
        for (const auto& [id, p] : phase4::top_probabilities(g.logits[k], 5)) {
            std::printf(" %s %.2f", token_labels({id})[0].c_str(), p);
            top.push_back(Json::Object{{"token", token_labels({id})[0]}, {"p", p}});
        }
        std::printf("\n");
        steps.push_back(top), so_far.push_back(g.tokens[k]);
    }
    std::printf("generated: %s\n", text_of(so_far).c_str());
    // The KV cache: same tokens, far less work. causal_model's context is 32 learned positions, so a
    // 256-token run needs a model with context 3 + 256 = 259; its weights are random (untrained),
    // which changes nothing about the work a step does. Greedy, no stop token, median of 3 runs each.
    nn::TransformerConfig long_cfg = gpt.config();
    long_cfg.context = len(prompt) + 256;
    nn::Transformer long_gpt(long_cfg, kSeed);
    Json kv = Json::object();
    for (auto* model : {&gpt, &long_gpt}) {
        const phase4::KVComparison c = phase4::compare_kv_cache(*model, prompt, 3);
        const bool trained = model == &gpt;
        std::printf("%s: %lld new tokens: with cache %.1f ms, without %.1f ms, speed-up %.1fx; same tokens: %s, "
                    "max |logit difference| %.2g\n",
                    trained ? "causal_model (trained, context 32)" : "random TinyGPT, context 259",
                    (long long)c.new_tokens, c.ms_cached, c.ms_recomputed, c.ms_recomputed / c.ms_cached,
                    c.same_tokens ? "yes" : "NO", c.max_logit_diff);
        kv[trained ? "causal_model" : "context_259_random"] = Json::Object{
            {"new_tokens", c.new_tokens}, {"ms_with_cache", c.ms_cached}, {"ms_without_cache", c.ms_recomputed},
            {"speedup", c.ms_recomputed / c.ms_cached}, {"same_tokens", c.same_tokens},
            {"max_logit_diff", c.max_logit_diff}};
    }
    m["generation"] = Json::Object{{"prompt", "the cat"}, {"text", text_of(so_far)}, {"top5", steps}, {"kv_cache", kv}};

    // ---- 6. Padding and combined masks: a batch of two sentences of different length
    section("6. Padding and combined (causal AND padding) masks");
    const std::vector<std::vector<std::int64_t>> seqs{
        phase4::with_bos("the cat sat on the mat because it was comfortable"), phase4::with_bos("the dog saw the cat")};
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
    for (auto* model : {encoder.get(), &gpt}) {  // padding alone (no causal mask), then combined
        const double padded_max = phase4::max_weight_on_padding(*model, batch, padding, lengths);
        NoGradGuard no_grad;  // the real tokens of sentence 2 are unchanged by the padding after them
        const Tensor batched = model->forward(batch, padding).select(0, 1).narrow(0, 0, lengths[1]);
        const double real_diff = phase4::max_abs_diff(batched, phase4::logits_of(*model, seqs[1]));
        const char* what = model == &gpt ? "combined" : "padding";
        std::printf("%s mask: largest weight on a padded key, any layer and head: %g; sentence 2's logits vs "
                    "run alone: max |diff| %.2g\n", what, padded_max, real_diff);
        pad_json[what] = Json::Object{{"max_weight_on_padding", padded_max}, {"max_logit_diff_vs_unpadded", real_diff}};
    }
    m["padding"] = pad_json;
    plots::MaskChartOptions po{.panel_titles = {"sentence 1 (<bos> + 10 words)",
                                                "sentence 2 (<bos> + 5 words + 5 <pad>)"}};
    for (std::int64_t b = 0; b < 2; ++b) {
        po.panel_row_labels.push_back(token_labels(batch.select(0, b).to_vector<std::int64_t>()));
        po.panel_col_labels.push_back(po.panel_row_labels.back());
    }
    po.title = "Padding mask: no query attends to <pad>";
    out.figure(plots::mask_chart(pad_panels, po), "padding_mask");
    po.title = "Combined mask: causal AND padding";
    out.figure(plots::mask_chart(comb_panels, po), "combined_mask");

    // ---- 7. Custom masks (Experiments to Try 4): local ±2 and strided attention
    section("7. Custom masks: local +-2 and strided (every 2nd position), both also causal");
    lab::TrainResult local = phase4::train_variant({"local", true, 2, 0}, kCompareSteps, kCompareSteps);
    lab::TrainResult strided = phase4::train_variant({"strided", true, 0, 2}, kCompareSteps, kCompareSteps);
    std::vector<plots::Matrix> custom;
    std::vector<std::string> titles;
    Json custom_json = Json::object();
    for (auto [name, run] : {std::pair{"full causal", &masked}, {"local +-2", &local}, {"strided 2", &strided}}) {
        const double loss = run->final_eval.loss;
        std::printf("%-12s val loss after %lld steps: %.3f (%+.3f vs floor, %.1f s)\n", name, (long long)kCompareSteps,
                    loss, loss - floor, run->seconds);
        custom_json[name] = loss;
        const Tensor allowed = run->model->attention_mask(T, T).allowed();
        const Tensor w = mean(phase4::layer_weights(*run->model, row(ids), 0).select(0, 0), 0);  // [T, T]
        custom.push_back(to_matrix(masked_fill(w, eq(allowed, zeros({})), -INFINITY)));  // blocked: hatched
        titles.push_back(std::string(name) + ": val loss " + fixed3(loss));
    }
    m["custom_masks"] = Json::Object{{"steps", kCompareSteps}, {"bayes_floor", floor}, {"val_loss", custom_json}};
    plots::HeatmapGridOptions co;
    co.title = "Custom masks: layer 1 attention (mean of 4 heads)";
    co.row_labels = co.col_labels = token_labels(ids);
    co.panel_titles = titles, co.columns = 3, co.vmin = 0, co.colormap = plots::Colormap::blues;
    co.mask_label = "blocked by the mask", co.colorbar_label = "attention weight";
    out.figure(plots::heatmap_grid(custom, co), "custom_masks");

    // ---- 8. Attention entropy during training (experiment 3) and head pruning (experiment 1)
    section("8. Attention entropy during training, and pruning one head at a time");
    const std::vector<std::string> heads = phase4::head_names(gpt);
    std::vector<plots::Series> es;
    for (std::size_t h = 0; h < heads.size(); ++h) {
        plots::Series s{.name = heads[h], .x = entropy_steps};
        for (const auto& e : entropy) s.y.push_back(e[h]);
        std::printf("%s mean entropy: step 0 %.3f -> step %lld %.3f nats\n", heads[h].c_str(), s.y.front(),
                    (long long)kCompareSteps, s.y.back());
        m["entropy_evolution"][heads[h]] = json_of(s.y);
        es.push_back(s);
    }
    const double uniform = phase4::uniform_causal_entropy(probe.size(1));
    es.push_back({.name = "uniform over allowed keys", .x = {0, double(kCompareSteps)}, .y = {uniform, uniform},
                  .color = plots::palette::ink, .markers = false, .dashed = true});
    m["entropy_evolution"]["steps"] = json_of(entropy_steps);
    m["entropy_evolution"]["uniform_reference"] = uniform;
    const std::string entropy_title = "Attention entropy per head: causal_model's first " +
                                      std::to_string(kCompareSteps) + " steps";
    out.figure(plots::line_chart(es, {.title = entropy_title,
                                      .x_title = "training step", .y_title = "entropy (nats)"}),
               "entropy_evolution");

    const double base = lab::evaluate(gpt, lab::Task::causal).loss;
    const std::vector<double> pruned = phase4::pruning_losses(gpt);
    std::vector<double> increase;
    std::printf("causal_model val loss %.4f with all heads; switching off one head:\n", base);
    for (std::size_t h = 0; h < pruned.size(); ++h) {
        increase.push_back(pruned[h] - base);
        std::printf("  %s off: %.4f (%+.4f)\n", heads[h].c_str(), pruned[h], increase.back());
    }
    m["head_pruning"] = Json::Object{{"base_val_loss", base}, {"heads", json_of(increase)}};
    out.figure(plots::bar_chart(heads, increase, {.title = "Pruning causal_model: loss increase, one head off",
                                                  .value_title = "validation loss increase (nats)",
                                                  .category_title = "head switched off", .horizontal = true,
                                                  .decimals = 4}),
               "head_pruning");

    m["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    out.save_metrics();
    std::printf("phase 4 done in %.1f s\n", m["seconds"].as_double());
}
