// show.cpp — see show.hpp.
#include "analyses/show.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analyses/attention_gradients.hpp"
#include "analyses/attention_stats.hpp"
#include "explorer/explorer.hpp"
#include "training/run_config.hpp"
#include "training/task.hpp"
#include "nn/flash_attention.hpp"
#include "plots/color.hpp"
#include "plots/attention_flow.hpp"
#include "plots/bar_chart.hpp"
#include "plots/figure_grid.hpp"
#include "plots/heatmap.hpp"
#include "plots/line_chart.hpp"
#include "plots/save.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

plots::Matrix to_matrix(const Tensor& t) {
    if (t.dim() != 2) throw ShapeError("to_matrix: expected a 2-D tensor, got " + t.shape().str());
    plots::Matrix m(static_cast<std::size_t>(t.size(0)));
    const std::vector<double> v = t.to_vector<double>();
    for (std::size_t i = 0; i < m.size(); ++i)
        m[i].assign(v.begin() + static_cast<std::ptrdiff_t>(i * static_cast<std::size_t>(t.size(1))),
                    v.begin() + static_cast<std::ptrdiff_t>((i + 1) * static_cast<std::size_t>(t.size(1))));
    return m;
}

void check_drawable(std::int64_t L, std::int64_t H, std::int64_t T, const std::string& who) {
    const std::string shape = "[" + std::to_string(L) + " layers, " + std::to_string(H) + " heads, " + std::to_string(T) + " tokens]";
    if (L < 1 || H < 1 || T < 1) throw ValueError(who + ": " + shape + " has nothing to draw (each must be at least 1)");
    if (T > kMaxShowTokens)
        throw ValueError(who + ": " + shape + " is more than the " + std::to_string(kMaxShowTokens) + " tokens show draws");
    // A division, so that no product of sizes a file chose can overflow.
    if (L > kMaxShowPanels / H)
        throw ValueError(who + ": " + shape + " is " + std::to_string(L) + " x " + std::to_string(H) + " panels, more than the " +
                         std::to_string(kMaxShowPanels) + " show draws");
    if (show_cells(L, H, T) > kMaxShowCells)
        throw ValueError(who + ": " + shape + " is " + std::to_string(show_cells(L, H, T)) + " heatmap cells ((L x H + 2) x T^2), more than the " +
                         std::to_string(kMaxShowCells) + " show draws (fewer tokens, layers or heads)");
}

std::int64_t show_cells(std::int64_t L, std::int64_t H, std::int64_t T) { return (L * H + 2) * T * T; }

void check(const AttentionOf& a) {
    if (a.layers.empty()) throw ValueError("show: no attention layers to draw");
    const auto T = static_cast<std::int64_t>(a.tokens.size());
    const std::int64_t H = a.layers[0].dim() == 3 ? a.layers[0].size(0) : 0;
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        const Tensor& w = a.layers[l];
        if (w.dim() != 3 || w.shape() != Shape{H, T, T})
            throw ShapeError("show: layer " + std::to_string(l + 1) + " weights are " + w.shape().str() + ", expected [" +
                             std::to_string(H) + ", " + std::to_string(T) + ", " + std::to_string(T) + "] (heads, " +
                             std::to_string(T) + " tokens)");
        const double lo = -max(-w).item(), hi = max(w).item();
        if (!(lo >= 0 && hi <= 1 + 1e-5))
            throw ValueError("show: layer " + std::to_string(l + 1) + " has weights in [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "], not attention weights in [0, 1]");
    }
    check_drawable(static_cast<std::int64_t>(a.layers.size()), H, T, "show");
}

namespace {

// The id of special token `token` (a framing's <bos>, <eos>); ValueError if the vocabulary lacks it.
std::int64_t explorer_token_id(const nn::LoadedCheckpoint& ck, const std::string& token, const std::string& source) {
    const auto it = std::find(ck.info.vocab.begin(), ck.info.vocab.end(), token);
    if (it == ck.info.vocab.end()) throw ValueError("explorer: '" + source + "' has no token " + token + " to frame a text with");
    return it - ck.info.vocab.begin();
}

std::string layer_head(std::size_t l, std::int64_t h) { return "layer " + std::to_string(l + 1) + ", head " + std::to_string(h + 1); }

// The entropy of attending uniformly to the keys each query may attend to, averaged over the
// queries: ln T for a bidirectional model, mean ln(i + 1) under a causal mask (1.42 for 9
// tokens, where ln 9 = 2.20 would call every causal head focused). A key is one a query may
// attend to when some head of some layer gives it weight: a mask's blocked keys get exactly 0.
struct Baseline {
    double entropy;
    std::string label;
};
Baseline uniform_entropy(const AttentionOf& a) {
    const auto T = static_cast<std::int64_t>(a.tokens.size());
    Tensor seen = zeros({T, T});
    for (const Tensor& w : a.layers) seen = maximum(seen, max(w.to(kFloat32), 0).values);  // [H, T, T] -> [T, T]
    const std::vector<float> v = seen.contiguous().to_vector<float>();
    double total = 0;
    std::int64_t all = 0;
    for (std::int64_t i = 0; i < T; ++i) {
        std::int64_t n = 0;
        for (std::int64_t j = 0; j < T; ++j) n += v[static_cast<std::size_t>(i * T + j)] > 0;
        total += std::log(static_cast<double>(std::max<std::int64_t>(n, 1)));
        all += n == T;
    }
    const double mean_entropy = total / static_cast<double>(T);
    char text[96];
    if (all == T) {
        std::snprintf(text, sizeof text, "uniform over all %lld keys (ln %lld = %.2f)", static_cast<long long>(T),
                      static_cast<long long>(T), mean_entropy);
    } else {
        std::snprintf(text, sizeof text, "uniform over the keys each query may see (mean %.2f)", mean_entropy);
    }
    return {mean_entropy, text};
}

std::string save(const plots::Figure& f, const std::string& dir, const std::string& name) {
    plots::save(f, dir + "/" + name);
    return dir + "/" + name;
}

}  // namespace

std::vector<std::string> draw_attention(const AttentionOf& a, const std::string& dir) {
    check(a);
    std::filesystem::create_directories(dir);
    const std::int64_t H = a.layers[0].size(0);
    std::vector<plots::Matrix> heads;
    std::vector<plots::Figure> flows;
    plots::HeatmapGridOptions grid;
    for (std::size_t l = 0; l < a.layers.size(); ++l)
        for (std::int64_t h = 0; h < H; ++h) {
            const plots::Matrix w = to_matrix(a.layers[l].select(0, h));  // [T, T]
            heads.push_back(w);
            grid.panel_titles.push_back(layer_head(l, h));
            flows.push_back(plots::attention_flow(a.tokens, w, {.title = layer_head(l, h)}));
        }
    // At most kMaxGridColumns heads a row: one layer per row while H fits, else a layer wraps
    // onto several rows (each panel names its layer and head).
    const int columns = static_cast<int>(std::min<std::int64_t>(H, kMaxGridColumns));
    grid.title = a.title + (H <= kMaxGridColumns ? ": every layer (rows) and head" : ": every layer and head");
    grid.row_labels = grid.col_labels = a.tokens;
    grid.vmin = 0, grid.vmax = 1;
    grid.colorbar_label = "weight";
    grid.columns = columns;
    // Every figure is built (and has checked its size) before the first is written: a drawing
    // too large fails without leaving some of its files behind.
    std::vector<std::pair<plots::Figure, std::string>> figures;
    figures.emplace_back(plots::heatmap_grid(heads, grid), "attention_heads");
    // Flow panels are wide (a row of tokens each): as many a row as fit in kMaxGridWidth pixels.
    const double flow_width = flows[0].width + 12;  // figure_grid's gap
    const int flow_columns = std::max(1, std::min(columns, static_cast<int>(kMaxGridWidth / flow_width)));
    figures.emplace_back(plots::figure_grid(flows, {.title = a.title + ": query (top) -> key (bottom), width = weight",
                                                    .columns = flow_columns}),
                         "attention_flow");

    // The last layer alone, and what reaches it through the residual path of every layer.
    plots::HeatmapGridOptions roll;
    roll.title = a.title + ": what each query reads, directly and through the layers";
    const std::string L = std::to_string(a.layers.size());
    roll.panel_titles = {"layer " + L + " (the last), heads averaged", "rollout over layers 1-" + L};
    roll.row_labels = roll.col_labels = a.tokens;
    roll.vmin = 0, roll.vmax = 1;
    roll.colorbar_label = "weight";
    roll.columns = 2;
    figures.emplace_back(plots::heatmap_grid({to_matrix(mean(a.layers.back(), 0)), to_matrix(attention_rollout(a.layers))}, roll),
                         "attention_rollout");

    std::vector<std::string> labels;
    std::vector<double> entropy;
    for (std::size_t l = 0; l < a.layers.size(); ++l)
        for (std::int64_t h = 0; h < H; ++h) {
            labels.push_back("L" + std::to_string(l + 1) + " H" + std::to_string(h + 1));
            entropy.push_back(mean(row_entropy(a.layers[l].select(0, h))).item());
        }
    plots::BarChartOptions bars;
    bars.title = a.title + ": mean attention entropy per head";
    bars.value_title = "entropy (nats)";
    bars.category_title = "layer, head";
    const Baseline uniform = uniform_entropy(a);
    bars.reference = uniform.entropy;
    bars.reference_label = uniform.label;
    figures.emplace_back(plots::bar_chart(labels, entropy, bars), "attention_entropy");
    std::vector<std::string> out;
    for (const auto& [figure, name] : figures) out.push_back(save(figure, dir, name));
    return out;
}

std::vector<std::string> draw_generation(const AttentionOf& a, std::size_t first_generated, const std::string& dir) {
    check(a);
    if (first_generated == 0 || first_generated >= a.tokens.size())
        throw ValueError("show: generated tokens start at " + std::to_string(first_generated) + " of " +
                         std::to_string(a.tokens.size()) + "; nothing was generated");
    const auto T = static_cast<std::int64_t>(a.tokens.size()), first = static_cast<std::int64_t>(first_generated);
    const std::int64_t H = a.layers[0].size(0);
    std::vector<plots::Figure> figures;  // every layer's, built (and size-checked) before the first is written
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        // Query row i predicted token i + 1: the row of the position before each generated token,
        // against the keys it could see (the last token is nobody's key here).
        const auto rows_of = [&](const Tensor& w) { return to_matrix(w.narrow(0, first - 1, T - first).narrow(1, 0, T - 1)); };
        std::vector<plots::Matrix> panels{rows_of(mean(a.layers[l], 0))};  // [generated, T - 1] each
        plots::HeatmapGridOptions o;
        o.panel_titles = {"heads averaged"};
        for (std::int64_t h = 0; h < H; ++h) {
            panels.push_back(rows_of(a.layers[l].select(0, h)));
            o.panel_titles.push_back("head " + std::to_string(h + 1));
        }
        o.title = a.title + ": layer " + std::to_string(l + 1) + ", the heads' average and each head";
        o.row_labels.assign(a.tokens.begin() + first, a.tokens.end());
        for (std::string& r : o.row_labels) r = "-> " + r;
        o.col_labels.assign(a.tokens.begin(), a.tokens.end() - 1);
        o.y_title = "produced";
        o.vmin = 0, o.vmax = 1;
        o.colorbar_label = "weight";
        o.columns = static_cast<int>(std::min<std::int64_t>(H + 1, kMaxGridColumns));
        figures.push_back(plots::heatmap_grid(panels, o));
    }
    std::filesystem::create_directories(dir);
    std::vector<std::string> out;
    for (std::size_t l = 0; l < figures.size(); ++l) out.push_back(save(figures[l], dir, "generated_layer" + std::to_string(l + 1)));
    return out;
}

std::string draw_entropy_over_training(const nn::LoadedCheckpoint& ck, const std::string& title, const std::string& dir) {
    const auto it = ck.training_tensors.find("entropy_curve");
    if (it == ck.training_tensors.end()) return "";
    const Tensor& t = it->second;
    const std::int64_t L = ck.model->config().n_layers, H = ck.model->config().n_heads;
    if (t.dtype() != kFloat64 || t.dim() != 2 || t.size(1) != 1 + L * H || t.size(0) < 1)
        throw ValueError(std::string("show: the checkpoint's entropy_curve is ") + dtype_name(t.dtype()) + " " + t.shape().str() +
                         ", not float64 [rows, 1 + " + std::to_string(L) + " x " + std::to_string(H) + "]");
    const std::vector<double> v = t.to_vector<double>();
    const std::int64_t n = t.size(0), width = t.size(1);
    // One line per head while they stay legible; past kMaxEntropyLines, one per layer (its heads' mean).
    const bool per_head = L * H <= kMaxEntropyLines;
    std::vector<plots::Series> series;
    for (std::int64_t l = 0; l < L; ++l)
        for (std::int64_t h = 0; h < (per_head ? H : 1); ++h) {
            plots::Series s;
            s.name = "layer " + std::to_string(l + 1) + (per_head ? ", head " + std::to_string(h + 1) : std::string(", heads' mean"));
            s.markers = n <= 30;
            for (std::int64_t r = 0; r < n; ++r) {
                double y = 0;
                for (std::int64_t k = per_head ? h : 0; k < (per_head ? h + 1 : H); ++k) y += v[static_cast<std::size_t>(r * width + 1 + l * H + k)];
                s.x.push_back(v[static_cast<std::size_t>(r * width)]);
                s.y.push_back(y / (per_head ? 1.0 : static_cast<double>(H)));
            }
            series.push_back(std::move(s));
        }
    const plots::Figure f = plots::line_chart(
        series, {.title = title + ": each head's attention entropy at every evaluation",
                 .x_title = "step", .y_title = "entropy (nats)"});
    std::filesystem::create_directories(dir);
    return save(f, dir, "entropy_over_training");
}

Framing prompt_framing(const nn::LoadedCheckpoint& ck) {
    if (task_from_kind(ck.info.kind) == Task::chars) return {true, {}, {}};
    const auto corpus = ck.metadata.find("corpus");
    if (corpus != ck.metadata.end() && !corpus->second.empty()) return {};
    return {false, {"<bos>"}, {}};
}

Json explorer_model(const nn::LoadedCheckpoint& ck, const ExplorerModel& m) {
    const nn::Transformer& model = *ck.model;
    const nn::TransformerConfig& c = model.config();
    if (static_cast<std::int64_t>(ck.info.vocab.size()) != c.vocab_size)
        throw ValueError("explorer: '" + m.source + "' has " + std::to_string(ck.info.vocab.size()) + " vocabulary entries for vocab_size " +
                         std::to_string(c.vocab_size));
    for (const std::string& t : m.framing.prefix) explorer_token_id(ck, t, m.source);
    for (const std::string& t : m.framing.suffix) explorer_token_id(ck, t, m.source);
    const double scale = nn::attention_scale("explorer", c.d_model / c.n_heads, model.blocks[0]->attn.scale);
    Json config = Json::Object{{"d_model", c.d_model}, {"context", c.context}, {"window", c.window}, {"stride", c.stride},
                               {"scale", scale}, {"qkv_only", c.qkv_only},
                               {"positions", nn::position_scheme_name(c.positions)}, {"normalizer", nn::normalizer_flag(c.normalizer)}};
    const data::WordRules rules = m.framing.chars ? data::WordRules{} : word_rules(ck, m.source);  // as the corpus was read
    Json tokenizer = Json::Object{{"unit", m.framing.chars ? "char" : "word"},
                                  {"prefix", Json(Json::Array(m.framing.prefix.begin(), m.framing.prefix.end()))},
                                  {"suffix", Json(Json::Array(m.framing.suffix.begin(), m.framing.suffix.end()))},
                                  {"lowercase", rules.lowercase}, {"split_punctuation", rules.split_punctuation}};
    Json tensors = Json::array();
    std::vector<float> weights;
    for (const nn::NamedParameter& p : model.named_parameters()) {
        Json shape = Json::array();
        for (std::int64_t d = 0; d < p.tensor.dim(); ++d) shape.push_back(p.tensor.size(d));
        tensors.push_back(Json::Object{{"name", p.name}, {"shape", std::move(shape)}});
        const std::vector<float> v = p.tensor.contiguous().to_vector<float>();
        weights.insert(weights.end(), v.begin(), v.end());
    }
    return Json::Object{{"key", m.key}, {"name", m.name}, {"causal", c.causal}, {"description", m.description},
                        {"source", m.source}, {"n_layers", c.n_layers}, {"n_heads", c.n_heads}, {"config", std::move(config)},
                        {"vocab", Json(Json::Array(ck.info.vocab.begin(), ck.info.vocab.end()))},
                        {"tokenizer", std::move(tokenizer)}, {"tensors", std::move(tensors)},
                        {"weights", explorer::base64(explorer::float32_bytes(weights))}};
}

std::string token_label(const std::string& token) {
    return token == " " ? "_" : token == "\n" ? "\\n" : token == "\t" ? "\\t" : token;
}

Json explorer_gradients(const nn::LoadedCheckpoint& ck, const std::vector<std::vector<std::string>>& sequences) {
    if (!ck.model->config().causal)
        throw ValueError("explorer_gradients: dL/dA of the next-token loss needs a causal model; a bidirectional one sees the next token");
    Json out = Json::array();
    for (const std::vector<std::string>& tokens : sequences) {
        if (tokens.size() < 2) {  // one token predicts nothing: no loss to differentiate
            out.push_back(Json());
            continue;
        }
        std::vector<std::int64_t> ids;
        for (const std::string& t : tokens) {
            const auto it = std::find(ck.info.vocab.begin(), ck.info.vocab.end(), t);
            if (it == ck.info.vocab.end()) throw ValueError("explorer_gradients: the token '" + t + "' is not in the model's vocabulary");
            ids.push_back(it - ck.info.vocab.begin());
        }
        const AttentionGradients g = attention_gradients(*ck.model, ids);
        out.push_back(Json::Object{{"loss", g.loss}, {"dA", explorer::gradients_json(g.grads)}});
    }
    return out;
}

Json explorer_data(const std::vector<std::pair<std::string, std::vector<std::string>>>& sentences, Json models) {
    Json data = Json::Object{{"format", "attnlab-explorer"}, {"version", 3}, {"decimals", explorer::kDecimals},
                             {"sentences", Json::array()}, {"models", std::move(models)}};
    std::int64_t H = 0;
    for (const Json& m : data.at("models").as_array()) H = std::max(H, m.at("n_heads").as_int64());
    for (std::size_t h = 0; h < static_cast<std::size_t>(H); ++h) data["head_colors"].push_back(plots::to_hex(plots::palette::categorical(h)));
    for (const auto& [text, tokens] : sentences)
        data["sentences"].push_back(Json::Object{{"text", text}, {"tokens", Json(Json::Array(tokens.begin(), tokens.end()))}});
    return data;
}

std::string write_explorer_page(const Json& data, const std::string& dir) {
    std::filesystem::create_directories(dir);
    save_json(dir + "/explorer_data.json", data);
    write_file_atomic(dir + "/explorer.html", explorer::render_page(data));
    return dir + "/explorer.html";
}

std::string write_explorer(const std::string& name, bool causal, const std::vector<AttentionOf>& sequences, const std::string& dir) {
    if (sequences.empty()) throw ValueError("show: no sequences for the explorer");
    for (const AttentionOf& a : sequences) check(a);
    const std::int64_t L = static_cast<std::int64_t>(sequences[0].layers.size()), H = sequences[0].layers[0].size(0);
    Json model = Json::Object{{"key", "model"}, {"name", name}, {"causal", causal},
                              {"description", causal ? "causal: a token sees itself and earlier ones" : "bidirectional: a token sees all"},
                              {"n_layers", L}, {"n_heads", H}, {"attention", Json::array()}};
    std::vector<std::pair<std::string, std::vector<std::string>>> sentences;
    for (const AttentionOf& a : sequences) {
        if (static_cast<std::int64_t>(a.layers.size()) != L || a.layers[0].size(0) != H)
            throw ShapeError("show: '" + a.text + "' has " + std::to_string(a.layers.size()) + " layers of " +
                             std::to_string(a.layers[0].size(0)) + " heads, the first sequence " + std::to_string(L) + " of " +
                             std::to_string(H));
        sentences.emplace_back(a.text, a.tokens);
        model["attention"].push_back(explorer::attention_json(a.layers));
    }
    return write_explorer_page(explorer_data(sentences, Json(Json::Array{std::move(model)})), dir);
}

std::string write_explorer(const nn::LoadedCheckpoint& ck, const std::string& name, const std::vector<AttentionOf>& sequences,
                           const std::string& dir) {
    return write_explorer({{&ck, "model", name}}, sequences, dir);
}

std::string write_explorer(const std::vector<ExplorerCheckpoint>& models, const std::vector<AttentionOf>& sequences,
                           const std::string& dir) {
    if (models.empty()) throw ValueError("write_explorer: no model to put in the page");
    const nn::LoadedCheckpoint& first = *models[0].ck;
    std::vector<std::pair<std::string, std::vector<std::string>>> sentences;
    std::vector<std::vector<std::string>> listed;
    for (const AttentionOf& a : sequences) {
        // The page runs the model on its tokens, so it gets the vocabulary's tokens, not the labels.
        if (a.ids.size() != a.tokens.size())
            throw ShapeError("write_explorer: '" + a.text + "' has " + std::to_string(a.tokens.size()) + " labels but " +
                             std::to_string(a.ids.size()) + " token ids");
        std::vector<std::string> tokens;
        for (std::int64_t id : a.ids) tokens.push_back(first.info.vocab.at(static_cast<std::size_t>(id)));
        sentences.emplace_back(a.text, tokens);
        listed.push_back(std::move(tokens));
    }
    Json page_models = Json::array();
    for (const ExplorerCheckpoint& m : models) {
        // The listed texts are tokens of the first model's vocabulary: every model must read them alike.
        if (m.ck->info.vocab != first.info.vocab)
            throw ValueError("write_explorer: '" + m.name + "' has another vocabulary than '" + models[0].name +
                             "'; one page lists texts in one vocabulary");
        const bool causal = m.ck->model->config().causal;
        Json model = explorer_model(*m.ck, {m.key, m.name,
                                            causal ? "causal: a token sees itself and earlier ones" : "bidirectional: a token sees all",
                                            m.name, prompt_framing(*m.ck)});
        if (causal) model["gradients"] = explorer_gradients(*m.ck, listed);
        page_models.push_back(std::move(model));
    }
    return write_explorer_page(explorer_data(sentences, std::move(page_models)), dir);
}

}  // namespace attnlab::lab
