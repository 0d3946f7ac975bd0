// seq2seq_experiment.cpp — see seq2seq_experiment.hpp.
#include "experiments/seq2seq_experiment.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <mutex>
#include <thread>

#include "autograd/node.hpp"
#include "data/vocab.hpp"
#include "training/run_config.hpp"
#include "analyses/show.hpp"
#include "nn/loss.hpp"
#include "nn/optim.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

using namespace attnlab::nn;  // an experiment is written in nn's words: layers, losses, optimizers

ReversalEval evaluate_reversal(const nn::Seq2Seq& model, const std::vector<data::Digits>& sources) {
    NoGradGuard no_grad;
    ReversalEval ev;
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> tally;  // length -> (correct, total)
    double diag_sum = 0, real_keys = 0, zero_keys = 0;
    double loss_sum = 0, loss_tokens = 0;
    std::int64_t diag_count = 0, correct = 0;
    for (std::size_t at = 0; at < sources.size(); at += 256) {
        const std::vector<data::Digits> part(sources.begin() + static_cast<std::ptrdiff_t>(at),
                                             sources.begin() + static_cast<std::ptrdiff_t>(std::min(at + 256, sources.size())));
        const data::ReversalBatch batch = data::make_reversal_batch(part);
        const std::int64_t S = batch.src.size(1);
        const GreedyOutput decoded = model.greedy(batch.src, batch.lengths, S + 1, data::kReversalBos, data::kReversalEos);
        const Seq2SeqOutput teacher = model.forward(batch.src, batch.lengths, batch.tgt_in);
        const Tensor& w = teacher.weights;  // [B, S + 1, S] or undefined
        double tokens = 0;                  // every row's L digits and its <eos>
        for (const data::Digits& d : part) tokens += static_cast<double>(d.size() + 1);
        loss_sum += cross_entropy(teacher.logits, batch.tgt_out).item() * tokens, loss_tokens += tokens;
        for (std::size_t b = 0; b < part.size(); ++b) {
            data::Digits want = data::reversed(part[b]);
            want.push_back(data::kReversalEos);
            const auto L = static_cast<std::int64_t>(part[b].size());
            const bool ok = decoded.tokens[b] == want;
            correct += ok;
            tally[L].first += ok, tally[L].second += 1;
            if (!w.defined()) continue;
            for (std::int64_t t = 0; t <= L; ++t)  // output steps: L digits, then <eos>
                for (std::int64_t i = 0; i < L; ++i) {
                    const double a = w.at({static_cast<std::int64_t>(b), t, i});
                    real_keys += 1, zero_keys += a == 0.0;
                    if (t < L && i == L - 1 - t) diag_sum += a, ++diag_count;
                }
        }
    }
    ev.accuracy = static_cast<double>(correct) / static_cast<double>(sources.size());
    for (const auto& [len, ct] : tally) ev.by_length[len] = static_cast<double>(ct.first) / static_cast<double>(ct.second);
    ev.anti_diagonal = diag_count ? diag_sum / static_cast<double>(diag_count) : 0.0;
    ev.zero_fraction = real_keys > 0 ? zero_keys / real_keys : 0.0;
    ev.loss = loss_tokens > 0 ? loss_sum / loss_tokens : 0.0;
    return ev;
}

ReversalTrainResult train_reversal(nn::Seq2Seq& model, const ReversalTrainConfig& config, const std::vector<data::Digits>& held_out,
                           const data::ReversalConfig& task) {
    const auto t0 = std::chrono::steady_clock::now();
    Generator data_gen(config.data_seed);
    ReversalTrainResult result;
    result.optimizer = std::make_shared<Adam>(model.named_parameters(), config.lr);
    Adam& opt = *result.optimizer;
    if (config.resume) {
        opt.load_state(config.resume->optimizer_state);
        opt.set_steps(config.resume->step);
        data_gen.set_state(config.resume->data_rng);
        result.first_step = config.resume->step + 1;
    }
    const std::vector<Tensor> params = model.parameters();
    const std::int64_t last = config.stop_after > 0 ? std::min(config.stop_after, config.steps) : config.steps;
    for (std::int64_t step = result.first_step; step <= last; ++step) {
        const data::ReversalBatch batch = data::sample_reversal_batch(data_gen, config.batch_size, task);
        Tensor loss = cross_entropy(model.forward(batch.src, batch.lengths, batch.tgt_in).logits, batch.tgt_out);
        opt.lr = warmup_cosine_lr(step, config.lr, config.warmup, config.steps, config.lr * 0.01);
        opt.zero_grad();
        loss.backward();
        clip_grad_norm(params, 1.0);
        opt.step();
        result.loss.push_back(loss.item());
        result.last_step = step;
        if (std::find(config.checkpoints.begin(), config.checkpoints.end(), step) != config.checkpoints.end())
            result.evals[step] = evaluate_reversal(model, held_out);
    }
    result.data_rng = data_gen.state();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

Curve smooth(const std::vector<double>& values, std::size_t window, std::size_t every) {
    Curve c;
    for (std::size_t end = window; end <= values.size(); end += every) {
        double sum = 0;
        for (std::size_t i = end - window; i < end; ++i) sum += values[i];
        c.step.push_back(static_cast<double>(end));
        c.value.push_back(sum / static_cast<double>(window));
    }
    return c;
}

void save_reversal_model(const std::string& path, const nn::Seq2Seq& model, const data::ReversalConfig& task,
                         std::map<std::string, std::string> extra, const nn::TrainingState* training) {
    extra["min_len"] = std::to_string(task.min_len), extra["max_len"] = std::to_string(task.max_len);
    save_seq2seq(path, model, extra, training);
}

ReversalModel load_reversal_model(const std::string& path) {
    LoadedSeq2Seq loaded = load_seq2seq(path);
    return reversal_model(loaded, path);
}

ReversalModel reversal_model(LoadedSeq2Seq& loaded, const std::string& path) {
    ReversalModel m{std::move(loaded.model), {}, std::move(loaded.extra)};
    if (m.model->config().vocab != data::kReversalVocab)
        throw IOError("load_reversal_model: '" + path + "' has a vocabulary of " + std::to_string(m.model->config().vocab) +
                      " tokens; the reversal task has " + std::to_string(data::kReversalVocab));
    auto length = [&](const std::string& key, std::int64_t lo) {
        auto it = m.extra.find(key);
        const std::optional<std::int64_t> v = it == m.extra.end() ? std::nullopt : parse_int64(it->second);
        if (!v || *v < lo || *v > kLongestReversal)
            throw IOError("load_reversal_model: '" + path + "': metadata '" + key + "' is " +
                          (it == m.extra.end() ? "missing" : "'" + it->second + "'") + ", not a length in [" +
                          std::to_string(lo) + ", " + std::to_string(kLongestReversal) + "]");
        m.extra.erase(it);
        return *v;
    };
    m.task.min_len = length("min_len", 1);
    m.task.max_len = length("max_len", m.task.min_len);
    return m;
}

ReversalDecode decode_reversal(const nn::Seq2Seq& model, const data::Digits& source) {
    const auto L = static_cast<std::int64_t>(source.size());
    const data::ReversalBatch batch = data::make_reversal_batch({source});
    const GreedyOutput out = model.greedy(batch.src, batch.lengths, L + 1, data::kReversalBos, data::kReversalEos);
    data::Digits want = data::reversed(source);
    want.push_back(data::kReversalEos);
    return {source, out.tokens[0], out.tokens[0] == want, out.weights.defined() ? out.weights.select(0, 0) : Tensor()};
}

void print_decode(const ReversalDecode& d) {
    data::Digits want = data::reversed(d.source);
    want.push_back(data::kReversalEos);
    std::printf("source   %s\noutput   %s\nreversal %s\n", data::to_string(d.source).c_str(), data::to_string(d.output).c_str(),
                d.is_reversal ? "yes" : ("no (the reversal is " + data::to_string(want) + ")").c_str());
    if (d.weights.defined()) std::cout << "attention (rows: output steps, columns: source positions)\n" << d.weights << "\n";
}

plots::Figure alignment_heatmap(const ReversalDecode& d) {
    std::vector<std::string> rows, cols;
    for (std::size_t i = 0; i < d.source.size(); ++i) cols.push_back("x" + std::to_string(i + 1) + "=" + std::to_string(d.source[i]));
    for (std::size_t t = 0; t < d.output.size(); ++t) rows.push_back("y" + std::to_string(t + 1) + "=" + data::to_string({d.output[t]}));
    const plots::HeatmapOptions opt{.title = "Alignment while reversing " + data::to_string(d.source), .row_labels = rows,
                                    .col_labels = cols, .x_title = "source position (digit)",
                                    .y_title = "output step (token emitted)", .vmin = 0.0, .vmax = 1.0,
                                    .annotate = d.source.size() <= 12, .colorbar_label = "attention weight"};
    return plots::heatmap(to_matrix(d.weights), opt);
}

std::string parse_digits(const std::string& text, data::Digits& out) {
    out.clear();
    // A run of other characters is one unknown word ("x", "-", "é"), named as every program names one.
    std::vector<std::string> unknown;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (ch == ' ' || ch == ',') continue;
        if (ch >= '0' && ch <= '9') {
            out.push_back(ch - '0');
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && text[end] != ' ' && text[end] != ',' && (text[end] < '0' || text[end] > '9')) ++end;
        const std::string word = text.substr(i, end - i);
        if (std::find(unknown.begin(), unknown.end(), word) == unknown.end()) unknown.push_back(word);
        i = end - 1;
    }
    if (!unknown.empty()) return data::unknown_words_message(unknown, {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"});
    return out.empty() ? "no digits (write them as \"3 1 4 1 5\")" : "";
}

void run_concurrently(const std::vector<std::function<void()>>& jobs, int threads) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto worker = [&] {
        for (std::size_t i; (i = next++) < jobs.size();) {
            try {
                jobs[i]();
            } catch (...) {
                std::lock_guard lock(error_mutex);
                if (!error) error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace attnlab::lab
