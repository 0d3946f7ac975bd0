// train.cpp — see train.hpp.
#include "training/train.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <new>
#include <optional>
#include <unistd.h>

#include "autograd/node.hpp"
#include "data/corpus.hpp"
#include "data/lm_batches.hpp"
#include "data/mlm_batches.hpp"
#include "data/tokenizer.hpp"
#include "data/utf8.hpp"
#include "training/held_out.hpp"
#include "training/loss_figure.hpp"
#include "training/run_config.hpp"
#include "training/step.hpp"
#include "nn/data_parallel.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "nn/transformer_spec.hpp"
#include "plots/save.hpp"
#include "io/fileio.hpp"
#include "io/safetensors.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

using nn::Transformer;

namespace {

nn::TransformerConfig model_config(const TrainConfig& c, std::int64_t vocab_size) {
    nn::TransformerConfig mc;
    mc.vocab_size = vocab_size;
    mc.d_model = c.d_model, mc.n_heads = c.n_heads, mc.n_layers = c.n_layers, mc.context = c.context;
    mc.causal = info(c.task).next_token && c.causal_mask;
    mc.window = c.window, mc.stride = c.stride;
    mc.scaled = c.scaled, mc.dropout = c.dropout;
    mc.positions = c.positions, mc.normalizer = c.normalizer;
    mc.qkv_only = c.task == Task::qkv_head;
    return mc;
}

// The first parameter whose value (or gradient) holds a NaN or ±inf: "'head.weight' (nan at element 3)".
std::string first_non_finite(const Transformer& model, bool gradients) {
    for (const auto& p : model.named_parameters()) {
        const Tensor t = gradients ? p.tensor.grad() : p.tensor.detach();
        if (!t.defined()) continue;
        if (const std::string bad = nn::first_non_finite(t); !bad.empty()) return "'" + p.name + "' (" + bad + ")";
    }
    return "";
}

// The weight of largest magnitude, for a loss that overflowed while every weight is finite:
// "'blocks.0.mlp.fc1.weight' (|value| up to 3.2e+29)".
std::string largest_weight(const Transformer& model) {
    std::string name;
    double largest = -1;
    for (const auto& p : model.named_parameters()) {
        const double m = max(abs(p.tensor.detach().to(kFloat64))).item();
        if (m > largest) largest = m, name = p.name;
    }
    char text[64];
    std::snprintf(text, sizeof text, "%.3g", largest);
    return "'" + name + "' (|value| up to " + text + ")";
}

// The weights, optimizer buffers and data stream of one evaluation, to write later if the run
// diverges after it (keep = last rewrites the file at every evaluation, so the best one is
// only in memory by then).
struct Snapshot {
    std::int64_t step = -1;
    std::vector<Tensor> weights;
    std::vector<nn::NamedParameter> optimizer;
    std::array<std::uint64_t, 4> data_rng{};
    Evaluation eval;
    void take(std::int64_t at, const Transformer& model, const nn::Optimizer& opt, const Generator& gen, const Evaluation& e) {
        step = at, eval = e, data_rng = gen.state();
        weights.clear(), optimizer.clear();
        for (const auto& p : model.named_parameters()) weights.push_back(p.tensor.detach().clone());
        for (const auto& b : opt.state()) optimizer.push_back({b.name, b.tensor.detach().clone()});
    }
    void restore(Transformer& model, nn::Optimizer& opt, Generator& gen) const {
        NoGradGuard no_grad;
        const auto params = model.named_parameters();
        for (std::size_t i = 0; i < params.size(); ++i) copy_(params[i].tensor, weights[i]);
        opt.load_state(optimizer);
        opt.set_steps(step);
        gen.set_state(data_rng);
    }
};

bool is_tty() { return ::isatty(STDOUT_FILENO); }

// A loss for messages: four significant digits are enough to see how far it ran away.
std::string loss_text(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", v);
    return text;
}

// Resuming: the checkpoint's run must be the requested one, steps excepted.
void check_resume(const StoredRun& stored, const TrainConfig& c) {
    const std::vector<Difference> diff = differences(stored.config, c);
    if (!diff.empty())
        throw ValueError("train: resuming '" + c.resume + "': " + diff[0].key + " is " + diff[0].stored +
                         " in the checkpoint but " + diff[0].requested + " was asked (only steps may change on resume)");
    if (c.steps <= stored.step)
        throw ValueError("train: resuming '" + c.resume + "': steps " + std::to_string(c.steps) +
                         " must exceed the checkpoint's step " + std::to_string(stored.step));
}

// The run's record beside its checkpoint: the loss CSV, then its figure (x.loss.svg, x.loss.png),
// each written atomically; a reader of the CSV never finds the figure ahead of it.
void write_curve(const std::string& out, const std::vector<TrainPoint>& curve) {
    write_file_atomic(loss_csv_path(out), curve_csv(curve));
    if (curve.empty()) return;  // a resumed run at step 0 has nothing to draw
    const std::string name = std::filesystem::path(out).stem().string();
    plots::save(loss_figure({{"", curve}}, name + ": loss per step"), loss_figure_stem(out));
}

// Each head's mean attention entropy (nats) on one validation batch, the step first:
// [step, layer 1 head 1, layer 1 head 2, ...]. The batch is fixed, so the rows of one run
// show how its heads focus (entropy falls) or spread as it trains.
std::vector<double> entropy_row(std::int64_t step, Transformer& model, const Batch& b) {
    NoGradGuard no_grad;
    const bool was_training = model.is_training(), was_tracing = model.trace().enabled;
    model.eval();
    model.trace().enabled = true;
    model.trace().clear();
    model.forward(b.ids, b.padding);
    std::vector<double> row{static_cast<double>(step)};
    for (const Tensor& w : model.trace().layers) {  // [B, H, T, T]
        const std::int64_t B = w.size(0), H = w.size(1), T = w.size(2), Tk = w.size(3);
        const std::vector<float> p = w.contiguous().to_vector<float>();
        for (std::int64_t h = 0; h < H; ++h) {
            double total = 0;  // Σ over rows of -Σ_j p log p (a fully masked row, all 0, has entropy 0)
            for (std::int64_t r = 0; r < B; ++r)
                for (std::int64_t i = 0; i < T; ++i)
                    for (std::int64_t j = 0; j < Tk; ++j) {
                        const double x = p[static_cast<std::size_t>(((r * H + h) * T + i) * Tk + j)];
                        if (x > 0) total -= x * std::log(x);
                    }
            row.push_back(total / static_cast<double>(B * T));
        }
    }
    model.trace().clear();
    model.trace().enabled = was_tracing;
    model.train(was_training);
    return row;
}

// The rows up to `step`, as the checkpoint's "entropy_curve": float64 [rows, 1 + L·H].
NamedTensor entropy_tensor(const std::vector<std::vector<double>>& rows, std::int64_t step, std::int64_t width) {
    std::vector<double> flat;
    std::int64_t n = 0;
    for (const auto& r : rows)
        if (r[0] <= static_cast<double>(step)) flat.insert(flat.end(), r.begin(), r.end()), ++n;
    return {"entropy_curve", from_vector(flat, {n, width}, kFloat64)};
}

// A resumed run's entropy rows, up to its step; ValueError naming the file if they are not
// [rows, 1 + L·H] of finite values at increasing steps. A checkpoint saved before the rows
// were recorded has none, and its run goes on without the earlier ones.
std::vector<std::vector<double>> stored_entropy(const nn::LoadedCheckpoint& ck, const std::string& path, std::int64_t width) {
    std::vector<std::vector<double>> rows;
    const auto it = ck.training_tensors.find("entropy_curve");
    if (it == ck.training_tensors.end()) return rows;
    const Tensor& t = it->second;
    if (t.dtype() != kFloat64 || t.dim() != 2 || t.size(1) != width)
        throw ValueError("resume: '" + path + "': entropy_curve is " + dtype_name(t.dtype()) + " " + t.shape().str() +
                         ", expected float64 [rows, " + std::to_string(width) + "] (the step, then one entropy per head)");
    const std::vector<double> v = t.to_vector<double>();
    for (std::int64_t i = 0; i < t.size(0); ++i) {
        std::vector<double> row(v.begin() + i * width, v.begin() + (i + 1) * width);
        for (double x : row)
            if (!std::isfinite(x) || x < 0)
                throw ValueError("resume: '" + path + "': entropy_curve row " + std::to_string(i) + " holds " + format_real(x) +
                                 "; entropies and steps are finite and >= 0");
        if (!rows.empty() && row[0] <= rows.back()[0])
            throw ValueError("resume: '" + path + "': entropy_curve row " + std::to_string(i) + " is at step " +
                             format_real(row[0]) + ", not after the row before it");
        if (row[0] > static_cast<double>(ck.step))
            throw ValueError("resume: '" + path + "': entropy_curve row " + std::to_string(i) + " is at step " +
                             format_real(row[0]) + ", past the checkpoint's step " + std::to_string(ck.step));
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

void validate(const TrainConfig& c) {
    for (const RunSetting& s : run_settings()) check_setting(c, s, "train: " + std::string(s.key));
    // A corpus at character level trains the char task only ([MASK] is not a character); at word level, any other.
    if (c.corpus.empty() && (c.task == Task::chars || c.word_tokens))
        throw ValueError(c.task == Task::chars ? "train: the char task needs a corpus file" : "train: word tokens need a corpus file");
    if (!c.corpus.empty() && !c.word_tokens && c.task != Task::chars)
        throw ValueError("train: a corpus ('" + c.corpus + "') at character level trains the char task, not " + info(c.task).cli +
                         " (masked-token models need word tokens)");
    if (!c.corpus.empty() && c.word_tokens && c.task == Task::chars)
        throw ValueError("train: the char task reads characters, not word tokens");
    if ((c.lowercase || c.split_punctuation) && !c.word_tokens)
        throw ValueError(std::string("train: ") + (c.lowercase ? "lowercase" : "split_punctuation") +
                         " applies to word tokens of a corpus (--tokens words)");
    if ((c.task == Task::single_head || c.task == Task::qkv_head) && c.n_heads != 1)
        throw ValueError(std::string("train: ") + info(c.task).cli + " has 1 head, not n_heads " + std::to_string(c.n_heads));
    if (c.stop_after < 0) throw ValueError("train: stop_after " + std::to_string(c.stop_after) + " is negative");
    // The vocabulary is the data's; the model's other limits are checked here, before any data is read.
    nn::TransformerConfig mc = model_config(c, 1);
    nn::check_limits(mc, "train");
}

TrainConfig standard_config(Task task) {
    TrainConfig c;
    c.task = task;
    switch (task) {
        case Task::causal: c.steps = 600, c.batch = 16; break;
        case Task::single_head:
        case Task::multi_head:
        case Task::qkv_head:
            // Masked-token prediction learns from ~15% of the tokens only: bigger batches, more steps.
            c.n_heads = task == Task::multi_head ? 4 : 1;
            c.steps = 1000, c.batch = 32;
            break;
        case Task::chars: throw ValueError("standard_config: the char task has no standard model (it needs a corpus)");
    }
    return c;
}

nn::LoadedCheckpoint load_or_train(Task task, const std::string& dir) {
    const std::string path = dir + "/" + info(task).model_name + ".safetensors";
    if (!std::filesystem::exists(path)) {
        std::printf("%s is missing: training it first (as `make train` does)\n", path.c_str());
        TrainConfig c = standard_config(task);
        c.out = path;
        train(c);
    }
    return nn::load_checkpoint(path);
}

std::vector<std::string> grammar_vocab() {
    const auto& v = data::toy_grammar().vocab();
    std::vector<std::string> out;
    for (std::int64_t i = 0; i < v.size(); ++i) out.push_back(v.word(i));
    return out;
}

std::string loss_csv_path(const std::string& checkpoint) {
    const std::string ext = ".safetensors";
    std::string base = checkpoint.ends_with(ext) ? checkpoint.substr(0, checkpoint.size() - ext.size()) : checkpoint;
    return base + ".loss.csv";
}

void check_out_is_this_run(const TrainConfig& c, const DataIdentity& data, bool resuming) {
    const std::string kind = file_kind(c.out);
    if (kind.empty() || c.overwrite) return;
    const std::string refuse = "train: --out '" + c.out + "' ";
    const std::string how = "; it is left alone (give another --out, or --overwrite to replace it)";
    if (kind != "an attnlab checkpoint") throw ValueError(refuse + "holds " + kind + ", not a checkpoint" + how);
    std::map<std::string, std::string> stored;
    try {
        stored = load_safetensors(c.out).metadata;
    } catch (const std::exception& e) {
        throw ValueError(refuse + "is a damaged checkpoint (" + e.what() + ")" + how);
    }
    const auto differ = [&](const std::string& what, const std::string& there, const std::string& here) {
        throw ValueError(refuse + "holds another run's checkpoint (" + what + " " + there + " there, " + here + " in this run" +
                         (stored.contains("corpus") && !stored.at("corpus").empty() ? ", trained on '" + stored.at("corpus") + "'" : "") +
                         ")" + how);
    };
    const auto at = [&](const std::string& key) { return stored.contains(key) ? stored.at(key) : std::string("(none)"); };
    if (at("kind") != info(c.task).kind) differ("model", at("kind"), info(c.task).kind);
    const std::map<std::string, std::string> ours = run_metadata(c, data);
    for (const RunSetting& s : run_settings()) {
        if (resuming && std::holds_alternative<std::int64_t TrainConfig::*>(s.field) &&
            std::get<std::int64_t TrainConfig::*>(s.field) == &TrainConfig::steps)
            continue;  // a continued run may be extended
        if (!stored.contains(s.key) && s.since_v2) continue;  // recorded before the setting existed
        if (at(s.key) != ours.at(s.key)) differ(s.key, at(s.key), ours.at(s.key));
    }
    for (const char* key : {"corpus_bytes", "corpus_fnv1a64"})
        if (at(key) != ours.at(key)) differ(std::string("data (") + key + ")", at(key), ours.at(key));
}

Evaluation evaluate(Transformer& model, Task task, std::int64_t batch, std::int64_t n_batches, double mask_prob) {
    if (task == Task::chars) throw ValueError("evaluate: the char task's validation text is its corpus; train() evaluates it");
    TrainConfig c;
    c.task = task, c.batch = batch, c.val_batches = n_batches, c.mask_prob = mask_prob;
    c.context = model.config().context;
    double floor = NAN;
    BatchSource source(c);
    Evaluation e = evaluate_batches(model, source.validation(&floor));
    e.floor = floor;
    return e;
}

TrainResult train(const TrainConfig& c) {
    using Clock = std::chrono::steady_clock;
    validate(c);
    TrainResult result;

    // ---- the model: fresh, or resumed with its whole run
    std::unique_ptr<Transformer> model;
    nn::LoadedCheckpoint resumed;
    std::vector<TrainPoint> curve;  // every step of the run, from step 1 (a resumed run's earlier steps too)
    std::int64_t start_step = 0;
    DataIdentity trained_on;
    Generator data_gen(c.seed ^ 0xda7a);  // the batch stream, separate from the init stream
    if (!c.resume.empty()) {
        resumed = nn::load_checkpoint(c.resume);
        StoredRun stored = stored_run(resumed, c.resume);
        check_resume(stored, c);
        model = std::move(resumed.model);
        start_step = stored.step;
        curve = std::move(stored.curve);
        trained_on = stored.data;
        data_gen.set_state(resumed.data_rng);
    }
    BatchSource source(c);
    if (!c.resume.empty()) {  // the data must be the very data it was trained on: same bytes, same ids
        if (!c.corpus.empty() && !(source.identity() == trained_on))
            throw ValueError("train: resuming '" + c.resume + "': corpus " + describe(source.identity()) +
                             " is not the text it was trained on, " + describe(trained_on));
        if (resumed.info.vocab != source.vocab())
            throw ValueError("train: resuming '" + c.resume + "': its vocabulary (" + std::to_string(resumed.info.vocab.size()) +
                             " tokens) is not the data's (" + std::to_string(source.vocab().size()) + " tokens)");
    }
    if (!model) {
        const nn::TransformerConfig mc = model_config(c, static_cast<std::int64_t>(source.vocab().size()));
        nn::check_limits(mc, "train");
        model = std::make_unique<Transformer>(mc, c.seed);
    }
    model->set_dropout_generator(&data_gen);
    nn::AdamW opt(model->named_parameters(), c.lr, c.beta1, c.beta2, 1e-8, c.weight_decay);
    if (!c.resume.empty()) {
        opt.load_state(resumed.optimizer_state);
        opt.set_steps(start_step);
    }
    nn::DataParallel parallel(*model, static_cast<int>(c.shards));
    double floor = NAN;
    const std::vector<Batch> val = source.validation(&floor);
    // Each head's entropy at every evaluation (and step 0), recorded in the checkpoint for `show`.
    const std::int64_t entropy_width = 1 + model->config().n_layers * model->config().n_heads;
    std::vector<std::vector<double>> entropy_rows;
    if (!c.resume.empty()) entropy_rows = stored_entropy(resumed, c.resume, entropy_width);
    else entropy_rows.push_back(entropy_row(0, *model, val[0]));

    // ---- the output: locked for this run, never another run's file, its CSV in step with it
    std::unique_ptr<OutputLock> lock;
    if (!c.out.empty()) {
        lock = std::make_unique<OutputLock>(c.out, std::string("train ") + info(c.task).cli);
        check_output("train: out", c.out, "an attnlab checkpoint", true, {c.corpus});
        check_output("train: the loss CSV", loss_csv_path(c.out), "text", c.overwrite, {c.corpus});
        check_output("train: the loss figure", loss_figure_stem(c.out) + ".svg", "text", c.overwrite, {c.corpus});
        check_output("train: the loss figure", loss_figure_stem(c.out) + ".png", "a PNG image", c.overwrite, {c.corpus});
        if (!(!c.resume.empty() && same_file(c.out, c.resume))) check_out_is_this_run(c, source.identity(), !c.resume.empty());
        if (!c.resume.empty() && same_file(c.out, c.resume)) write_curve(c.out, curve);
    }

    // ---- the loop
    const TrainConfig::Progress mode = c.progress == TrainConfig::Progress::automatic
                              ? (is_tty() ? TrainConfig::Progress::automatic : TrainConfig::Progress::plain)
                              : c.progress;
    std::int64_t saved_step = -1;  // the step of the checkpoint at c.out, once this run has written one
    // Checkpoint (the whole run, curve up to `step` included), then the CSV copy of `csv`; both atomic.
    auto save = [&](std::int64_t step, const Evaluation& e, const std::vector<TrainPoint>& upto,
                    const std::map<std::string, std::string>& record) {
        if (c.out.empty()) return;
        if (const std::string bad = first_non_finite(*model, false); !bad.empty())
            throw TrainingDiverged("train: step " + std::to_string(step) + ": weight " + bad + " is not finite; not written");
        nn::CheckpointInfo ci{info(c.task).kind, source.vocab(), run_metadata(c, source.identity())};
        ci.extra["val_loss"] = std::to_string(e.loss);
        ci.extra["val_accuracy"] = std::to_string(e.accuracy);
        if (!std::isnan(floor)) ci.extra["bayes_floor"] = std::to_string(floor);
        if (!source.counts().empty()) ci.extra["token_counts"] = token_counts_json(source.counts());
        for (const auto& [key, value] : record) ci.extra[key] = value;
        const nn::TrainingState state{&opt, step, data_gen.state(),
                                      {curve_tensor(upto), entropy_tensor(entropy_rows, step, entropy_width)}};
        nn::save_checkpoint(c.out, *model, ci, &state);
        write_curve(c.out, curve);
        saved_step = step;
    };
    // The best evaluation so far: on disk already with keep = best; in memory with keep = last.
    Snapshot best;
    std::size_t best_curve_rows = curve.size();
    double best_val = INFINITY;
    auto diverged = [&](std::int64_t step, const std::string& what) {
        std::string kept = "nothing was saved";
        if (best.step >= 0 && saved_step != best.step && !c.out.empty()) {
            // keep = last wrote later, worse evaluations: put the best one back.
            best.restore(*model, opt, data_gen);
            const std::vector<TrainPoint> upto(curve.begin(), curve.begin() + static_cast<std::ptrdiff_t>(best_curve_rows));
            save(best.step, best.eval, upto,
                 {{"kept", "best"}, {"best_step", std::to_string(best.step)}, {"diverged_at", std::to_string(step)}});
        }
        if (saved_step >= 0)
            kept = "'" + c.out + "' keeps step " + std::to_string(saved_step) + ", the best validation loss " +
                   loss_text(best_val);
        else if (!c.out.empty() && c.out == c.resume) kept = "'" + c.out + "' keeps step " + std::to_string(start_step);
        else if (!c.out.empty()) kept = "'" + c.out + "' was not written";
        return TrainingDiverged("train: diverged at step " + std::to_string(step) + ": " + what + " (lr " + format_real(opt.lr) +
                                " at that step, peak " + format_real(c.lr) + "); " + kept);
    };
    const auto t0 = Clock::now();
    double last_val = NAN;
    std::optional<Evaluation> final_eval;  // the last step's evaluation: of the weights the run returns
    int rising = 0;  // evaluations in a row whose validation loss rose
    const double uniform_loss = std::log(static_cast<double>(source.vocab().size()));
    if (c.on_eval && start_step == 0) c.on_eval(0, *model);
    const std::int64_t end_step = c.stop_after > 0 ? std::min(c.stop_after, c.steps) : c.steps;
    try {
        for (std::int64_t step = start_step; step < end_step; ++step) {
            opt.lr = nn::warmup_cosine_lr(step, c.lr, c.warmup, c.steps, c.lr * c.min_lr_ratio);
            const Batch b = source.next(data_gen);
            const StepResult s = train_step(*model, opt, b.ids, b.targets, b.padding, c.clip, &data_gen, &parallel);
            const double loss_value = s.loss;
            if (!std::isfinite(loss_value)) throw diverged(step + 1, "the loss is " + format_real(loss_value));
            if (!s.applied) throw diverged(step + 1, "the gradient of " + first_non_finite(*model, true) + " is not finite");

            TrainPoint point{step + 1, loss_value, NAN};
            const bool last = step + 1 == end_step;
            if ((step + 1) % c.eval_every == 0 || last) {
                const Evaluation e = evaluate_batches(*model, val);
                if (!std::isfinite(e.loss)) {
                    const std::string bad = first_non_finite(*model, false);
                    throw diverged(step + 1, "the validation loss is " + format_real(e.loss) +
                                                 (bad.empty() ? " (every weight is finite; the largest is " + largest_weight(*model) + ")"
                                                              : " (weight " + bad + " is not)"));
                }
                if (e.loss > 2 * best_val && e.loss > uniform_loss)
                    throw diverged(step + 1, "the validation loss " + loss_text(e.loss) + " is above twice the best, " +
                                                 loss_text(best_val) + " at step " + std::to_string(best.step) +
                                                 ", and above ln V = " + loss_text(uniform_loss) + " (guessing uniformly)");
                entropy_rows.push_back(entropy_row(step + 1, *model, val[0]));
                rising = e.loss > last_val ? rising + 1 : 0;
                point.val_loss = last_val = e.loss;
                curve.push_back(point);
                const bool improved = e.loss < best_val;
                if (improved) {
                    best_val = e.loss, best_curve_rows = curve.size();
                    if (c.keep == TrainConfig::Keep::last) best.take(step + 1, *model, opt, data_gen, e);
                    else best.step = step + 1;
                }
                if (c.keep == TrainConfig::Keep::last)
                    save(step + 1, e, curve, {});
                else if (improved)
                    save(step + 1, e, curve, {{"kept", "best"}, {"best_step", std::to_string(step + 1)}});
                else if (!c.out.empty())  // the run's record goes on; the checkpoint stays at its best step
                    write_curve(c.out, curve);
                if (c.on_eval) c.on_eval(step + 1, *model);
                else if (last) final_eval = e;  // no callback came between: the weights are the ones evaluated
            } else {
                curve.push_back(point);
            }
            result.curve.push_back(point);

            // ---- progress: one updating line on a terminal, a plain line per evaluation otherwise
            const bool show = mode == TrainConfig::Progress::automatic ? true : !std::isnan(point.val_loss);
            if (mode != TrainConfig::Progress::quiet && show) {
                const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
                const double done = static_cast<double>(step + 1 - start_step);
                const double tok_s = done * static_cast<double>(c.batch * c.context) / secs;
                const double eta = secs / done * static_cast<double>(end_step - step - 1);
                char floor_part[48] = "";
                if (!std::isnan(floor)) std::snprintf(floor_part, sizeof floor_part, " (floor %.3f, %+.3f)", floor, last_val - floor);
                char rising_part[96] = "";
                if (rising >= 3)
                    std::snprintf(rising_part, sizeof rising_part, " | val rising %d evals (best %.3f at step %lld)", rising,
                                  best_val, static_cast<long long>(best.step));
                std::printf("%sstep %lld/%lld | loss %.3f | val %.3f%s | %.1fk tok/s | ETA %.0f s%s%s",
                            mode == TrainConfig::Progress::automatic ? "\r" : "", static_cast<long long>(step + 1),
                            static_cast<long long>(c.steps), point.loss, last_val, floor_part, tok_s / 1e3, eta, rising_part,
                            mode == TrainConfig::Progress::automatic ? "\033[K" : "\n");
                std::fflush(stdout);
            }
        }
    } catch (const std::bad_alloc&) {
        throw ValueError("train: out of memory (batch " + std::to_string(c.batch) + " x context " + std::to_string(c.context) +
                         " x d_model " + std::to_string(c.d_model) + " x " + std::to_string(c.n_layers) +
                         " layers needs more than this machine has; try a smaller --batch or --context)");
    }
    if (mode == TrainConfig::Progress::automatic) std::printf("\n");
    result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    result.tokens_per_second = static_cast<double>((end_step - start_step) * c.batch * c.context) / result.seconds;
    // The last step's evaluation is of the weights returned, unless a callback came after it
    // (it may touch the model) or no step ran (a run resumed at its last step).
    result.final_eval = final_eval ? *final_eval : evaluate_batches(*model, val);
    result.final_eval.floor = floor;
    result.vocab = source.vocab();
    result.task = c.task;
    result.start_step = start_step;
    model->set_dropout_generator(nullptr);  // data_gen ends here; the caller sets its own to train on
    result.model = std::move(model);
    return result;
}

}  // namespace attnlab::lab
