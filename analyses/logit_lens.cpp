// logit_lens.cpp — see logit_lens.hpp.
#include "analyses/logit_lens.hpp"

#include <cmath>
#include <string>

#include "autograd/node.hpp"
#include "data/vocab.hpp"
#include "plots/heatmap.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

LogitLens logit_lens(nn::Transformer& model, const std::vector<std::int64_t>& ids) {
    const auto T = static_cast<std::int64_t>(ids.size());
    if (T == 0 || T > model.config().context)
        throw ValueError("logit_lens: " + std::to_string(T) + " tokens; the model reads 1 to " +
                         std::to_string(model.config().context));
    NoGradGuard no_grad;
    // The forward pass of nn::Transformer, keeping the residual stream between blocks.
    const Tensor row = from_vector(ids, Shape{1, T});
    Tensor x = model.embed(row);  // [1, T, d_model]
    const nn::Mask mask = model.attention_mask(T, T);
    std::vector<Tensor> stream{x};
    for (auto& block : model.blocks) stream.push_back(x = block->forward(x, mask));
    LogitLens lens;
    for (const Tensor& s : stream)
        lens.probs.push_back(softmax(model.head.forward(model.ln_f.forward(s)), -1).select(0, 0).contiguous());  // [T, V]
    const std::int64_t V = lens.probs.front().size(1);
    for (const Tensor& p : lens.probs) {
        const std::vector<float> v = p.to_vector<float>();
        std::vector<std::int64_t> top(static_cast<std::size_t>(T), 0);
        for (std::int64_t t = 0; t < T; ++t)
            for (std::int64_t k = 1; k < V; ++k)
                if (v[static_cast<std::size_t>(t * V + k)] > v[static_cast<std::size_t>(t * V + top[static_cast<std::size_t>(t)])])
                    top[static_cast<std::size_t>(t)] = k;
        lens.top.push_back(top);
    }
    for (const Tensor& p : lens.probs) {
        const std::vector<float> v = p.to_vector<float>();
        std::vector<double> f;
        for (std::int64_t t = 0; t < T; ++t) f.push_back(v[static_cast<std::size_t>(t * V + lens.top.back()[static_cast<std::size_t>(t)])]);
        lens.final_token_prob.push_back(f);
    }
    return lens;
}

double kl_divergence(const std::vector<double>& p, const std::vector<double>& q) {
    if (p.size() != q.size())
        throw ValueError("kl_divergence: " + std::to_string(p.size()) + " and " + std::to_string(q.size()) + " probabilities");
    double kl = 0;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] > 0) kl += q[i] > 0 ? p[i] * std::log(p[i] / q[i]) : INFINITY;
    return kl;
}

std::vector<std::vector<double>> exact_next_tokens(const data::Grammar& g, const std::vector<std::int64_t>& row,
                                                   std::int64_t context) {
    if (row.empty() || row.front() != data::Vocab::kBos)
        throw ValueError("exact_next_tokens: the row must open with <bos> (id " + std::to_string(data::Vocab::kBos) +
                         "), as the grammar model's training rows do");
    std::vector<std::vector<double>> exact;
    for (std::size_t i = 1; i <= row.size(); ++i) {
        const std::vector<std::int64_t> words(row.begin() + 1, row.begin() + static_cast<std::ptrdiff_t>(i));
        exact.push_back(g.next_token_probs(words, context - 1));
    }
    return exact;
}

std::vector<double> kl_to_exact(const LogitLens& lens, const std::vector<std::vector<double>>& exact) {
    const std::int64_t T = lens.probs.front().size(0), V = lens.probs.front().size(1);
    if (static_cast<std::int64_t>(exact.size()) != T || static_cast<std::int64_t>(exact.front().size()) != V)
        throw ValueError("kl_to_exact: " + std::to_string(exact.size()) + " exact distributions of " +
                         std::to_string(exact.front().size()) + " tokens for a lens of " + std::to_string(T) +
                         " positions and " + std::to_string(V) + " tokens");
    std::vector<double> out;
    for (const Tensor& p : lens.probs) {
        const std::vector<double> v = p.to_vector<double>();  // [T * V]
        double sum = 0;
        for (std::int64_t t = 0; t < T; ++t)
            sum += kl_divergence(exact[static_cast<std::size_t>(t)],
                                 std::vector<double>(v.begin() + t * V, v.begin() + (t + 1) * V));
        out.push_back(sum / static_cast<double>(T));
    }
    return out;
}

std::string lens_layer_name(std::size_t l) { return l == 0 ? "embedding" : "block " + std::to_string(l); }

std::string lens_top_lines(const LogitLens& lens, const std::vector<std::string>& vocab) {
    std::string out;
    for (std::size_t l = 0; l < lens.top.size(); ++l) {
        std::string name = lens_layer_name(l);
        out += "  " + name + std::string(name.size() < 10 ? 10 - name.size() : 0, ' ');
        for (std::int64_t id : lens.top[l]) out += " " + vocab.at(static_cast<std::size_t>(id));
        out += "\n";
    }
    return out;
}

plots::Figure logit_lens_figure(const LogitLens& lens, const std::vector<std::string>& tokens,
                                const std::vector<std::string>& vocab, const std::string& title) {
    plots::Matrix colour;
    plots::HeatmapOptions o;
    std::vector<std::string> layers;
    for (std::size_t l = 0; l < lens.top.size(); ++l) {
        colour.push_back(lens.final_token_prob[l]);
        layers.push_back(lens_layer_name(l));
        std::vector<std::string> words;
        for (std::int64_t id : lens.top[l]) words.push_back(vocab.at(static_cast<std::size_t>(id)));
        o.cell_text.push_back(words);
    }
    o.title = title, o.row_labels = layers, o.col_labels = tokens;
    o.x_title = "position (the token read there)", o.y_title = "residual stream after";
    o.vmin = 0.0, o.vmax = 1.0, o.colormap = plots::Colormap::blues;
    o.colorbar_label = "p(final top)";  // short: the bar is only L + 1 cells tall
    return plots::heatmap(colour, o);
}

}  // namespace attnlab::lab
