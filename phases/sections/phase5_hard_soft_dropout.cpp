// phase5_hard_soft_dropout.cpp — the bodies of phases/phase5_hard_soft_dropout.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase5_hard_soft_dropout.hpp"

namespace attnlab::phase5 {

using namespace attnlab::phase;

nn::Seq2SeqConfig reversal_config(std::int64_t hidden, nn::Normalizer normalizer) {
    nn::Seq2SeqConfig c;
    c.vocab = data::kReversalVocab, c.hidden = hidden, c.normalizer = normalizer;  // additive scoring, as phase 5's main model
    return c;
}

GradientNorms gradient_norms(nn::Seq2Seq& model, const data::ReversalBatch& batch) {
    model.zero_grad();
    nn::cross_entropy(model.forward(batch.src, batch.lengths, batch.tgt_in).logits, batch.tgt_out).backward();
    auto norm = [](const std::vector<Tensor>& ps) {
        double s = 0;
        for (const Tensor& t : ps)
            if (t.grad().defined()) s += sum(t.grad() * t.grad()).item();
        return std::sqrt(s);
    };
    GradientNorms g{norm(model.scoring->parameters()), norm(model.parameters())};
    model.zero_grad();
    return g;
}

double distance(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {  // |a - b| over all tensors
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += sum((a[i] - b[i]) * (a[i] - b[i])).item();
    return std::sqrt(s);
}

void section12_hard_vs_soft(Frame& p, const nn::Seq2Seq& soft, const lab::ReversalTrainResult& soft_result,
                            const std::vector<data::Digits>& held_out, const data::ReversalConfig& task,
                            std::int64_t steps, std::int64_t hidden) {
    section("12. Hard (top-1) vs soft attention, " + std::to_string(steps) + " steps each");
    const std::vector<std::pair<std::string, nn::Normalizer>> kinds{{"soft (softmax)", nn::Normalizer::softmax()},
                                                                     {"hard (top-1)", nn::Normalizer::topk(1)}};
    std::vector<std::unique_ptr<nn::Seq2Seq>> start_models;  // each kind at its initial weights
    std::vector<std::vector<Tensor>> start;  // the scorers' initial parameters, copied
    std::vector<GradientNorms> grads;
    Generator batch_gen(p.seed + 20);
    const data::ReversalBatch batch = data::sample_reversal_batch(batch_gen, 64, task);
    for (const auto& k : kinds) {
        Generator init(p.seed + 10);  // the same initial weights for both (and for step 5's models)
        start_models.push_back(std::make_unique<nn::Seq2Seq>(reversal_config(hidden, k.second), init));
        grads.push_back(gradient_norms(*start_models.back(), batch));
        std::vector<Tensor> copy;
        for (const Tensor& t : start_models.back()->scoring->parameters()) copy.push_back(t.detach().clone());
        start.push_back(copy);
    }
    const nn::Seq2SeqConfig& sc = soft.config();
    if (!sc.attention || sc.scoring != nn::ScoreKind::additive || sc.hidden != hidden || static_cast<std::int64_t>(soft_result.loss.size()) != steps)
        throw ValueError("phase 5 step 12: the soft model passed in is not step 5's additive softmax comparison of " + std::to_string(steps) + " steps");
    nn::Seq2Seq& hard = *start_models[1];  // trained from its start; its start parameters are copied above
    std::vector<lab::ReversalTrainResult> results{soft_result, lab::train_reversal(hard, {.steps = steps, .checkpoints = {steps}}, held_out, task)};
    const std::vector<const nn::Seq2Seq*> models{&soft, &hard};
    lab::Table t({{"attention", "attention", 14, -1}, {"scorer_grad_norm", "|dL/d scorer|", 13, 4},
                  {"model_grad_norm", "|dL/d all|", 10, 4}, {"scorer_moved", "scorer moved", 12, 4},
                  {"accuracy", "accuracy", 8, 4}, {"anti_diagonal", "anti-diag", 9, 4}, {"final_loss", "last loss", 9, 4}}, "  ");
    t.print_header();
    std::vector<plots::Series> curves;
    for (std::size_t i = 0; i < models.size(); ++i) {
        const lab::ReversalEval& e = results[i].evals.at(steps);
        const lab::Curve c = loss_curve(results[i].loss);
        t.row({kinds[i].first, grads[i].scorer, grads[i].all, distance(models[i]->scoring->parameters(), start[i]), e.accuracy,
               e.anti_diagonal, c.value.back()});
        curves.push_back({.name = kinds[i].first, .x = c.step, .y = c.value, .markers = false});
    }
    std::printf("  top-1 gives the chosen key weight 1 whatever its score, so d weight / d score = 0: the scorer gets no gradient\n"
                "  and never moves; the model must reverse through whichever key its untrained scorer happens to pick.\n");
    p.m["hard_vs_soft"] = Json::Object{{"steps", steps}, {"rows", t.json_by("attention")}};
    p.out.figure(plots::line_chart(curves, {.title = "Hard (top-1) vs soft attention on reversal", .x_title = "step",
                                            .y_title = "training loss (mean of 20 steps)"}),
                 "hard_vs_soft",
                 "Phase 5: reversal trained with soft (softmax) and hard (top-1) attention from the same start: hard attention passes no gradient to its scorer.");
}

std::vector<lab::TrainResult> dropout_runs(std::int64_t steps, const std::vector<double>& rates) {
    std::vector<lab::TrainResult> results(rates.size());
    std::vector<std::function<void()>> jobs;
    for (std::size_t i = 0; i < rates.size(); ++i)
        jobs.push_back([&, i] {
            lab::TrainConfig c = lab::standard_config(lab::Task::causal);
            c.steps = steps, c.dropout = rates[i], c.eval_every = steps, c.progress = lab::TrainConfig::Progress::quiet;
            c.warmup = std::min(c.warmup, steps / 2);  // a short --steps still gets a cosine decay
            results[i] = lab::train(c);
        });
    lab::run_concurrently(jobs, 2);
    return results;
}

lab::Curve train_loss_curve(const lab::TrainResult& r) {
    std::vector<double> loss;
    for (const lab::TrainPoint& pt : r.curve) loss.push_back(pt.loss);
    return loss_curve(loss);
}

void section12b_dropout(Frame& p, std::int64_t steps) {
    section("12b. Dropout after the attention weights (and each residual branch), TinyGPT, " +
            std::to_string(steps) + " steps");
    const std::vector<double> rates{0.0, 0.1};
    const std::vector<lab::TrainResult> results = dropout_runs(steps, rates);
    lab::Table t({{"dropout", "dropout", 7, 2}, {"train_loss_last20", "train loss (last 20)", 20, 4},
                  {"val_loss", "val loss", 8, 4}, {"gap", "val - train", 11, 4}, {"val_accuracy", "val acc", 7, 4},
                  {"bayes_floor", "floor", 6, 3}}, "  ");
    t.print_header();
    std::vector<plots::Series> curves;
    for (std::size_t i = 0; i < rates.size(); ++i) {
        const lab::TrainResult& r = results[i];
        const lab::Curve c = train_loss_curve(r);
        t.row({rates[i], c.value.back(), r.final_eval.loss, r.final_eval.loss - c.value.back(), r.final_eval.accuracy, r.final_eval.floor});
        curves.push_back({.name = "dropout " + plots::layout::format_fixed(rates[i], 1), .x = c.step, .y = c.value, .markers = false});
    }
    std::printf("  (training losses with dropout are measured with units dropped; validation never drops)\n");
    p.m["attention_dropout"] = Json::Object{{"steps", steps}, {"rows", t.json()}};
    p.out.figure(plots::line_chart(curves, {.title = "Dropout 0.1 in TinyGPT (training loss)",
                                            .x_title = "step", .y_title = "training loss (mean of 20 steps)"}),
                 "attention_dropout",
                 "Phase 5: the causal TinyGPT trained with dropout 0 and 0.1 (attention weights and residual branches), same seed and data.");
}

void sections12_13_hard_soft_positions(Frame& p, const nn::Seq2Seq& soft, const lab::ReversalTrainResult& soft_result,
                   const std::vector<data::Digits>& held_out, const data::ReversalConfig& task, std::int64_t steps,
                   std::int64_t hidden) {
    section12_hard_vs_soft(p, soft, soft_result, held_out, task, steps, hidden);
    section12b_dropout(p, steps);
    section13_learned_vs_sinusoidal(p, steps);
}

}  // namespace attnlab::phase5
