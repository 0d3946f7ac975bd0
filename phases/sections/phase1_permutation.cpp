// phase1_permutation.cpp — the bodies of phases/phase1_permutation.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase1_permutation.hpp"

#include <numeric>

#include "analyses/attention_weights.hpp"
#include "autograd/node.hpp"
#include "app/report.hpp"
#include "plots/heatmap.hpp"
#include "plots/layout.hpp"

namespace attnlab::phase1 {

namespace {

// The forward EncoderRun holds (see phases/phase1_permutation.hpp), with or without pos_emb. ids: 1-D token ids.
EncoderRun run_encoder(nn::Transformer& model, const std::vector<std::int64_t>& ids, bool positions) {
    NoGradGuard no_grad;
    const std::int64_t T = static_cast<std::int64_t>(ids.size());
    Tensor x = model.tok_emb.forward(from_vector(ids, {1, T}));  // (1, T, d_model)
    if (positions) x = x + model.position_vectors(0, T);  // pos_emb, or the sinusoidal encoding
    const nn::Mask mask = model.attention_mask(T, T);
    const std::vector<Tensor> layers = lab::recorded_attention(model, [&] {
        for (auto& block : model.blocks) x = block->forward(x, mask);
    });
    return {model.head.forward(model.ln_f.forward(x)), layers.at(0).select(0, 0).select(0, 0)};
}

}  // namespace

std::vector<std::int64_t> random_permutation(std::int64_t T, std::uint64_t seed) {
    std::vector<std::int64_t> perm(static_cast<std::size_t>(T));
    std::iota(perm.begin(), perm.end(), 0);
    Generator gen(seed);
    for (std::int64_t i = T - 1; i > 0; --i)
        std::swap(perm[i], perm[static_cast<std::size_t>(gen.below(static_cast<std::uint64_t>(i + 1)))]);
    if (T > 1 && std::is_sorted(perm.begin(), perm.end())) std::rotate(perm.begin(), perm.begin() + 1, perm.end());
    return perm;
}

PermutationCheck check_permutation(nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                   const std::vector<std::int64_t>& perm, bool positions) {
    std::vector<std::int64_t> shuffled_ids;
    for (std::int64_t i : perm) shuffled_ids.push_back(ids.at(static_cast<std::size_t>(i)));
    PermutationCheck c{run_encoder(model, ids, positions), run_encoder(model, shuffled_ids, positions), {}};
    const Tensor P = from_vector(perm, {static_cast<std::int64_t>(perm.size())});
    const Tensor expected_logits = index_select(c.original.logits, 1, P);  // (1, T, V)
    c.expected_weights = index_select(index_select(c.original.weights, 0, P), 1, P);  // (T, T)
    c.max_diff_logits = max(abs(c.shuffled.logits - expected_logits)).item();
    c.max_diff_weights = max(abs(c.shuffled.weights - c.expected_weights)).item();
    return c;
}

void section6_permutation_equivariance(Frame& p, nn::LoadedCheckpoint& ckpt, const std::vector<std::int64_t>& ids,
                                      const std::vector<std::string>& tokens) {
    section("6. Permutation equivariance: without positions, shuffling the tokens shuffles the output");
    nn::Transformer& model = *ckpt.model;
    const std::vector<std::int64_t> perm = random_permutation(static_cast<std::int64_t>(ids.size()), p.seed);
    std::vector<std::string> shuffled_tokens;
    std::string order;
    for (std::int64_t i : perm) shuffled_tokens.push_back(tokens[i]), order += (order.empty() ? "" : " ") + tokens[i];
    std::printf("shuffled sentence (seed %llu): %s\n", static_cast<unsigned long long>(p.seed), order.c_str());
    lab::Table t({{"input", "input", 17, -1}, {"max_diff_logits", "max |f(PX) - P f(X)|, logits", 29, 9},
                  {"max_diff_weights", "layer-1 weights", 16, 9}});
    t.print_header();
    std::vector<plots::Matrix> panels;
    std::vector<std::string> titles;
    for (bool positions : {false, true}) {
        const PermutationCheck c = check_permutation(model, ids, perm, positions);
        const std::string name = positions ? "tok + pos" : "tok only";
        auto sci = [](double v) { char b[32]; std::snprintf(b, sizeof b, "%.2e", v); return std::string(b); };
        t.row({positions ? "with_positions" : "without_positions", c.max_diff_logits, c.max_diff_weights});
        panels.push_back(to_matrix(c.expected_weights)), panels.push_back(to_matrix(c.shuffled.weights));
        titles.push_back(name + ": P W(X) P^T (predicted)");
        titles.push_back(name + ": W(PX), max diff " + sci(c.max_diff_weights));
    }
    p.m["permutation"] = t.json_by("input");
    p.m["permutation"]["order"] = Json::Array(perm.begin(), perm.end());
    std::printf("without pos_emb the difference is float rounding (the sums over keys run in another order);\n"
                "with pos_emb the shuffled sentence gets other weights: word order now matters.\n");
    plots::HeatmapGridOptions go;
    go.title = "Layer-1 attention on the shuffled sentence vs the original weights shuffled";
    go.row_labels = go.col_labels = shuffled_tokens;
    go.panel_titles = titles, go.columns = 2, go.annotate = true, go.vmin = 0.0, go.vmax = 1.0;
    go.colorbar_label = "attention weight";
    p.out.figure(plots::heatmap_grid(panels, go), "permutation_equivariance",
                 "Phase 1: shuffling the tokens shuffles the attention weights exactly without positional embeddings "
                 "(top row), not with them (bottom row).");
}

}  // namespace attnlab::phase1
