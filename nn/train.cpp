// train.cpp — see train.hpp.
#include "nn/train.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "autograd/node.hpp"
#include "data/lm_batches.hpp"
#include "data/mlm_batches.hpp"
#include "data/tokenizer.hpp"
#include "data/utf8.hpp"
#include "nn/checkpoint.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "tensor/fileio.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

namespace {

// One training or validation batch, whatever the task.
struct Batch {
    Tensor ids, targets;  // [B, T] int64
    Mask padding;         // masked-token task: keys past each row's length
};

Batch from_lm(const data::LMBatch& b) { return {b.ids, b.targets, Mask()}; }
Batch from_mlm(const data::MLMBatch& b) {
    return {b.ids, b.targets, Mask::padding(b.lengths.to_vector<std::int64_t>(), b.ids.size(1))};
}

// Where a task's batches come from.
class BatchSource {
public:
    BatchSource(const TrainConfig& c, const std::string& kind) : config_(c), kind_(kind) {
        if (kind == "char") {
            data::CharTokenizer tok = data::CharTokenizer::from_file(c.corpus);
            std::string text = read_file(c.corpus);
            std::vector<std::int64_t> all = tok.encode(text);
            const std::size_t split = all.size() * 9 / 10;  // the last tenth is held out
            if (split < static_cast<std::size_t>(c.context + 2) || all.size() - split < static_cast<std::size_t>(c.context + 2))
                throw ValueError("train: corpus '" + c.corpus + "' has " + std::to_string(all.size()) +
                                 " characters, too few for context " + std::to_string(c.context));
            train_tokens_.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(split));
            val_tokens_.assign(all.begin() + static_cast<std::ptrdiff_t>(split), all.end());
            vocab_.push_back("<pad>");
            for (char32_t cp : tok.code_points()) vocab_.push_back(utf8(cp));  // id i + 1 is code point i
        } else {
            vocab_ = grammar_vocab();
        }
    }
    const std::vector<std::string>& vocab() const { return vocab_; }

    Batch next(Generator& gen) const {
        const auto& g = data::toy_grammar();
        if (kind_ == "causal") return from_lm(data::make_lm_batch(g, gen, config_.batch, config_.context));
        if (kind_ == "char") return from_lm(data::make_char_lm_batch(train_tokens_, gen, config_.batch, config_.context));
        return from_mlm(data::make_mlm_batch(g, gen, config_.batch, config_.context, config_.mask_prob));
    }

    // Fixed validation batches, and their exact floor (NaN for characters).
    std::vector<Batch> validation(double* floor) const {
        const auto& g = data::toy_grammar();
        std::vector<Batch> out;
        if (kind_ == "causal") {
            auto v = data::make_lm_validation(g, config_.val_batches, config_.batch, config_.context);
            for (auto& b : v) out.push_back(from_lm(b));
            *floor = data::bayes_floor(g, v);
        } else if (kind_ == "char") {
            Generator gen(data::kValidationSeed);
            for (std::int64_t i = 0; i < config_.val_batches; ++i)
                out.push_back(from_lm(data::make_char_lm_batch(val_tokens_, gen, config_.batch, config_.context)));
            *floor = NAN;
        } else {
            auto v = data::make_mlm_validation(g, config_.val_batches, config_.batch, config_.context, config_.mask_prob);
            for (auto& b : v) out.push_back(from_mlm(b));
            *floor = data::bayes_floor_mlm(g, v);
        }
        return out;
    }

private:
    static std::string utf8(char32_t cp) {
        std::string s;
        data::append_utf8(s, cp);
        return s;
    }
    const TrainConfig& config_;
    std::string kind_;
    std::vector<std::int64_t> train_tokens_, val_tokens_;
    std::vector<std::string> vocab_;
};

// Mean loss and accuracy over the predicted (non-ignored) tokens of some batches.
Evaluation evaluate_batches(Transformer& model, const std::vector<Batch>& batches) {
    NoGradGuard no_grad;
    const bool was_training = model.is_training();
    model.eval();
    double total = 0, correct = 0, count = 0;
    for (const Batch& b : batches) {
        Tensor logits = model.forward(b.ids, b.padding);
        const std::vector<std::int64_t> t = b.targets.to_vector<std::int64_t>();
        const std::vector<std::int64_t> guess = argmax(logits, -1).to_vector<std::int64_t>();
        double n = 0;
        for (std::size_t i = 0; i < t.size(); ++i)
            if (t[i] != kIgnoreIndex) n += 1, correct += guess[i] == t[i];
        total += cross_entropy(logits, b.targets).item() * n;
        count += n;
    }
    model.train(was_training);
    return {total / count, correct / count, NAN};
}

std::string kind_of(const TrainConfig& c) {
    if (!c.corpus.empty()) return "char";
    if (c.model == "causal" || c.model == "single-head" || c.model == "multi-head") return c.model;
    throw ValueError("train: unknown model '" + c.model + "' (expected causal, single-head or multi-head)");
}

bool is_tty() { return ::isatty(STDOUT_FILENO); }

// The header and the rows of a loss CSV whose step is at most `last`.
std::string curve_up_to(const std::string& csv, std::int64_t last) {
    std::string out;
    std::size_t pos = 0;
    while (pos < csv.size()) {
        const std::size_t end = std::min(csv.find('\n', pos), csv.size());
        const std::string line = csv.substr(pos, end - pos);
        if (pos == 0 || (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0])) && std::stoll(line) <= last))
            out += line + "\n";
        pos = end + 1;
    }
    return out;
}

}  // namespace

TrainConfig standard_config(const std::string& name) {
    TrainConfig c;
    if (name == "causal_model") {
        c.model = "causal", c.steps = 600, c.batch = 16;
    } else if (name == "single_head_model" || name == "multi_head_model") {
        // Masked-token prediction learns from ~15% of the tokens only: bigger batches, more steps.
        c.model = name == "single_head_model" ? "single-head" : "multi-head";
        c.n_heads = name == "single_head_model" ? 1 : 4;
        c.steps = 1000, c.batch = 32;
    } else {
        throw ValueError("standard_config: unknown model '" + name + "' (causal_model, single_head_model, multi_head_model)");
    }
    return c;
}

LoadedCheckpoint load_or_train(const std::string& name, const std::string& dir) {
    const std::string path = dir + "/" + name + ".safetensors";
    if (!std::filesystem::exists(path)) {
        std::printf("%s is missing: training it first (as `make train` does)\n", path.c_str());
        TrainConfig c = standard_config(name);
        c.out = path;
        train(c);
    }
    return load_checkpoint(path);
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

Evaluation evaluate(Transformer& model, const std::string& kind, std::int64_t batch, std::int64_t n_batches,
                    double mask_prob) {
    TrainConfig c;
    c.model = kind, c.batch = batch, c.val_batches = n_batches, c.mask_prob = mask_prob;
    c.context = model.config().context;
    double floor = NAN;
    BatchSource source(c, kind_of(c));
    Evaluation e = evaluate_batches(model, source.validation(&floor));
    e.floor = floor;
    return e;
}

TrainResult train(const TrainConfig& requested) {
    using Clock = std::chrono::steady_clock;
    TrainConfig c = requested;
    TrainResult result;

    // ---- the model: fresh, or resumed with its hyper-parameters and training state
    std::unique_ptr<Transformer> model;
    LoadedCheckpoint resumed;
    std::int64_t start_step = 0;
    Generator data_gen(c.seed ^ 0xda7a);  // the batch stream, separate from the init stream
    if (!c.resume.empty()) {
        resumed = load_checkpoint(c.resume);
        if (!resumed.has_training_state)
            throw ValueError("train: '" + c.resume + "' holds no training state (it was saved without --resume support)");
        model = std::move(resumed.model);
        const TransformerConfig& mc = model->config();
        c.model = resumed.info.kind == "char" ? "causal" : resumed.info.kind;
        c.d_model = mc.d_model, c.n_heads = mc.n_heads, c.n_layers = mc.n_layers, c.context = mc.context;
        c.window = mc.window, c.stride = mc.stride;
        if (resumed.info.kind == "causal") c.causal_mask = mc.causal;
        start_step = resumed.step;
        data_gen.set_state(resumed.data_rng);
    }
    const std::string kind = kind_of(c);
    if (kind == "single-head") c.n_heads = 1;
    BatchSource source(c, kind);
    if (!model) {
        TransformerConfig mc;
        mc.vocab_size = static_cast<std::int64_t>(source.vocab().size());
        mc.d_model = c.d_model, mc.n_heads = c.n_heads, mc.n_layers = c.n_layers, mc.context = c.context;
        mc.causal = (kind == "causal" || kind == "char") && c.causal_mask;
        mc.window = c.window, mc.stride = c.stride;
        model = std::make_unique<Transformer>(mc, c.seed);
    }
    AdamW opt(model->named_parameters(), c.lr, 0.9, 0.999, 1e-8, c.weight_decay);
    if (!c.resume.empty()) {
        opt.load_state(resumed.optimizer_state);
        opt.set_steps(start_step);
    }
    double floor = NAN;
    const std::vector<Batch> val = source.validation(&floor);

    // ---- the loop
    const TrainConfig::Progress mode = c.progress == TrainConfig::Progress::automatic
                              ? (is_tty() ? TrainConfig::Progress::automatic : TrainConfig::Progress::plain)
                              : c.progress;
    std::string csv = "step,loss,val_loss\n";
    std::string previous_csv;  // a resumed run extends the curve it continues, up to its step
    if (!c.resume.empty()) {
        try {
            previous_csv = curve_up_to(read_file(loss_csv_path(c.resume)), start_step);
        } catch (const IOError&) {  // no curve beside the checkpoint: start a new one
        }
    }
    // Checkpoint + loss CSV, written atomically, at each evaluation and at the end.
    auto save = [&](std::int64_t step, const Evaluation& e) {
        if (c.out.empty()) return;
        CheckpointInfo info{kind, source.vocab(), {}};
        info.extra["val_loss"] = std::to_string(e.loss);
        info.extra["val_accuracy"] = std::to_string(e.accuracy);
        if (!std::isnan(floor)) info.extra["bayes_floor"] = std::to_string(floor);
        info.extra["seed"] = std::to_string(c.seed);
        info.extra["total_steps"] = std::to_string(c.steps);
        const TrainingState state{&opt, step, data_gen.state()};
        save_checkpoint(c.out, *model, info, &state);
        write_file_atomic(loss_csv_path(c.out), previous_csv.empty() ? csv : previous_csv + csv.substr(csv.find('\n') + 1));
    };
    const auto t0 = Clock::now();
    double last_val = NAN;
    if (c.on_eval && start_step == 0) c.on_eval(0, *model);
    const std::int64_t end_step = c.stop_after > 0 ? std::min(c.stop_after, c.steps) : c.steps;
    for (std::int64_t step = start_step; step < end_step; ++step) {
        opt.lr = warmup_cosine_lr(step, c.lr, c.warmup, c.steps, c.lr / 10);
        const Batch b = source.next(data_gen);
        opt.zero_grad();
        Tensor loss = cross_entropy(model->forward(b.ids, b.padding), b.targets);
        loss.backward();
        clip_grad_norm(model->parameters(), c.clip);
        opt.step();

        TrainPoint point{step + 1, loss.item(), NAN};
        char row[96];
        std::snprintf(row, sizeof row, "%lld,%.6f,", static_cast<long long>(point.step), point.loss);
        csv += row;
        const bool last = step + 1 == end_step;
        if ((step + 1) % c.eval_every == 0 || last) {
            const Evaluation e = evaluate_batches(*model, val);
            point.val_loss = last_val = e.loss;
            csv += std::to_string(e.loss);
            save(step + 1, e);
            if (c.on_eval) c.on_eval(step + 1, *model);
        }
        csv += "\n";
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
            std::printf("%sstep %lld/%lld | loss %.3f | val %.3f%s | %.1fk tok/s | ETA %.0f s%s",
                        mode == TrainConfig::Progress::automatic ? "\r" : "", static_cast<long long>(step + 1),
                        static_cast<long long>(c.steps), point.loss, last_val, floor_part, tok_s / 1e3, eta,
                        mode == TrainConfig::Progress::automatic ? "\033[K" : "\n");
            std::fflush(stdout);
        }
    }
    if (mode == TrainConfig::Progress::automatic) std::printf("\n");
    result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    result.tokens_per_second = static_cast<double>((end_step - start_step) * c.batch * c.context) / result.seconds;
    result.final_eval = evaluate_batches(*model, val);
    result.final_eval.floor = floor;
    result.vocab = source.vocab();
    result.kind = kind;

    result.model = std::move(model);
    return result;
}

}  // namespace attnlab::nn
