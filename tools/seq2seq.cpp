// seq2seq.cpp — phase 5's GRU encoder–decoder on the reversal task, from the command line.
//
//   seq2seq train --out M.safetensors [--hidden 64] [--score additive] [--length 10] [--steps 1000] ...
//   seq2seq train --resume M.safetensors [--steps N]   continue a run (Adam's moments, step, batch stream)
//   seq2seq eval  --checkpoint M.safetensors            held-out accuracy, overall and by length
//   seq2seq show  --checkpoint M.safetensors --digits "3 1 4 1 5" --out DIR
//                                                      the decoded output and its alignment heatmap
//
// The model, the task and the training loop are phase 5's (nn/seq2seq.hpp, data/reversal.hpp,
// experiments/seq2seq_experiment.hpp); the checkpoint format is nn/seq2seq_checkpoint.hpp, which also
// keeps the task (the source lengths trained on) and the run's settings.
//
// `train` writes --out only if it is new or holds this same run (or the run --resume continues),
// unless --overwrite, and locks it while it trains (io/fileio.hpp's rule for every output).
// Every command has --help. A bad flag or value exits 2 with a message naming it (app/options);
// a file that cannot be used (missing, corrupt, not a seq2seq checkpoint) exits 1 naming it.
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "data/reversal.hpp"
#include "app/options.hpp"
#include "app/report.hpp"
#include "training/run_config.hpp"
#include "experiments/seq2seq_experiment.hpp"
#include "nn/seq2seq_checkpoint.hpp"
#include "io/fileio.hpp"
#include "plots/save.hpp"

using namespace attnlab;

namespace {

constexpr std::uint64_t kHeldOutSeed = 100;       // train's report and eval draw the same held-out set

std::vector<data::Digits> held_out(std::int64_t per_length, const data::ReversalConfig& task) {
    Generator gen(kHeldOutSeed);
    return data::held_out_sources(gen, per_length, task);
}

std::string describe(const nn::Seq2Seq& model) {
    const nn::Seq2SeqConfig& c = model.config();
    std::int64_t params = 0;
    for (const Tensor& p : model.parameters()) params += p.numel();
    return "GRU hidden " + std::to_string(c.hidden) + ", " +
           (c.attention ? nn::score_kind_flag(c.scoring) + " attention, " + nn::normalizer_flag(c.normalizer)
                        : std::string("no attention")) +
           ", " + std::to_string(params) + " parameters";
}

// Accuracy overall and per source length, and the teacher-forced loss, as one table.
void report(const lab::ReversalEval& e, std::size_t sequences) {
    std::printf("held-out (%zu sequences): exact-sequence accuracy %.4f, cross-entropy %.9g nats/token, anti-diagonal share %.4f\n",
                sequences, e.accuracy, e.loss, e.anti_diagonal);
    lab::Table t({{"length", "length", 7, -1}, {"accuracy", "accuracy", 9, 4}}, "  ");
    t.print_header();
    for (const auto& [len, acc] : e.by_length) t.row({len, acc});
}

// ---- train ------------------------------------------------------------------------------

// The run settings kept beside the model (the `extra` of its checkpoint), as flags spell them.
const char* const kRunSettings[] = {"steps", "batch", "lr", "warmup", "seed"};

// The run settings as the checkpoint keeps them (kRunSettings).
std::map<std::string, std::string> run_record(const lab::ReversalTrainConfig& tc, std::uint64_t seed) {
    return {{"steps", std::to_string(tc.steps)}, {"batch", std::to_string(tc.batch_size)}, {"lr", lab::format_real(tc.lr)},
            {"warmup", std::to_string(tc.warmup)}, {"seed", std::to_string(seed)}};
}

// Trains (or continues) `model`, reports on the held-out set and writes the checkpoint with
// its training state. A run whose weights went non-finite writes nothing: the last good file stays.
void run_and_save(nn::Seq2Seq& model, const data::ReversalConfig& task, lab::ReversalTrainConfig tc, std::uint64_t seed,
                  std::int64_t per_length, const std::string& path) {
    const std::vector<data::Digits> eval_set = held_out(per_length, task);
    const std::int64_t last = tc.stop_after > 0 ? tc.stop_after : tc.steps;
    tc.checkpoints = {last};
    const lab::ReversalTrainResult r = lab::train_reversal(model, tc, eval_set, task);
    const std::size_t window = std::min<std::size_t>(20, r.loss.size());
    const lab::Curve curve = lab::smooth(r.loss, window, std::max<std::size_t>(window, r.loss.size() / 10));
    for (std::size_t i = 0; i < curve.step.size(); ++i)
        std::printf("  step %6.0f  loss %.4f (mean of %zu steps)\n", curve.step[i] + static_cast<double>(r.first_step - 1),
                    curve.value[i], window);
    report(r.evals.at(last), eval_set.size());
    for (const auto& p : model.named_parameters())
        if (const std::string bad = nn::first_non_finite(p.tensor); !bad.empty())
            throw std::runtime_error("the run diverged: parameter '" + p.name + "' holds " + bad + " after step " +
                                     std::to_string(last) + "; '" + path + "' is left as it was");
    const nn::TrainingState state{r.optimizer.get(), last, r.data_rng, {}};
    lab::save_reversal_model(path, model, task, run_record(tc, seed), &state);
    std::printf("wrote %s (step %lld of %lld)\n", path.c_str(), static_cast<long long>(last), static_cast<long long>(tc.steps));
}

// A run's settings as flags spell them: the model's, the task's, and those kept in `extra`.
std::map<std::string, std::string> settings_of(const nn::Seq2SeqConfig& c, const data::ReversalConfig& task,
                                               const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> s{{"hidden", std::to_string(c.hidden)}, {"score", nn::score_kind_flag(c.scoring)},
                                         {"normalizer", nn::normalizer_flag(c.normalizer)},
                                         {"attention", c.attention ? "on" : "off"}, {"length", std::to_string(task.max_len)}};
    for (const char* key : kRunSettings) s[key] = extra.contains(key) ? extra.at(key) : "(none)";
    return s;
}

// --out may replace only a checkpoint of this very run (a continued one: of the run it
// continues, whatever its step), unless --overwrite: never another run's model, nor any other file.
void check_out(const lab::Options& o, const std::string& out, std::map<std::string, std::string> wanted, const std::string& resumed) {
    if (!resumed.empty() && same_file(out, resumed)) return;
    try {
        check_output("--out", out, "an attnlab seq2seq checkpoint", o.on("overwrite"), {resumed});
    } catch (const IOError& e) {
        o.fail("out", e.what());
    }
    if (file_kind(out).empty() || o.on("overwrite")) return;
    std::map<std::string, std::string> there;
    try {
        const lab::ReversalModel m = lab::load_reversal_model(out);
        there = settings_of(m.model->config(), m.task, m.extra);
    } catch (const std::exception& e) {
        o.fail("out", std::string("is a damaged checkpoint, left alone (--overwrite replaces it): ") + e.what());
    }
    if (!resumed.empty()) there.erase("steps"), wanted.erase("steps");
    for (const auto& [key, value] : wanted)
        if (there.at(key) != value)
            o.fail("out", "holds another run's checkpoint (" + key + " " + there.at(key) + " there, " + value +
                              " in this run); it is left alone (give another --out, or --overwrite to replace it)");
}

// --resume PATH: the stored run, continued. Its settings come from the file; a flag that
// names another value is a contradiction (exit 2); only --steps, --stop-after, --out and
// --per-length may change. The file is checked whole before anything is allocated.
int resume(const lab::Options& o, std::int64_t stop_after, std::int64_t per_length) {
    const std::string path = o.text("resume");
    nn::LoadedSeq2Seq loaded = nn::load_seq2seq(path);  // IOError naming the file: exit 1; read once
    lab::ReversalModel m = lab::reversal_model(loaded, path);  // the model; `loaded` keeps the training state
    if (!loaded.has_training_state)
        throw IOError("resume: '" + path + "' holds no training state (an inference-only or format_version 1 file); "
                      "it cannot be continued");
    for (const auto& s : loaded.optimizer_state)
        if (!s.name.starts_with("exp_avg.") && !s.name.starts_with("exp_avg_sq."))
            throw IOError("resume: '" + path + "': optimizer state '" + s.name + "' is not Adam's (exp_avg, exp_avg_sq)");
    std::map<std::string, std::int64_t> run;  // the stored settings, checked like flags
    for (const char* key : kRunSettings) {
        if (std::string(key) == "lr") continue;
        const auto it = m.extra.find(key);
        const std::optional<std::int64_t> v = it == m.extra.end() ? std::nullopt : lab::parse_int64(it->second);
        if (!v || *v < (std::string(key) == "warmup" || std::string(key) == "seed" ? 0 : 1) || *v > nn::kMaxTrainingSteps)
            throw IOError("resume: '" + path + "': run setting '" + key + "' is " +
                          (it == m.extra.end() ? std::string("missing") : "'" + it->second + "'") + ", not a whole number in range");
        run[key] = *v;
    }
    const std::optional<double> lr = m.extra.contains("lr") ? parse_real(m.extra.at("lr")) : std::nullopt;
    if (!lr || *lr <= 0 || *lr > 10) throw IOError("resume: '" + path + "': run setting 'lr' is missing or outside (0, 10]");
    std::map<std::string, std::string> stored = settings_of(m.model->config(), m.task, m.extra);
    stored["lr"] = lab::format_real(*lr);
    stored.erase("steps");
    for (const auto& [flag, value] : stored) {
        if (!o.given(flag)) continue;
        const std::string asked = flag == "lr" ? lab::format_real(o.real("lr", 1e-8, 10)) : o.text(flag);
        if (asked != value)
            o.fail(flag, "contradicts '" + path + "', which was trained with " + flag + " " + value +
                             " (with --resume only --steps, --stop-after, --out and --per-length may be given)");
    }
    lab::ReversalTrainConfig tc{.steps = o.given("steps") ? o.integer("steps", 1, 1000000) : run["steps"], .batch_size = run["batch"],
                                .lr = *lr, .warmup = run["warmup"], .data_seed = static_cast<std::uint64_t>(run["seed"]) + 1,
                                .checkpoints = {}, .stop_after = stop_after, .resume = &loaded};
    if (loaded.step >= tc.steps) {
        if (o.given("steps")) o.fail("steps", "must exceed the step of '" + path + "', " + std::to_string(loaded.step));
        o.fail("resume", "'" + path + "' has done all " + std::to_string(tc.steps) + " steps of its run; give --steps N > " +
                             std::to_string(tc.steps) + " to train it further");
    }
    if (stop_after && (stop_after <= loaded.step || stop_after > tc.steps))
        o.fail("stop-after", "must be after the resumed step " + std::to_string(loaded.step) + " and at most --steps " +
                                 std::to_string(tc.steps));
    const std::string out = o.given("out") ? o.text("out") : path;
    check_out(o, out, settings_of(m.model->config(), m.task, m.extra), path);
    const OutputLock lock(out, "seq2seq train");
    std::printf("seq2seq train: resuming '%s' at step %lld of %lld: %s\n", path.c_str(), static_cast<long long>(loaded.step),
                static_cast<long long>(tc.steps), describe(*m.model).c_str());
    run_and_save(*m.model, m.task, tc, static_cast<std::uint64_t>(run["seed"]), per_length, out);
    return 0;
}

int train(int argc, const char* const* argv) {
    lab::Options o("seq2seq train", "Train phase 5's GRU encoder-decoder to reverse digit sequences; save it.");
    o.add_path("out", "PATH", "out/checkpoints/seq2seq_model.safetensors", "the checkpoint to write (.safetensors)");
    o.add("hidden", "N", "64", "GRU width (the decoder state; the encoder's two directions have N/2 each)");
    o.add("score", "KIND", "additive", "scoring: dot, scaled_dot, additive, multiplicative");
    o.add("normalizer", "NAME", "softmax", "softmax, sparsemax or topk:K (keep the K largest weights)");
    o.add("attention", "on|off", "on", "off: the decoder sees only the final encoder state (the bottleneck)");
    o.add("length", "N", "10", "longest source (sources have 4 to N digits)");
    o.add("steps", "N", "1000", "optimizer steps of the run (the learning-rate schedule spans them)");
    o.add("batch", "N", "64", "sequences per step");
    o.add("lr", "X", "0.003", "peak learning rate (Adam, linear warm-up, cosine decay to lr/100)");
    o.add("warmup", "N", "50", "warm-up steps");
    o.add("seed", "N", "0", "seed of the weights (the batches use seed + 1)");
    o.add("per-length", "N", "100", "held-out sequences per length in the final report");
    o.add("stop-after", "N", "", "stop after step N of the run and save it, to continue later with --resume");
    o.add_path("resume", "PATH", "", "continue the run saved in PATH (its settings; only --steps to extend it, --stop-after, "
                                "--out (default: PATH itself), --overwrite and --per-length may be given)");
    o.add_switch("overwrite", "replace whatever file is at --out, another run's checkpoint included (by default --out "
                              "is new or holds this same run)");
    o.parse(argc, argv);
    const std::int64_t stop_after = o.given("stop-after") ? o.integer("stop-after", 1, 1000000) : 0;
    const std::int64_t per_length = o.integer("per-length", 1, 10000);
    if (o.given("resume")) return resume(o, stop_after, per_length);
    nn::Seq2SeqConfig c;
    c.vocab = data::kReversalVocab;
    c.hidden = o.integer("hidden", 2, nn::Seq2SeqLimits::max_width);
    if (c.hidden % 2) o.fail("hidden", "must be even (the encoder's two directions have hidden / 2 each)");
    if (!nn::parse_score_kind(o.text("score"), c.scoring)) o.fail("score", "must be one of dot, scaled_dot, additive, multiplicative");
    if (!nn::parse_normalizer(o.text("normalizer"), c.normalizer)) o.fail("normalizer", "must be softmax, sparsemax or topk:K");
    if (c.normalizer.kind == nn::Normalizer::Kind::topk && c.normalizer.k < 1) o.fail("normalizer", "topk needs K >= 1");
    c.attention = o.choice("attention", {"on", "off"}) == "on";
    data::ReversalConfig task;
    task.max_len = o.integer("length", task.min_len, lab::kLongestReversal);
    const std::uint64_t seed = o.seed();
    lab::ReversalTrainConfig tc{.steps = o.integer("steps", 1, 1000000), .batch_size = o.integer("batch", 1, 4096),
                                .lr = o.real("lr", 1e-8, 10), .warmup = o.integer("warmup", 0, 1000000), .data_seed = seed + 1,
                                .checkpoints = {}, .stop_after = stop_after, .resume = nullptr};
    if (stop_after > tc.steps) o.fail("stop-after", "must be at most --steps " + std::to_string(tc.steps));
    const std::string path = o.text("out");
    check_out(o, path, settings_of(c, task, run_record(tc, seed)), "");
    const OutputLock lock(path, "seq2seq train");

    Generator init(seed);
    nn::Seq2Seq model(c, init);
    std::printf("seq2seq train: reversal of %lld-%lld digits, %s; %lld steps of %lld, seed %llu\n",
                static_cast<long long>(task.min_len), static_cast<long long>(task.max_len), describe(model).c_str(),
                static_cast<long long>(tc.steps), static_cast<long long>(tc.batch_size), static_cast<unsigned long long>(seed));
    run_and_save(model, task, tc, seed, per_length, path);
    return 0;
}

// ---- eval -------------------------------------------------------------------------------

int eval(int argc, const char* const* argv) {
    lab::Options o("seq2seq eval", "Held-out accuracy of a seq2seq checkpoint: overall and by source length.");
    o.add_path("checkpoint", "PATH", "", "the model (`seq2seq train` writes it)");
    o.add("per-length", "N", "100", "held-out sequences per source length");
    o.add("length", "N", "", "longest source to test (default: the longest the model was trained on; up to 30)");
    o.parse(argc, argv);
    if (o.text("checkpoint").empty()) o.fail("checkpoint", "is required");
    const std::int64_t per_length = o.integer("per-length", 1, 10000);
    const std::int64_t length = o.given("length") ? o.integer("length", 1, lab::kLongestReversal) : 0;
    lab::ReversalModel m = lab::load_reversal_model(o.text("checkpoint"));
    if (length) {
        if (length < m.task.min_len) o.fail("length", "must be at least the shortest trained source, " + std::to_string(m.task.min_len));
        m.task.max_len = length;
    }
    std::printf("seq2seq eval: %s (%s), sources of %lld-%lld digits\n", o.text("checkpoint").c_str(),
                describe(*m.model).c_str(), static_cast<long long>(m.task.min_len), static_cast<long long>(m.task.max_len));
    const std::vector<data::Digits> eval_set = held_out(per_length, m.task);
    report(lab::evaluate_reversal(*m.model, eval_set), eval_set.size());
    return 0;
}

// ---- show -------------------------------------------------------------------------------

int show(int argc, const char* const* argv) {
    lab::Options o("seq2seq show", "Decode one source with a seq2seq checkpoint and draw its attention alignment.");
    o.add_path("checkpoint", "PATH", "", "the model (`seq2seq train` writes it)");
    o.add("digits", "\"D D ...\"", "3 1 4 1 5", "the source, digits 0-9 separated by spaces");
    o.add_folder("out", "out/seq2seq", "where alignment.svg and alignment.png go");
    o.parse(argc, argv);
    if (o.text("checkpoint").empty()) o.fail("checkpoint", "is required");
    data::Digits source;
    if (const std::string why = lab::parse_digits(o.text("digits"), source); !why.empty()) o.fail("digits", why);
    const lab::ReversalModel m = lab::load_reversal_model(o.text("checkpoint"));
    const auto L = static_cast<std::int64_t>(source.size());
    if (L > m.task.max_len)
        o.fail("digits", std::to_string(L) + " digits; this model was trained on sources of at most " +
                             std::to_string(m.task.max_len) + " (train with --length " + std::to_string(L) + ")");

    const lab::ReversalDecode d = lab::decode_reversal(*m.model, source);
    lab::print_decode(d);
    if (!d.weights.defined()) {
        std::printf("this model has no attention (trained with --attention off): there is no alignment to draw\n");
        return 0;
    }
    const std::string stem = o.text("out") + "/alignment";
    plots::save(lab::alignment_heatmap(d), stem);
    std::printf("wrote %s.svg and %s.png\n", stem.c_str(), stem.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string command = lab::subcommand(argc, argv, "seq2seq", "Phase 5's GRU encoder-decoder on the reversal task.",
                                                {{"train", "train a model and save its checkpoint"},
                                                 {"eval", "held-out accuracy of a checkpoint, overall and by length"},
                                                 {"show", "decode --digits and draw the attention alignment"}});
    try {
        if (command == "train") return train(argc - 1, argv + 1);
        if (command == "eval") return eval(argc - 1, argv + 1);
        return show(argc - 1, argv + 1);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "seq2seq %s: %s\n", command.c_str(), e.what());
        return 1;
    }
}
