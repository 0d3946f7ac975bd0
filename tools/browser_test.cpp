// browser_test.cpp — opens out/phase3/explorer.html in headless Chromium and checks
// that the page computes and shows what attnlab computes.
//
//   build/browser_test [--browser chromium]  (from the repository root, after make phase3;
//                                              tools/browser_test.sh installs Chromium first)
//
// The page runs the models itself (explorer/model.js). Every expected value here comes
// from attnlab's own forward pass: the checkpoint each model of out/phase3/explorer_data.json
// names ("source"), loaded with nn::load_checkpoint and run on the text tokenized here, not
// by the page. Each check loads the page with a URL fragment (a model, a listed sentence or
// any text, layer, heads, token) and reads the DOM after the script ran (--dump-dom):
//   numbers   for every listed sentence and three sentences not in the list, the page's
//             "All numbers" (tokens, logits [T][V], attention [layer][head][query][key] of
//             both models) equal attnlab's: same tokens, every value within 1e-4;
//   lines     the head view's <line class="attn"> elements are exactly the (head, query,
//             key) triples whose weight shows as more than 0 at 4 decimals (a weight within
//             1e-6 of that edge may go either way), each weight within 1e-4; each tooltip
//             names its head from 1 and its tokens; some cases check the status line word
//             for word. The fragment numbers sentences, layers and heads from 1 and tokens
//             from 0, while each case states its view in array indices: a page that took
//             layer=2 as index 2 would fail. A control case checks that the comparison
//             rejects the lines of a different token;
//   neuron    the neuron view's q, k, their products, score, scaled score and weight equal
//             attnlab's q = ln1(x) W_Qᵀ + b_Q (and k) for one head, query and key;
//   unknown   a word the model lacks is named on the page with data::nearest_words's five,
//             and nothing is drawn — no script error;
//   dL/dA     the "weights | dL/dA" toggle: with view=gradients the dL/dA button is pressed,
//             no attention line is drawn, and the heatmap cells of a listed sentence are
//             exactly every unmasked (head, query, key) of the layer, each holding the data's
//             dL/dA, which is lab::attention_gradients' to 4 significant digits; without it,
//             the weights button is pressed and no cell is drawn; typed text and the
//             bidirectional model get a visible note instead of cells, and no script error;
//   any model the page lab::write_explorer writes for a checkpoint (tinygpt show's), here
//             character models: one with a local window, one with sinusoidal positions and
//             sparsemax attention, a bidirectional one without positions: their numbers, as above.
// Every case requires the page's #error element to be empty, except the cases that give a
// bad fragment, which require the page to say so. Finally a screenshot is taken
// (out/phase3/explorer_screenshot.png) for a person to look at.
//
// Prints one line per check, the largest differences measured, and "browser: N passed,
// N failed"; exits 1 on any failure.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "autograd/node.hpp"
#include "analyses/attention_gradients.hpp"
#include "analyses/attention_weights.hpp"
#include "app/options.hpp"
#include "data/vocab.hpp"
#include "analyses/show.hpp"
#include "nn/checkpoint.hpp"
#include "io/fileio.hpp"
#include "io/json.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

namespace {

const std::string kPage = "out/phase3/explorer.html";
const std::string kData = "out/phase3/explorer_data.json";
const std::string kScreenshot = "out/phase3/explorer_screenshot.png";

// Three sentences of the toy grammar that data/toy_sequences.txt does not hold.
const std::vector<std::string> kNewSentences{"the hungry fox chased the red bird", "my old dog sleeps under the chair",
                                             "two kittens jumped on the box again"};
constexpr double kTolerance = 1e-4;

struct Key {
    long head, from, to;  // array indices, from 0
    auto operator<=>(const Key&) const = default;
};
using Lines = std::map<Key, double>;  // each drawn line and its weight

struct Case {
    std::string fragment;  // what the URL carries after '#', in the page's numbering
    std::string model;     // the view it should give, in array indices from 0
    long sentence = 0, layer = 0;
    std::vector<long> heads;  // empty = all
    char side = 0;            // 'q' query, 'k' key, 0 = no token selected
    long token = 0;
    std::string error{};   // non-empty: #error must contain this, and the default view must be shown
    std::string status{};  // non-empty: the status line must start with this
};

// Runs Chromium headless on `url` with `args` in a fresh profile; returns its stdout.
std::string chromium(const std::string& binary, const std::string& args, const std::string& url) {
    char dir_template[] = "/tmp/attnlab-chromium-XXXXXX";
    if (!mkdtemp(dir_template)) throw IOError("browser_test: cannot create a profile directory in /tmp");
    const std::string command = binary +
                                " --headless --no-sandbox --disable-gpu --disable-background-networking"
                                " --disable-component-update --disable-sync --no-first-run --user-data-dir=" +
                                dir_template + " " + args + " '" + url + "' 2>/dev/null";
    std::string output;
    if (FILE* pipe = popen(command.c_str(), "r")) {
        char buffer[65536];
        for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
        const int status = pclose(pipe);
        std::filesystem::remove_all(dir_template);
        if (status != 0) throw IOError("browser_test: '" + binary + "' exited with status " + std::to_string(status));
    } else {
        std::filesystem::remove_all(dir_template);
        throw IOError("browser_test: cannot run '" + binary + "'");
    }
    return output;
}

// The value of attribute `name` in one tag's text, e.g. data-head="2" -> "2" ("" if absent).
std::string attribute(const std::string& tag, const std::string& name) {
    const std::string key = " " + name + "=\"";
    const std::size_t at = tag.find(key);
    if (at == std::string::npos) return "";
    const std::size_t start = at + key.size();
    return tag.substr(start, tag.find('"', start) - start);
}

// Serialized text back to what the page wrote (--dump-dom escapes these in text).
std::string unescape(std::string text) {
    for (const auto& [entity, c] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}})
        for (std::size_t at; (at = text.find(entity)) != std::string::npos;) text.replace(at, std::strlen(entity), c);
    return text;
}

// Every <line class="attn"> of the drawing (the script's own text is outside <svg id="view">),
// with the text of its <title> (the tooltip) keyed by the line.
struct Drawing {
    Lines lines;
    std::map<Key, std::string> tooltips;
};
Drawing dom_lines(const std::string& dom) {
    const std::size_t begin = dom.find("<svg id=\"view\""), end = dom.find("</svg>", begin);
    if (begin == std::string::npos || end == std::string::npos) throw ValueError("browser_test: no <svg id=\"view\"> in the DOM");
    Drawing d;
    for (std::size_t at = dom.find("<line ", begin); at < end; at = dom.find("<line ", at + 1)) {
        const std::string tag = dom.substr(at, dom.find('>', at) - at);
        if (attribute(tag, "class") != "attn") continue;
        const Key key{std::stol(attribute(tag, "data-head")), std::stol(attribute(tag, "data-from")), std::stol(attribute(tag, "data-to"))};
        d.lines[key] = std::stod(attribute(tag, "data-weight"));
        const std::size_t title = dom.find("<title>", at), close = dom.find("</line>", at);
        if (title < close) d.tooltips[key] = unescape(dom.substr(title + 7, dom.find("</title>", title) - title - 7));
    }
    return d;
}

// The text inside the first element that opens with `open`, e.g. <div id="error" ...>...</div>.
std::string element_text(const std::string& dom, const std::string& open, const std::string& close) {
    const std::size_t at = dom.find(open);
    if (at == std::string::npos) throw ValueError("browser_test: no " + open + "> in the DOM");
    const std::size_t start = dom.find('>', at) + 1;
    return unescape(dom.substr(start, dom.find(close, start) - start));
}

// ---- attnlab's side ---------------------------------------------------------------------

// One model of the page, loaded from the checkpoint it names, and the page's framing of a text.
struct Model {
    const Json* json = nullptr;
    nn::LoadedCheckpoint checkpoint;
};

// What attnlab computes on one text: tokens, logits [T, V] and per layer [H, T, T].
struct Reference {
    std::vector<std::string> tokens;
    std::vector<std::int64_t> ids;
    Tensor logits;
    std::vector<Tensor> layers;
};

// The text as the page's data says the model reads it: words, or characters (ASCII here).
std::vector<std::string> framed_tokens(const Json& model, const std::string& text) {
    std::vector<std::string> tokens;
    const Json& tokenizer = model.at("tokenizer");
    for (const Json& t : tokenizer.at("prefix").as_array()) tokens.push_back(t.as_string());
    if (tokenizer.at("unit").as_string() == "char") {
        for (char c : text) tokens.push_back(std::string(1, c));
    } else {
        std::istringstream words(text);
        for (std::string w; words >> w;) tokens.push_back(w);
    }
    for (const Json& t : tokenizer.at("suffix").as_array()) tokens.push_back(t.as_string());
    return tokens;
}

Reference reference(Model& m, const std::string& text) {
    Reference r{framed_tokens(*m.json, text), {}, {}, {}};
    const std::vector<std::string>& vocab = m.checkpoint.info.vocab;
    for (const std::string& t : r.tokens) {
        const auto it = std::find(vocab.begin(), vocab.end(), t);
        if (it == vocab.end()) throw ValueError("browser_test: '" + t + "' is not in the vocabulary of " + m.json->at("source").as_string());
        r.ids.push_back(it - vocab.begin());
    }
    const lab::TracedForward run = lab::traced_forward(*m.checkpoint.model, from_vector(r.ids, {1, static_cast<std::int64_t>(r.ids.size())}));
    r.logits = run.logits.select(0, 0);                                                          // [T, V]
    for (const Tensor& w : run.layers) r.layers.push_back(w.select(0, 0).contiguous());          // [H, T, T]
    return r;
}

// q or k ("w_q", "w_k") of layer l: ln1(x_l) W ᵀ + b, where x_l is the residual stream entering layer l: [T, d_model]
Tensor projection(Model& m, const Reference& r, std::size_t l, const char* w) {
    nn::Transformer& model = *m.checkpoint.model;
    NoGradGuard no_grad;
    const auto T = static_cast<std::int64_t>(r.ids.size());
    Tensor x = model.embed(from_vector(r.ids, {1, T}));
    const nn::Mask mask = model.attention_mask(T, T);
    for (std::size_t b = 0; b < l; ++b) x = model.blocks[b]->forward(x, mask);
    nn::Block& block = *model.blocks[l];
    const nn::Linear& linear = std::string(w) == "w_q" ? block.attn.w_q : block.attn.w_k;
    return linear.forward(block.ln1.forward(x)).select(0, 0);
}

// The largest |page − attnlab| over a JSON array (any nesting) against a tensor of the same shape; throws on a shape mismatch.
double max_difference(const Json& page, const Tensor& expected, const std::string& what) {
    std::vector<double> values;
    std::vector<const Json*> stack{&page};
    std::vector<std::int64_t> shape;
    for (const Json* j = &page; j->is_array(); j = &j->as_array().at(0)) shape.push_back(static_cast<std::int64_t>(j->size()));
    if (Shape(shape) != expected.shape())
        throw ValueError(what + ": the page has shape " + Shape(shape).str() + ", attnlab " + expected.shape().str());
    std::function<void(const Json&)> flatten = [&](const Json& j) {
        if (j.is_array()) for (const Json& e : j.as_array()) flatten(e);
        else values.push_back(j.as_double());
    };
    flatten(page);
    const std::vector<double> want = expected.contiguous().to_vector<double>();
    if (values.size() != want.size()) throw ValueError(what + ": ragged array on the page");
    double worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(values[i] - want[i]));
    return worst;
}

// ---- the checks ----------------------------------------------------------------------------

using Report = std::function<void(const std::string&, const std::string&)>;

struct Checker {
    std::string browser, url;
    Json data, extra;                     // the page's data; another page's (character_model_page)
    std::map<std::string, Model> models;  // by key
    Report report;
    double worst_logit = 0, worst_weight = 0;

    std::string dom(const std::string& fragment) const { return chromium(browser, "--dump-dom", url + fragment); }
    Model& model(const std::string& key) {
        const auto it = models.find(key);
        if (it == models.end()) throw ValueError("browser_test: the data has no model '" + key + "'");
        return it->second;
    }
    std::string sentence(long s) const { return data.at("sentences").as_array().at(static_cast<std::size_t>(s)).at("text").as_string(); }

    // "" if the page reports no error, else what it reports.
    static std::string page_error(const std::string& dom) {
        const std::string error = element_text(dom, "<div id=\"error\"", "</div>");
        return error.empty() ? "" : "the page reports an error: " + error;
    }

    // Every model's numbers on `text` (fragment chooses it) against attnlab's, on this page or another one.
    void numbers(const std::string& fragment, const std::string& text, const std::string& other_page = "") {
        const std::string page = other_page.empty() ? dom(fragment + "&numbers=1") : chromium(browser, "--dump-dom", other_page + fragment + "&numbers=1");
        std::string problem = page_error(page);
        std::string measured;
        if (problem.empty()) {
            const Json numbers = parse_json(element_text(page, "<pre id=\"numbers-json\"", "</pre>"), "#numbers-json");
            for (const Json& n : numbers.at("models").as_array()) {
                const std::string key = n.at("model").as_string();
                if (n.find("problem")) { problem = key + ": " + n.at("problem").as_string(); break; }
                Model& m = model(key);
                const Reference r = reference(m, text);
                std::vector<std::string> tokens;
                for (const Json& t : n.at("tokens").as_array()) tokens.push_back(t.as_string());
                if (tokens != r.tokens) { problem = key + ": the page's tokens differ from attnlab's"; break; }
                const double dl = max_difference(n.at("logits"), r.logits, key + " logits");
                const double dw = max_difference(n.at("attention"), stack(r.layers, 0), key + " attention");
                worst_logit = std::max(worst_logit, dl), worst_weight = std::max(worst_weight, dw);
                char line[160];
                std::snprintf(line, sizeof line, "%s%s logits %.1e, weights %.1e", measured.empty() ? "" : "; ", key.c_str(), dl, dw);
                measured += line;
                if (dl > kTolerance || dw > kTolerance) problem = key + ": differs from attnlab by more than 1e-4";
            }
        }
        // The page's folder names the model (attnlab_browser_test_<name>/explorer.html).
        const std::string which = std::filesystem::path(other_page).parent_path().filename().string();
        report(std::string(other_page.empty() ? "" : "a character model's page (tinygpt show's, " + which + "): ") + "numbers \"" + text + "\": " + measured,
               problem);
    }

    // What the head view must show for `c`, from attnlab's weights: lines, and those at the 4-decimal edge.
    std::pair<Lines, std::set<Key>> expected_lines(const Case& c) {
        const Reference r = reference(model(c.model), sentence(c.sentence));
        const Tensor& layer = r.layers.at(static_cast<std::size_t>(c.layer));  // [H, T, T]
        Lines lines;
        std::set<Key> edge;
        for (long h = 0; h < layer.size(0); ++h) {
            if (!c.heads.empty() && std::find(c.heads.begin(), c.heads.end(), h) == c.heads.end()) continue;
            for (long i = 0; i < layer.size(1); ++i)
                for (long j = 0; j < layer.size(2); ++j) {
                    if ((c.side == 'q' && i != c.token) || (c.side == 'k' && j != c.token)) continue;
                    const double w = layer.at({h, i, j});
                    if (std::abs(w - 0.00005) < 1e-6) edge.insert({h, i, j});
                    else if (w > 0.00005) lines[{h, i, j}] = w;
                }
        }
        return {lines, edge};
    }

    // "" if `shown` has exactly the expected lines (edge ones either way), each weight within 1e-4.
    static std::string compare(const Lines& shown, const Lines& expected, const std::set<Key>& edge) {
        std::string missing, extra, off;
        auto name = [](const Key& k) { return " [head " + std::to_string(k.head + 1) + ": " + std::to_string(k.from) + "->" + std::to_string(k.to) + "]"; };
        for (const auto& [k, w] : expected)
            if (!shown.count(k)) missing += name(k);
            else if (std::abs(shown.at(k) - w) > kTolerance) off += name(k) + " " + std::to_string(shown.at(k)) + " vs " + std::to_string(w);
        for (const auto& [k, w] : shown)
            if (!expected.count(k) && !edge.count(k)) extra += name(k);
        if (missing.empty() && extra.empty() && off.empty()) return "";
        return "missing:" + (missing.empty() ? " none" : missing.substr(0, 200)) + "; unexpected:" + (extra.empty() ? " none" : extra.substr(0, 200)) +
               "; weights off:" + (off.empty() ? " none" : off.substr(0, 200));
    }

    // One head-view case; returns the page's lines (for the control).
    Lines lines(const Case& c) {
        const std::string page = dom(c.fragment);
        const std::string error = element_text(page, "<div id=\"error\"", "</div>");
        const std::string status = element_text(page, "<p id=\"status\"", "</p>");
        const Drawing drawn = dom_lines(page);
        const auto [expected, edge] = expected_lines(c);
        const std::vector<std::string> tokens = framed_tokens(*model(c.model).json, sentence(c.sentence));
        std::string problem;
        if (c.error.empty() && !error.empty()) problem = "the page reports an error: " + error;
        if (!c.error.empty() && error.find(c.error) == std::string::npos)
            problem = "expected the page to report '" + c.error + "', it reports '" + error + "'";
        if (problem.empty()) problem = compare(drawn.lines, expected, edge);
        if (problem.empty() && drawn.lines.empty()) problem = "no lines at all";
        if (problem.empty() && status.rfind(c.status, 0) != 0)
            problem = "the status line reads '" + status + "', expected it to start with '" + c.status + "'";
        if (problem.empty() && status.find(": " + std::to_string(drawn.lines.size()) + " lines") == std::string::npos)
            problem = "the status line '" + status + "' does not count " + std::to_string(drawn.lines.size()) + " lines";
        for (const auto& [l, w] : drawn.lines) {  // now the lines are the expected ones, so their tokens exist
            if (!problem.empty()) break;
            char weight[32];
            std::snprintf(weight, sizeof weight, "%.4f", w);
            const auto token = [&](long i) { return tokens.at(static_cast<std::size_t>(i)) + " (" + std::to_string(i) + ")"; };
            const std::string want = "head " + std::to_string(l.head + 1) + ": " + token(l.from) + " \u2192 " + token(l.to) + " = " + weight;
            const auto tip = drawn.tooltips.find(l);
            if (tip == drawn.tooltips.end() || tip->second != want)
                problem = "a line's tooltip reads '" + (tip == drawn.tooltips.end() ? "" : tip->second) + "', expected '" + want + "'";
        }
        report("#" + c.fragment + " (" + std::to_string(expected.size()) + " lines)", problem);
        return drawn.lines;
    }

    // The neuron view of one head, query and key of causal_model's layer 2 on sentence 1.
    void neuron() {
        const long layer = 1, head = 2, query = 3, key = 1;
        const std::string fragment = "model=causal&sentence=1&layer=2&neuron=3,3,1";
        const std::string page = dom(fragment);
        std::string problem = page_error(page);
        Model& m = model("causal");
        const Reference r = reference(m, sentence(0));
        const std::int64_t dk = m.checkpoint.model->config().d_model / m.checkpoint.model->config().n_heads;
        const Tensor q = projection(m, r, layer, "w_q").select(0, query).narrow(0, head * dk, dk);  // [d_k]
        const Tensor k = projection(m, r, layer, "w_k").select(0, key).narrow(0, head * dk, dk);
        const double score = sum(q * k).item(), scale = m.json->at("config").at("scale").as_double();
        const std::size_t at = page.find("<section id=\"neuron\"");
        const std::string tag = at == std::string::npos ? "" : page.substr(at, page.find('>', at) - at);
        std::vector<double> cells;  // q, k, then q × k: the data-value of every cell in the section
        const std::size_t end = page.find("</section>", at);
        for (std::size_t c = page.find("data-value=\"", at); c < end; c = page.find("data-value=\"", c + 1))
            cells.push_back(std::stod(page.substr(c + 12)));
        double worst = 0;
        if (problem.empty() && (tag.empty() || cells.size() != static_cast<std::size_t>(3 * dk)))
            problem = "the neuron view shows " + std::to_string(cells.size()) + " values, expected q, k and q × k: " + std::to_string(3 * dk);
        if (problem.empty()) {
            const std::vector<double> qv = q.to_vector<double>(), kv = k.to_vector<double>();
            double page_sum = 0;
            for (std::int64_t e = 0; e < dk; ++e) {
                const auto u = static_cast<std::size_t>(e);
                worst = std::max({worst, std::abs(cells[u] - qv[u]), std::abs(cells[u + dk] - kv[u]), std::abs(cells[u + 2 * dk] - qv[u] * kv[u])});
                page_sum += cells[u + 2 * dk];
            }
            const double weight = r.layers[layer].at({head, query, key});
            worst = std::max({worst, std::abs(std::stod(attribute(tag, "data-score")) - score),
                              std::abs(std::stod(attribute(tag, "data-scaled")) - score * scale),
                              std::abs(std::stod(attribute(tag, "data-weight")) - weight), std::abs(page_sum - score)});
            if (worst > kTolerance) problem = "the neuron view differs from attnlab by " + std::to_string(worst);
        }
        char line[96];
        std::snprintf(line, sizeof line, " (max |diff| %.1e over q, k, q x k, score, scaled, weight)", worst);
        report("neuron view #" + fragment + line, problem);
    }

    // A word the model lacks: named, with data::nearest_words's suggestions; nothing drawn, no script error.
    void unknown_word() {
        const std::string fragment = "model=causal&text=the%20zebra%20sat";
        const std::string page = dom(fragment);
        std::vector<std::string> words;
        for (const std::string& w : model("causal").checkpoint.info.vocab)
            if (w.front() != '<' && w.front() != '[') words.push_back(w);
        std::string near;
        for (const std::string& w : data::nearest_words("zebra", words, 5)) near += (near.empty() ? "" : ", ") + w;
        const std::string want = "does not know the word \u201czebra\u201d; nearest known words: " + near;
        const std::string shown = element_text(page, "<p id=\"unknown\"", "</p>");
        std::string problem = page_error(page);
        if (problem.empty() && shown.find(want) == std::string::npos) problem = "#unknown reads '" + shown + "', expected '" + want + "'";
        if (problem.empty() && !dom_lines(page).lines.empty()) problem = "lines are drawn for a text the model cannot read";
        report("#" + fragment + ": \"" + want + "\"", problem);
    }
};

std::string url_encode(const std::string& text);

// The whole tag (from '<' to '>') that contains `marker`, e.g. id="show-gradients" ("" if absent).
std::string tag_with(const std::string& dom, const std::string& marker) {
    const std::size_t at = dom.find(marker);
    if (at == std::string::npos) return "";
    const std::size_t open = dom.rfind('<', at);
    return dom.substr(open, dom.find('>', at) - open);
}

// The dL/dA view's cells: (head, query, key) -> the data-grad the page wrote.
Lines gradient_cells(const std::string& dom) {
    Lines cells;
    const std::size_t begin = dom.find("<section id=\"gradient-view\""), end = dom.find("</section>", begin);
    if (begin == std::string::npos) throw ValueError("browser_test: no <section id=\"gradient-view\"> in the DOM");
    for (std::size_t at = dom.find("<td ", begin); at < end; at = dom.find("<td ", at + 1)) {
        const std::string tag = dom.substr(at, dom.find('>', at) - at);
        if (attribute(tag, "data-grad").empty()) continue;
        cells[{std::stol(attribute(tag, "data-head")), std::stol(attribute(tag, "data-query")), std::stol(attribute(tag, "data-key"))}] =
            std::stod(attribute(tag, "data-grad"));
    }
    return cells;
}

// The toggle on causal_model's listed sentence s (from 0), layer `layer` (from 0): see the file's opening comment.
void gradient_view(Checker& check, long s, long layer) {
    const std::string fragment = "model=causal&sentence=" + std::to_string(s + 1) + "&layer=" + std::to_string(layer + 1);
    const std::string weights_page = check.dom(fragment), page = check.dom(fragment + "&view=gradients");
    std::string problem = Checker::page_error(page);
    if (problem.empty()) problem = Checker::page_error(weights_page);
    Model& m = check.model("causal");
    const Json& dA = m.json->at("gradients").as_array().at(static_cast<std::size_t>(s)).at("dA");  // [layer][head][query][key]
    const Reference r = reference(m, check.sentence(s));
    const lab::AttentionGradients g = lab::attention_gradients(*m.checkpoint.model, r.ids);
    const Tensor& want = g.grads.at(static_cast<std::size_t>(layer));  // [H, T, T]
    const Lines cells = gradient_cells(page);
    std::size_t expected = 0;
    double worst = 0;  // largest |page - attnlab| / |attnlab| over the cells
    for (long h = 0; problem.empty() && h < want.size(0); ++h)
        for (long i = 0; problem.empty() && i < want.size(1); ++i)
            for (long j = 0; problem.empty() && j <= i; ++j, ++expected) {  // causal: key <= query
                const auto cell = cells.find({h, i, j});
                const double data = dA.as_array()[static_cast<std::size_t>(layer)].as_array()[static_cast<std::size_t>(h)]
                                        .as_array()[static_cast<std::size_t>(i)].as_array()[static_cast<std::size_t>(j)].as_double();
                const double autograd = want.at({h, i, j});
                const std::string where = "head " + std::to_string(h + 1) + " (" + std::to_string(i) + ", " + std::to_string(j) + ")";
                if (cell == cells.end()) problem = "no cell for " + where;
                else if (cell->second != data) problem = where + " shows " + std::to_string(cell->second) + ", the data holds " + std::to_string(data);
                else if (autograd != 0) worst = std::max(worst, std::abs(data - autograd) / std::abs(autograd));
                else if (data != 0) problem = where + " is " + std::to_string(data) + " where attnlab's dL/dA is 0";
            }
    if (problem.empty() && cells.size() != expected)
        problem = std::to_string(cells.size()) + " cells, expected every unmasked pair of every head: " + std::to_string(expected);
    if (problem.empty() && worst > 5.01e-4) problem = "the data's dL/dA differs from attnlab's by a relative " + std::to_string(worst);
    if (problem.empty() && (attribute(tag_with(page, "id=\"show-gradients\""), "aria-pressed") != "true" ||
                            attribute(tag_with(weights_page, "id=\"show-weights\""), "aria-pressed") != "true"))
        problem = "the toggle's pressed button does not follow the view";
    if (problem.empty() && (!dom_lines(page).lines.empty() || dom_lines(weights_page).lines.empty() || !gradient_cells(weights_page).empty()))
        problem = "the toggle does not switch between attention lines (weights) and dL/dA cells";
    char line[200];
    std::snprintf(line, sizeof line, "dL/dA view #%s&view=gradients: %zu cells equal the data, which is attnlab's within a relative %.1e",
                  fragment.c_str(), cells.size(), worst);
    check.report(line, problem);
}

// In the dL/dA view, a text with no embedded gradients shows `note`, draws no cell and raises no script error.
void gradient_note(Checker& check, const std::string& fragment, const std::string& note) {
    const std::string page = check.dom(fragment);
    std::string problem = Checker::page_error(page);
    const std::string shown = element_text(page, "<p id=\"gradient-note\"", "</p>");
    if (problem.empty() && shown.find(note) == std::string::npos) problem = "#gradient-note reads '" + shown + "', expected '" + note + "'";
    if (problem.empty() && !gradient_cells(page).empty()) problem = "dL/dA cells are drawn where the page has no gradients";
    check.report("#" + fragment + ": \"" + note + "\"", problem);
}

// The page `tinygpt show --checkpoint` writes, for a character model with random weights (scaled up
// so attention is far from uniform): its numbers on a text. `c` picks the mask, the position scheme
// and the normalizer, which the page must compute as attnlab does.
void character_model_page(Checker& check, const std::string& name, const nn::TransformerConfig& c) {
    nn::LoadedCheckpoint ck;
    ck.model = std::make_unique<nn::Transformer>(c, 3);
    for (const nn::NamedParameter& p : ck.model->named_parameters())
        if (p.name.find("ln") == std::string::npos) copy_(p.tensor.detach(), p.tensor.detach() * 30.0);
    ck.info = {"char", {"<pad>", "a", "b", "c", " "}, {}};
    const std::string dir = (std::filesystem::temp_directory_path() / ("attnlab_browser_test_" + name)).string();
    const std::string page = lab::write_explorer(ck, "chars", {}, dir);
    check.extra = load_json(dir + "/explorer_data.json");
    check.models["model"] = Model{&check.extra.at("models").as_array().at(0), std::move(ck)};
    check.numbers("text=" + url_encode("abc cab ba"), "abc cab ba", "file://" + std::filesystem::absolute(page).string() + "#");
}

// %-escapes for a URL fragment (letters, digits and -_.~ as they are).
std::string url_encode(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || std::strchr("-_.~", c)) out += static_cast<char>(c);
        else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            out += hex;
        }
    }
    return out;
}

void run_checks(const std::string& browser, const Report& report, double& worst_logit, double& worst_weight) {
    Checker check{browser, "file://" + std::filesystem::absolute(kPage).string() + "#", load_json(kData), {}, {}, report};
    for (const Json& m : check.data.at("models").as_array())
        check.models[m.at("key").as_string()] = Model{&m, nn::load_checkpoint(m.at("source").as_string())};

    const std::size_t listed = check.data.at("sentences").size();
    for (std::size_t s = 0; s < listed; ++s) check.numbers("sentence=" + std::to_string(s + 1), check.sentence(static_cast<long>(s)));
    for (const std::string& text : kNewSentences) {
        for (std::size_t s = 0; s < listed; ++s)
            if (check.sentence(static_cast<long>(s)) == text) throw ValueError("browser_test: '" + text + "' is a listed sentence, not a new one");
        check.numbers("text=" + url_encode(text), text);
    }

    const std::vector<Case> cases{
        {"model=causal&sentence=1&layer=2&head=3&token=3", "causal", 0, 1, {2}, 'q', 3, "",
         "causal_model (causal), sentence 1, layer 2, head 3, query 3 \u201csat\u201d: "},
        {"model=bidirectional&sentence=1&layer=2&head=3&token=3", "bidirectional", 0, 1, {2}, 'q', 3},
        {"model=bidirectional&sentence=3&layer=1&head=1,4&key=5", "bidirectional", 2, 0, {0, 3}, 'k', 5, "",
         "multi_head_model (bidirectional), sentence 3, layer 1, head 1, 4, key 5 "},
        {"model=causal&sentence=2&layer=1&key=4", "causal", 1, 0, {}, 'k', 4},
        {"model=causal&sentence=8&layer=2", "causal", 7, 1, {}, 0, 0, "",
         "causal_model (causal), sentence 8, layer 2, head 1, 2, 3, 4: "},
        {"model=causal&layer=3&token=1", "causal", 0, 0, {}, 0, 0, "layer=3 is out of range: causal_model's layer list runs from 1 to 2"},
        {"model=causal&layer=0", "causal", 0, 0, {}, 0, 0, "layer=0 is out of range"},
        {"model=causal&head=0", "causal", 0, 0, {}, 0, 0, "head=0 is out of range"},
        {"model=causal&sentence=11", "causal", 0, 0, {}, 0, 0, "sentence=11 is out of range"},
    };
    Lines first;
    for (const Case& c : cases) {
        Lines shown = check.lines(c);
        if (&c == &cases[0]) first = std::move(shown);
    }
    // The control: the first page must not pass as the neighbouring token's lines.
    Case other = cases[0];
    other.token += 1;
    const auto [other_lines, other_edge] = check.expected_lines(other);
    report("control: the lines of token 3 do not pass as those of token 4",
           Checker::compare(first, other_lines, other_edge).empty() ? "the comparison accepted them" : "");
    check.neuron();
    check.unknown_word();
    gradient_view(check, 0, 1);
    gradient_view(check, 2, 0);
    gradient_note(check, "model=causal&text=" + url_encode(kNewSentences[0]) + "&view=gradients",
                  "dL/dA exists for the listed sentences only");
    gradient_note(check, "model=bidirectional&sentence=1&view=gradients", "multi_head_model has no dL/dA");
    // A ±2 window on top of the causal mask; then sinusoidal positions with sparsemax (exact zeros),
    // and no positions at all in a bidirectional model.
    const nn::TransformerConfig chars{.vocab_size = 5, .d_model = 16, .n_heads = 2, .n_layers = 2, .context = 16, .causal = true};
    nn::TransformerConfig windowed = chars, sparse = chars, unordered = chars;
    windowed.window = 2;
    sparse.positions = nn::PositionScheme::sinusoidal, sparse.normalizer = nn::Normalizer::sparsemax();
    unordered.positions = nn::PositionScheme::none, unordered.causal = false;
    character_model_page(check, "chars", windowed);
    character_model_page(check, "sinusoidal_sparsemax", sparse);
    character_model_page(check, "no_positions", unordered);

    std::filesystem::remove(kScreenshot);
    chromium(browser, "--screenshot=" + std::filesystem::absolute(kScreenshot).string() + " --window-size=1280,1500 --hide-scrollbars",
             check.url + "model=causal&text=the%20dog%20saw%20the%20cat&layer=2&head=3&token=3");
    const std::string png = std::filesystem::exists(kScreenshot) ? read_file(kScreenshot) : "";
    report("screenshot " + kScreenshot + " (" + std::to_string(png.size() / 1024) + " KB)",
           png.rfind("\x89PNG\r\n\x1a\n", 0) == 0 ? "" : "no PNG written");
    worst_logit = check.worst_logit, worst_weight = check.worst_weight;
}

}  // namespace

int main(int argc, char** argv) {
    lab::Options opt("browser_test", "Checks out/phase3/explorer.html in a headless Chromium: every attention line the "
                                     "page draws is the one its data says (run from the repository root after make phase3).");
    opt.add("browser", "PATH", "chromium", "the Chromium binary to drive");
    opt.parse(argc, argv);
    const std::string browser = opt.text("browser");
    int passed = 0, failed = 0;
    auto report = [&](const std::string& name, const std::string& problem) {
        std::printf("  %s %s%s%s\n", problem.empty() ? "ok  " : "FAIL", name.c_str(), problem.empty() ? "" : ": ",
                    problem.c_str());
        (problem.empty() ? passed : failed) += 1;
    };
    double worst_logit = 0, worst_weight = 0;
    try {
        run_checks(browser, report, worst_logit, worst_weight);
    } catch (const std::exception& e) {
        report("setup", e.what());
    }
    std::printf("largest |page - attnlab| over every number checked: logits %.2e, attention weights %.2e (tolerance 1e-4)\n",
                worst_logit, worst_weight);
    std::printf("browser: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
