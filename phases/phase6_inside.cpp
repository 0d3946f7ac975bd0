// phase6_inside.cpp — Phase 6: look inside a trained model. Induction heads, forming.
//
// `make phase6` runs it and writes out/phase6/ (figures as SVG + PNG, a GIF, metrics.json).
// A two-layer attention-only transformer (nn::TransformerConfig::attention_only) learns rows
// of random tokens whose first n tokens repeat right after them, n drawn per row
// (experiments/induction_experiment.hpp). Its loss on the repeats stays near ln V for a while,
// then collapses within a few hundred steps: at that moment a layer-1 head starts attending to
// the previous token and a layer-2 head starts attending to the token after the current
// token's previous occurrence (analyses/induction.hpp). The phase draws that moment, the two
// heads before and after it, and proves the circuit by ablation: switching the previous-token
// head off undoes the induction head.
// Section 2 patches activations of the grammar's causal model (phases/phase6_patching.hpp): which
// heads carry the subject's number to the verb that agrees with it, and whether the noun in
// between competes. Sections 3 and 4 open the same model: the logit lens reads its residual
// stream after every layer against the grammar's exact next word (phases/phase6_lens.hpp), and
// temperature, top-k and top-p reshape its next-token distribution (phases/phase6_sampling.hpp).
// `phase6 --help` lists the settings: the seed, the training steps and learning rate, the causal
// model (--checkpoint) and the agreement sentence section 2 patches (--sentence), --out.
// Also writes out/data/phase6_induction_head.npy (the induction head's attention) for the summary sheet.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "analyses/induction.hpp"
#include "app/report.hpp"
#include "experiments/induction_experiment.hpp"
#include "phases/phase6_lens.hpp"
#include "phases/phase6_patching.hpp"
#include "phases/phase6_sampling.hpp"
#include "phases/phase_common.hpp"
#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"

using namespace attnlab;
using namespace attnlab::phase;

namespace {

struct Phase6 : Frame {
    explicit Phase6(const lab::Options& o) : Frame(o, "phase6") {}
    lab::InductionRun run;
    std::int64_t collapse = -1;  // index into run.evals of the moment the repeats are learnt
    lab::HeadId induction{1, 0}, previous{0, 0};
};

std::string head_name(lab::HeadId h) { return "L" + std::to_string(h.layer + 1) + " H" + std::to_string(h.head + 1); }

double uniform(const Phase6& p) { return lab::uniform_causal_score(p.run.config.task.length); }

// The first evaluation row's tokens, as the heatmaps' labels.
std::vector<std::string> row_labels(const Phase6& p) {
    std::vector<std::string> labels;
    for (std::int64_t id : p.run.eval.ids.select(0, 0).to_vector<std::int64_t>()) labels.push_back(std::to_string(id));
    return labels;
}

// The loss on each half, with the moment the repeats are learnt drawn as a dashed line.
plots::Figure loss_chart(const Phase6& p, const lab::Table& t) {
    std::vector<plots::Series> s{t.series("step", "loss_first", {.name = "first half (cannot be predicted)"}),
                                 t.series("step", "loss_repeated", {.name = "repeated half"})};
    if (p.collapse >= 0) {
        const double x = double(p.run.evals[static_cast<std::size_t>(p.collapse)].step);
        s.push_back({.name = "repeats learnt (step " + std::to_string(std::int64_t(x)) + ")", .x = {x, x},
                     .y = {0.0, std::log(double(p.run.config.task.vocab)) + 0.5}, .markers = false, .dashed = true});
    }
    return plots::line_chart(s, {.title = "Loss on each half of the rows", .x_title = "step", .y_title = "loss (nats)"});
}

// Each head's score over training, one line per head, one panel per layer and score.
plots::Figure score_charts(const Phase6& p) {
    std::vector<plots::Figure> panels;
    const auto& evals = p.run.evals;
    for (const bool induction : {false, true})
        for (std::size_t l = 0; l < evals.front().previous.size(); ++l) {
            std::vector<plots::Series> s;
            for (std::size_t h = 0; h < evals.front().previous[l].size(); ++h) {
                plots::Series line{.name = head_name({std::int64_t(l), std::int64_t(h)}), .markers = false};
                for (const auto& e : evals)
                    line.x.push_back(double(e.step)), line.y.push_back(induction ? e.induction[l][h] : e.previous[l][h]);
                s.push_back(line);
            }
            const std::string what = induction ? "induction score" : "previous-token score";
            panels.push_back(plots::line_chart(s, {.title = "Layer " + std::to_string(l + 1) + ": " + what, .x_title = "step",
                                                   .y_title = what, .plot_width = 320, .plot_height = 200}));
        }
    return plots::figure_grid(panels, {.columns = 2});
}

// The previous-token head and the induction head on the first evaluation row at evaluation i.
plots::Figure two_heads(const Phase6& p, std::size_t i, const std::string& title) {
    const lab::InductionEval& e = p.run.evals[i];
    plots::HeatmapGridOptions o;
    o.title = title + " (step " + std::to_string(e.step) + ", a row repeating its first " +
              std::to_string(p.run.eval.n.front()) + " tokens)";
    o.row_labels = o.col_labels = row_labels(p), o.vmin = 0.0, o.vmax = 1.0, o.columns = 2, o.colorbar_label = "weight";
    o.colormap = plots::Colormap::blues;
    o.panel_titles = {head_name(p.previous) + ": previous-token head", head_name(p.induction) + ": induction head"};
    auto head = [&](lab::HeadId h) { return to_matrix(e.attention[static_cast<std::size_t>(h.layer)].select(0, h.head)); };
    return plots::heatmap_grid({head(p.previous), head(p.induction)}, o);
}

void section1_induction_heads_forming(Phase6& p) {
    section("1. Induction heads, forming");
    const lab::InductionConfig& c = p.run.config;
    std::printf("%lld-layer attention-only transformer, d_model %lld, %lld heads; rows of %lld tokens of %lld, the first n "
                "(n from %lld to %lld) repeated; AdamW lr %g, batch %lld, %lld steps\n",
                (long long)c.n_layers, (long long)c.d_model, (long long)c.n_heads, (long long)c.task.length,
                (long long)c.task.vocab, (long long)c.task.min_n, (long long)c.task.max_n, c.lr, (long long)c.batch,
                (long long)c.steps);
    p.run = lab::train_induction(c);
    const auto& evals = p.run.evals;
    p.collapse = lab::collapse_index(evals);
    p.induction = lab::best_head(evals.back().induction, c.n_layers - 1);
    p.previous = lab::best_head(evals.back().previous, 0);
    lab::Table t({{"step", "step", 6, -1},
                  {"loss_first", "loss 1st half", 13, 3},
                  {"loss_repeated", "loss repeats", 12, 3},
                  {"previous", "prev " + head_name(p.previous), 11, 3},
                  {"induction", "ind " + head_name(p.induction), 10, 3}});
    t.print_header();
    for (const auto& e : evals)
        t.row({e.step, e.loss_first, e.loss_repeated, e.previous[0][static_cast<std::size_t>(p.previous.head)],
               e.induction[static_cast<std::size_t>(p.induction.layer)][static_cast<std::size_t>(p.induction.head)]});
    const std::size_t before = p.collapse > 0 ? static_cast<std::size_t>(p.collapse - 1) : 0, after = evals.size() - 1;
    if (p.collapse < 0) std::printf("the repeated half's loss never fell below half the first half's in %lld steps\n", (long long)c.steps);
    else std::printf("the repeats are learnt at step %lld: loss on them %.3f -> %.3f; %s's induction score %.3f -> %.3f "
                     "(uniform attention: %.3f), %s's previous-token score %.3f -> %.3f\n",
                     (long long)evals[static_cast<std::size_t>(p.collapse)].step, evals[before].loss_repeated,
                     evals[after].loss_repeated, head_name(p.induction).c_str(),
                     evals[before].induction[static_cast<std::size_t>(p.induction.layer)][static_cast<std::size_t>(p.induction.head)],
                     evals[after].induction[static_cast<std::size_t>(p.induction.layer)][static_cast<std::size_t>(p.induction.head)],
                     uniform(p), head_name(p.previous).c_str(), evals[before].previous[0][static_cast<std::size_t>(p.previous.head)],
                     evals[after].previous[0][static_cast<std::size_t>(p.previous.head)]);
    Json heads = Json::array();
    for (std::size_t l = 0; l < evals.back().previous.size(); ++l)
        for (std::size_t h = 0; h < evals.back().previous[l].size(); ++h)
            heads.push_back(Json::Object{{"head", head_name({std::int64_t(l), std::int64_t(h)})},
                                         {"previous", evals.back().previous[l][h]}, {"induction", evals.back().induction[l][h]}});
    p.m["induction"] = Json::Object{{"evaluations", t.json()},
                                    {"collapse_step", p.collapse < 0 ? Json(-1) : Json(evals[static_cast<std::size_t>(p.collapse)].step)},
                                    {"uniform_score", uniform(p)},
                                    {"induction_head", head_name(p.induction)},
                                    {"previous_token_head", head_name(p.previous)},
                                    {"final_heads", heads},
                                    {"final", Json::Object{{"loss_first", evals.back().loss_first},
                                                           {"loss_repeated", evals.back().loss_repeated},
                                                           {"induction_score", t.column("induction").back()},
                                                           {"previous_token_score", t.column("previous").back()}}},
                                    {"train_seconds", p.run.seconds}};
    const Json final = p.m.at("induction").at("final");
    lab::headline(p.m, "collapse_step", p.m.at("induction").at("collapse_step"), "step at which the repeats are learnt", 0);
    lab::headline(p.m, "loss_repeated", final.at("loss_repeated"), "loss on the repeated half");
    lab::headline(p.m, "induction_score", final.at("induction_score"), "induction score of the induction head");
    lab::headline(p.m, "previous_token_score", final.at("previous_token_score"), "previous-token score of its partner");
    p.out.figure(loss_chart(p, t), "induction_loss",
                 "Phase 6: loss on the first (random) and the repeated half of each row; the dashed line marks the "
                 "evaluation at which the repeats' loss falls below half the first half's.");
    p.out.figure(score_charts(p), "induction_scores",
                 "Phase 6: each head's previous-token score (attention to i - 1) and induction score (attention to the "
                 "token after the current token's previous occurrence) over training.");
    p.out.figure(plots::figure_grid({two_heads(p, before, "Before"), two_heads(p, after, "After")}, {.columns = 1}),
                 "induction_heads_before_after",
                 "Phase 6: the previous-token head and the induction head on one evaluation row, just before the "
                 "repeats are learnt and at the end of training.");
    save_key_matrix("phase6_induction_head", evals.back().attention[static_cast<std::size_t>(p.induction.layer)].select(0, p.induction.head),
                    row_labels(p), row_labels(p), p.out.root());
    std::vector<plots::Figure> frames;
    for (std::size_t i = 0; i < evals.size(); ++i) frames.push_back(two_heads(p, i, "Training"));
    p.out.animation(frames, "induction_heads_animated",
                    "Phase 6: the previous-token head and the induction head at every evaluation of training.", 25);
}

// Which layer-1 head feeds the induction head: switch each off and watch the induction score.
void section1b_ablation(Phase6& p) {
    section("1b. Which layer-1 head feeds " + head_name(p.induction) + "? Switch each off");
    const lab::InductionEval& base = p.run.evals.back();
    const auto ind = [&](const lab::InductionEval& e) {
        return e.induction[static_cast<std::size_t>(p.induction.layer)][static_cast<std::size_t>(p.induction.head)];
    };
    lab::Table t({{"head", "off", 6, -1},
                  {"previous", "its prev score", 14, 3},
                  {"induction", "ind " + head_name(p.induction), 10, 3},
                  {"loss_repeated", "loss repeats", 12, 3}});
    t.print_header();
    t.row({"none", 0.0, ind(base), base.loss_repeated});
    lab::HeadId feeder{0, 0};
    double lowest = INFINITY;
    for (std::int64_t h = 0; h < p.run.config.n_heads; ++h) {
        const lab::InductionEval off = lab::ablate_head(*p.run.model, p.run.eval, {0, h}, base.step);
        t.row({head_name({0, h}), base.previous[0][static_cast<std::size_t>(h)], ind(off), off.loss_repeated});
        if (ind(off) < lowest) lowest = ind(off), feeder = {0, h};
    }
    std::printf("%s feeds %s: without it the induction score falls from %.3f to %.3f\n", head_name(feeder).c_str(),
                head_name(p.induction).c_str(), ind(base), lowest);
    p.m["ablation"] = Json::Object{{"rows", t.json()}, {"feeder", head_name(feeder)}};
}

}  // namespace

int main(int argc, char** argv) try {
    const auto t_start = std::chrono::steady_clock::now();
    lab::Options opt("phase6", "Phase 6: look inside a trained model (induction heads forming, activation patching, "
                               "the logit lens, sampling).");
    add_common_flags(opt, {.phase = "phase6", .model = "causal_model", .seed = 0, .sentence = false});
    opt.add("sentence", "TEXT", phase6::kAgreementSentence, "section 2's clean sentence: a subject and its present-tense verb; "
                                                    "its corrupted twin has the subject in the other number");
    opt.add("steps", "N", "2000", "training steps of the induction model");
    opt.add("lr", "X", "0.0003", "AdamW's learning rate for the induction model");
    opt.parse(argc, argv);
    Phase6 p(opt);
    p.run.config.steps = opt.integer("steps", 100, 100000);
    p.run.config.seed = p.seed;
    p.run.config.lr = opt.real("lr", 1e-6, 1.0);
    phase6::PatchingSetup patching = phase6::patching_setup(opt);
    std::printf("Phase 6: inside a trained model (seed %llu)\n", (unsigned long long)p.seed);
    p.m["seed"] = static_cast<std::int64_t>(p.seed);
    section1_induction_heads_forming(p);
    section1b_ablation(p);
    phase6::section2_activation_patching(p, patching);
    phase6::section3_logit_lens(p);
    phase6::section4_sampling(p);
    p.m["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    p.out.save_metrics();
    std::printf("phase 6 done in %.1f s\n", p.m["seconds"].as_double());
} catch (const std::exception& e) {
    return phase::unexpected_error(argv[0], e);
}
