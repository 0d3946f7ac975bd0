// phase5_positional.cpp — the bodies of phases/phase5_positional.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase5_positional.hpp"

namespace attnlab::phase {

lab::Curve loss_curve(const std::vector<double>& loss) {
    const std::size_t window = std::min<std::size_t>(20, loss.size());
    return lab::smooth(loss, window, std::max<std::size_t>(1, window / 2));
}

}  // namespace attnlab::phase

namespace attnlab::phase::positional {

ReverseResult train_reverse(const ReverseTask& task, Positions positions, std::uint64_t seed) {
    const bool learned = positions == Positions::learned;
    Generator init(seed);  // the same initial weights for the shared parts
    nn::Embedding tok(task.vocab, task.d_model, init);
    nn::MultiHeadAttention attn(task.d_model, 1, 0, 0, init);
    nn::Linear out(task.d_model, task.vocab, true, init);
    nn::LearnedPositionalEmbedding table(task.T, task.d_model, init);
    const Tensor sinusoid = nn::sinusoidal_positional_encoding(task.T, task.d_model);  // (T, d_model)
    std::vector<nn::NamedParameter> params;
    for (const nn::Module* m : std::vector<const nn::Module*>{&tok, &attn, &out})
        for (const nn::NamedParameter& np : m->named_parameters()) params.push_back(np);
    if (learned)
        for (const nn::NamedParameter& np : table.named_parameters()) params.push_back(np);
    nn::Adam opt(params, task.lr);
    auto logits = [&](const Tensor& x) {  // x (B, T) -> (B, T, vocab)
        const Tensor e = tok.forward(x);  // (B, T, d_model)
        const Tensor h = positions == Positions::none ? e : e + (learned ? table.forward(task.T) : sinusoid);
        return out.forward(attn.forward_output(h));
    };
    auto reversed = [](const Tensor& x) {  // (B, T) int64, each row back to front
        std::vector<std::int64_t> v = x.to_vector<std::int64_t>();
        const std::int64_t T = x.size(1);
        for (std::size_t r = 0; r < v.size(); r += static_cast<std::size_t>(T)) std::reverse(v.begin() + r, v.begin() + r + T);
        return from_vector(v, {x.size(0), T});
    };
    Generator data(seed + 1);
    ReverseResult r;
    for (std::int64_t s = 0; s < task.steps; ++s) {
        const Tensor x = randint(0, task.vocab, {task.batch, task.T}, data);
        opt.zero_grad();
        Tensor loss = nn::cross_entropy(logits(x), reversed(x));
        loss.backward();
        opt.step();
        r.loss.push_back(loss.item());
    }
    NoGradGuard no_grad;
    const Tensor x = randint(0, task.vocab, {512, task.T}, data);
    r.accuracy = mean(eq(argmax(logits(x), -1).to(kFloat32), reversed(x).to(kFloat32)).to(kFloat32)).item();
    return r;
}

std::int64_t first_below(const lab::Curve& c, double level) {
    for (std::size_t k = 0; k < c.value.size(); ++k)
        if (c.value[k] < level) return static_cast<std::int64_t>(c.step[k]);
    return -1;
}

}  // namespace attnlab::phase::positional

namespace attnlab::phase5 {

using namespace phase;
using namespace phase::positional;

void section13_learned_vs_sinusoidal(Frame& p, std::int64_t steps) {
    ReverseTask task;
    task.steps = steps;
    section("13. Learned vs sinusoidal positions, reversing " + std::to_string(task.T) + " tokens");
    std::printf("  one-head attention, d_model %lld, vocab %lld, batch %lld, %lld Adam steps at %g, same seed\n",
                static_cast<long long>(task.d_model), static_cast<long long>(task.vocab), static_cast<long long>(task.batch),
                static_cast<long long>(task.steps), task.lr);
    ReverseResult results[2];
    lab::run_concurrently({[&] { results[0] = train_reverse(task, Positions::sinusoidal, p.seed + 30); },
                           [&] { results[1] = train_reverse(task, Positions::learned, p.seed + 30); }}, 2);
    lab::Table t({{"positions", "positions", 11, -1}, {"accuracy", "accuracy", 8, 4}, {"final_loss", "last 20 loss", 12, 4},
                  {"steps_to_loss_0_1", "steps to loss < 0.1", 19, -1}}, "  ");
    t.print_header();
    std::vector<plots::Series> curves;
    const char* names[2] = {"sinusoidal", "learned"};
    for (int i = 0; i < 2; ++i) {
        const lab::Curve c = loss_curve(results[i].loss);
        t.row({names[i], results[i].accuracy, c.value.back(), first_below(c, 0.1)});
        curves.push_back({.name = names[i], .x = c.step, .y = c.value, .markers = false});
    }
    std::printf("  (chance: accuracy %.2f, loss ln %lld = %.3f)\n", 1.0 / static_cast<double>(task.vocab),
                static_cast<long long>(task.vocab), std::log(static_cast<double>(task.vocab)));
    p.m["learned_vs_sinusoidal"] = Json::Object{{"steps", task.steps}, {"rows", t.json_by("positions")}};
    p.out.figure(plots::line_chart(curves, {.title = "Learned vs sinusoidal positions (reverse 8 tokens)",
                                            .x_title = "step", .y_title = "training loss (mean of 20 steps)"}),
                 "learned_vs_sinusoidal",
                 "Phase 5: one attention layer reversing 8 tokens with sinusoidal and with learned positional encodings, same seed and batches.");
}

}  // namespace attnlab::phase5
