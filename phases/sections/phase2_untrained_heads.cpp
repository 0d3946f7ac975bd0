// phase2_untrained_heads.cpp — the bodies of phases/phase2_untrained_heads.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase2_untrained_heads.hpp"

namespace attnlab::phase2 {

using namespace attnlab::phase;

Strongest strongest(const Tensor& w) {
    const std::int64_t T = w.size(1), flat = static_cast<std::int64_t>(argmax(w.reshape({-1}), 0).item());
    return {flat / T, flat % T, w.at({flat / T, flat % T})};
}

plots::HeatmapGridOptions grid_options(std::string title, std::vector<std::string> labels, std::vector<std::string> panels) {
    plots::HeatmapGridOptions go;
    go.title = std::move(title);
    go.row_labels = go.col_labels = std::move(labels);
    go.panel_titles = std::move(panels);
    go.colormap = plots::Colormap::blues;
    go.annotate = true;
    go.vmin = 0.0, go.vmax = 1.0;
    go.colorbar_label = "weight";
    return go;
}

DropoutTrial dropout_trial(std::uint64_t seed, int draws) {
    NoGradGuard no_grad;
    Generator gen(seed);
    nn::MultiHeadAttention mha(64, 8, 0, 0, gen);
    mha.dropout = 0.1, mha.dropout_gen = &gen;
    const Tensor x = randn({2, 6, 64}, kFloat32, gen);  // (B, T, d_model), the course's test input
    DropoutTrial r;
    mha.eval();
    r.eval = mha.forward(x);
    const Tensor e2 = mha.forward(x).output;
    mha.train();
    const Tensor t1 = mha.forward(x).output;
    Tensor mean_train = zeros_like(t1);
    for (int k = 0; k < draws; ++k) mean_train = mean_train + mha.forward(x).output / double(draws);
    mha.eval();
    const Tensor& e = r.eval.output;
    auto rel = [&](const Tensor& a) { return std::sqrt(sum((a - e) * (a - e)).item() / sum(e * e).item()); };
    r.eval_twice = rel(e2), r.one_draw = rel(t1), r.mean_of_draws = rel(mean_train);
    r.dropped = nn::dropout(r.eval.weights, 0.1, gen);                                       // 10% zeroed, the rest / 0.9
    r.zeroed = mean(eq(r.dropped, zeros_like(r.dropped)).to(kFloat32)).item();
    r.d_k = mha.d_k;
    return r;
}

void section1_dropout(Frame& p) {
    section("7a. MultiHeadAttention(64, 8) with dropout 0.1 on the weights: train vs eval");
    const int draws = 200;
    const DropoutTrial d = dropout_trial(p.seed, draws);
    const nn::AttentionResult& e = d.eval;
    const double zeroed = d.zeroed;
    const Tensor w_eval = e.weights.select(0, 0).select(0, 0), w_train = d.dropped.select(0, 0).select(0, 0);  // (T, T), head 1
    lab::Table t({{"comparison", "comparison", 34, -1}, {"relative_difference", "|a - eval| / |eval|", 19, 4}}, "  ");
    t.print_header();
    t.row({"eval, run twice", d.eval_twice});
    t.row({"train (one dropout draw)", d.one_draw});
    t.row({"mean of " + std::to_string(draws) + " train draws", d.mean_of_draws});
    std::printf("  output %s, weights %s, d_k %lld; one draw zeroes %.1f%% of the %lld weights (p = 0.1)\n",
                e.output.shape().str().c_str(), e.weights.shape().str().c_str(), static_cast<long long>(d.d_k), 100 * zeroed,
                static_cast<long long>(e.weights.numel()));
    p.m["untrained_dropout"] = Json::Object{{"rows", t.json_by("comparison")}, {"zeroed_fraction", zeroed}, {"draws", draws}};
    std::vector<std::string> labels;
    for (int i = 1; i <= 6; ++i) labels.push_back(std::to_string(i));
    plots::HeatmapGridOptions go = grid_options("Dropout 0.1 on the weights (head 1, sequence 1)", labels,
                                                {"eval: softmax weights", "train: 10% dropped, rest / 0.9"});
    go.vmax = max(w_train).item(), go.columns = 2;
    p.out.figure(plots::heatmap_grid({to_matrix(w_eval), to_matrix(w_train)}, go), "untrained_dropout",
                 "Phase 2: an untrained MHA(64, 8) with dropout 0.1 on the attention weights: eval weights vs one training draw (zeros dropped, the rest scaled by 1/0.9).");
}

Tensor structured_embeddings(Generator& gen) {
    Tensor e = randn({6, 64}, kFloat32, gen);  // (T, d_model)
    std::vector<Tensor> rows;
    for (std::int64_t i = 0; i < 6; ++i) rows.push_back(e.select(0, i));
    rows[4] = rows[0] + randn({64}, kFloat32, gen) * 0.2;  // articles similar
    rows[5] = rows[1] + randn({64}, kFloat32, gen) * 0.3;  // nouns similar
    rows[2] = rows[2] + rows[1] * 0.1;                     // sat influenced by cat
    return stack(rows, 0);
}

void section2_structured_embeddings(Frame& p, const Tensor& trained, const std::vector<std::string>& trained_tokens) {
    section("7b. Structured embeddings through a random MHA(64, 4), beside the trained model");
    const std::vector<std::string> tokens{"The", "cat", "sat", "on", "the", "mat"};
    Generator gen(p.seed + 42);
    const Tensor x = structured_embeddings(gen).unsqueeze(0);  // (1, T, d_model)
    nn::MultiHeadAttention mha(64, 4, 0, 0, gen);
    mha.eval();
    const Tensor random_w = mha.forward(x).weights.select(0, 0);  // (H, T, T)
    lab::Table t({{"model", "model", 13, -1}, {"head", "head", 4, -1}, {"strongest", "strongest pair", 18, -1},
                  {"weight", "weight", 6, 3}, {"entropy", "entropy", 7, 3}, {"verdict", "verdict", 11, -1}}, "  ");
    t.print_header();
    auto report = [&](const std::string& model, const Tensor& w, const std::vector<std::string>& words) {
        const Tensor ent = mean(lab::row_entropy(w), -1);  // (H)
        for (std::int64_t h = 0; h < w.size(0); ++h) {
            const Strongest s = strongest(w.select(0, h));
            const double en = ent.at({h});
            t.row({model, h + 1, "'" + words[s.i] + "' -> '" + words[s.j] + "'", s.weight, en, en < 1.5 ? "focused" : "distributed"});
        }
    };
    report("random MHA", random_w, tokens);
    report("trained", trained, trained_tokens);
    std::printf("  (the course's verdict: mean entropy < 1.5 is 'focused'; uniform over 6 keys is ln 6 = %.3f)\n", std::log(6.0));
    p.m["structured_embeddings"] = t.json();
    std::vector<std::string> panels;
    for (int h = 1; h <= 4; ++h) panels.push_back("random head " + std::to_string(h));
    plots::HeatmapGridOptions go = grid_options("Structured embeddings, random MHA(64, 4)", tokens, panels);
    go.columns = 2;
    std::vector<plots::Matrix> m;
    for (std::int64_t h = 0; h < 4; ++h) m.push_back(to_matrix(random_w.select(0, h)));
    p.out.figure(plots::heatmap_grid(m, go), "structured_embeddings_heads",
                 "Phase 2: structured embeddings through a random (untrained) MHA(64, 4): each head's weights.");
}

void section3_three_cases(Frame& p) {
    section("7c. MHA(48, 6) on the syntactic, semantic and positional cases");
    Generator layer_gen(p.seed + 7);
    nn::MultiHeadAttention mha(48, 6, 0, 0, layer_gen);
    mha.eval();
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
        {"syntactic", {"The", "quick", "brown", "fox", "jumps", "high"}},
        {"semantic", {"cat", "dog", "animal", "pet", "furry", "cute"}},
        {"positional", {"first", "second", "third", "fourth", "fifth", "sixth"}}};
    lab::Table t({{"case", "case", 10, -1}, {"head", "head", 4, -1}, {"self", "self", 6, 3}, {"local", "local", 6, 3},
                  {"global", "global", 6, 3}}, "  ");
    t.print_header();
    std::vector<plots::Matrix> panels;
    std::vector<std::string> titles;
    for (const auto& c : cases) {
        Generator gen(p.seed + 123);  // the course re-seeds before each case: the same base embeddings
        Tensor e = randn({6, 48}, kFloat32, gen);
        std::vector<Tensor> r;
        for (std::int64_t i = 0; i < 6; ++i) r.push_back(e.select(0, i));
        if (c.first == "syntactic") {
            const Tensor quick = r[1];
            for (int i : {1, 2}) r[i] = r[i] + quick * 0.3;  // adjectives similar
        } else if (c.first == "semantic") {
            r[1] = r[0] + randn({48}, kFloat32, gen) * 0.2;  // cat, dog
            r[3] = r[2] + randn({48}, kFloat32, gen) * 0.2;  // animal, pet
        } else {
            for (std::int64_t i = 0; i < 6; ++i) r[i] = r[i] + 0.1 * static_cast<double>(i);  // a ramp with position
        }
        const Tensor w = mha.forward(stack(r, 0).unsqueeze(0)).weights.select(0, 0);  // (H, T, T)
        const Tensor self = mean(lab::diagonal_mass(w), -1), local = mean(lab::local_mass(w), -1);
        plots::Matrix m;
        for (std::int64_t h = 0; h < 6; ++h) {
            t.row({c.first, h + 1, self.at({h}), local.at({h}), 1 - local.at({h})});
            m.push_back({self.at({h}), local.at({h}), 1 - local.at({h})});
        }
        panels.push_back(m), titles.push_back(c.first);
    }
    std::printf("  (local = weight on itself and its neighbours; the course's global = 1 - local, as its formula reduces to;\n"
                "   uniform attention over 6 tokens would give self 1/6 = 0.167 and local 16/36 = 0.444)\n");
    p.m["three_cases"] = t.json();
    plots::HeatmapGridOptions go = grid_options("Random MHA(48, 6), each head on each case", {}, titles);
    go.row_labels = {"head 1", "head 2", "head 3", "head 4", "head 5", "head 6"};
    go.col_labels = {"self", "local", "global"};
    go.x_title = "attention kind", go.y_title = "head", go.columns = 3, go.colorbar_label = "mean weight";
    p.out.figure(plots::heatmap_grid(panels, go), "three_cases",
                 "Phase 2: three cases (syntactic, semantic, positional) through one random MHA(48, 6): each head's self, local and global attention.");
}

double mean_head_similarity(const Tensor& weights) {
    const Tensor sim = lab::head_similarity(weights);  // (H, H), the diagonal 1
    const std::int64_t H = sim.size(0);
    return (sum(sim).item() - static_cast<double>(H)) / static_cast<double>(H * (H - 1));
}

const char* diversity_verdict(double similarity) { return similarity < 0.5 ? "High" : "Low"; }

void section5_single_vs_multi(Frame& p, const Tensor& trained) {
    section("7d. One head vs 8 heads (random, d_model 64, 8 tokens)");
    Generator gen(p.seed + 42);
    Tensor x0 = randn({8, 64}, kFloat32, gen);
    std::vector<Tensor> r;
    for (std::int64_t i = 0; i < 8; ++i) r.push_back(x0.select(0, i));
    for (std::size_t i = 0; i + 1 < 8; ++i) r[i + 1] = r[i + 1] + r[i] * 0.2;  // local dependencies (in order, as the course's in-place loop)
    r[7] = r[7] + r[0] * 0.3, r[6] = r[6] + r[1] * 0.3;                      // long-range dependencies
    const Tensor x = stack(r, 0).unsqueeze(0);                                // (1, T, d_model)
    nn::MultiHeadAttention single(64, 1, 0, 0, gen), multi(64, 8, 0, 0, gen);
    single.eval(), multi.eval();
    const nn::AttentionResult s = single.forward(x), m = multi.forward(x);
    const Tensor sw = s.weights.select(0, 0).select(0, 0), mw = m.weights.select(0, 0);  // (T, T), (H, T, T)
    const Tensor avg = mean(mw, 0), sd = sqrt(var(mw, 0));                             // (T, T): torch.std is unbiased too
    const double sim_random = mean_head_similarity(mw), sim_trained = mean_head_similarity(trained);
    const double diff = std::sqrt(sum((s.output - m.output) * (s.output - m.output)).item());
    lab::Table t({{"measure", "measure", 40, -1}, {"value", "value", 8, 3}}, "  ");
    t.print_header();
    t.row({"single-head entropy", mean(lab::row_entropy(sw)).item()});
    t.row({"multi-head entropy", mean(lab::row_entropy(mw)).item()});
    t.row({"output difference norm", diff});
    t.row({"mean head similarity (random 8 heads)", sim_random});
    t.row({"mean head similarity (trained heads)", sim_trained});
    std::printf("  the course's verdict on the random heads: diversity %s (High if similarity < 0.5); trained heads: %s.\n"
                "  (near-uniform rows are all-positive vectors of nearly equal entries, so their cosine is close to 1)\n",
                diversity_verdict(sim_random), diversity_verdict(sim_trained));
    p.m["untrained_single_vs_multi"] = Json::Object{{"rows", t.json_by("measure")}, {"verdict_random", diversity_verdict(sim_random)},
                                                 {"verdict_trained", diversity_verdict(sim_trained)}};
    std::vector<std::string> labels;
    for (int i = 1; i <= 8; ++i) labels.push_back(std::to_string(i));
    plots::HeatmapGridOptions go = grid_options("One head vs 8 heads (random MHA, d_model 64)", labels,
                                                {"single head", "8 heads: average", "8 heads: std across heads"});
    go.columns = 3, go.vmax = std::max(max(sw).item(), max(avg).item());
    p.out.figure(plots::heatmap_grid({to_matrix(sw), to_matrix(avg), to_matrix(sd)}, go), "untrained_single_vs_multi",
                 "Phase 2: one random head, the average of 8 random heads and their standard deviation across heads.");
}

void section7_untrained_heads(Frame& p, const Tensor& trained, const std::vector<std::string>& trained_tokens) {
    NoGradGuard no_grad;  // nothing here trains
    section1_dropout(p);
    section2_structured_embeddings(p, trained, trained_tokens);
    section3_three_cases(p);
    section5_single_vs_multi(p, trained);
}

}  // namespace attnlab::phase2
