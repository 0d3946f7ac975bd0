// explorer.hpp — builds the attention explorer (out/phase3/explorer.html): one
// self-contained page, in the spirit of bertviz's head, model and neuron views, that
// runs the trained models itself: it carries their weights and computes their forward
// pass in JavaScript on any text the learner types in the models' vocabulary.
//
// The page is written by hand in five files beside this one — explorer.html (the
// skeleton), explorer.css, model.js (the forward pass), gradients.js (the dL/dA view) and
// explorer.js (the other views) — so each reads as what it is. They are compiled into the
// programs (assets/assets.hpp), which need no source tree to write the page. render_page
// inlines the four into the skeleton and adds the data as a JSON script element: no
// network, no libraries, one file to open or send. The JavaScript documents the page's
// behaviour, its forward pass and its URL fragment; this file documents the data.
//
// The data (also written alone as explorer_data.json, which tools/browser_test reads):
//   { "format": "attnlab-explorer", "version": 3, "decimals": 4,
//     "head_colors": ["#1f77b4", ...],            the figures' palette, head index h -> colour h
//     "sentences": [ {"text": "the cat sat on the mat",
//                     "tokens": ["<bos>", "the", "cat", "sat", "on", "the", "mat", "<eos>"]}, ... ],
//     "models": [ a live model, or a recorded one ] }
// A live model (lab::explorer_model writes it from a checkpoint) is run by the page:
//     {"key": "causal", "name": "causal_model", "causal": true, "description": "...",
//      "source": "out/checkpoints/causal_model.safetensors", "n_layers": 2, "n_heads": 4,
//      "config": {"d_model": 64, "context": 32, "window": 0, "stride": 0, "scale": 0.3535..., "qkv_only": false},
//      "vocab": ["<pad>", "<bos>", ...],          id -> token text
//      "tokenizer": {"unit": "word" | "char", "prefix": ["<bos>"], "suffix": ["<eos>"],
//                    "lowercase": false, "split_punctuation": false},   a word model's data::WordRules
//      "tensors": [{"name": "tok_emb.weight", "shape": [109, 64]}, ...],   named_parameters() order
//      "weights": "base64 of every tensor's float32 values, little-endian, one after another",
//      "gradients": [ per listed sentence: {"loss": 2.31, "dA": [layer][head][query][key]} or null ]}  (version 3)
//   "gradients" (causal models only: lab::explorer_gradients) is what the page's "dL/dA" toggle
//   draws: lab::attention_gradients' dL/dA of the sentence's mean next-token cross-entropy
//   ("loss"; null for a one-token sentence), 0 where the mask blocks a pair, rounded to kGradientDigits significant digits
//   (gradients span decades, so fixed decimals would zero the small ones). The page cannot
//   differentiate, so typed text gets no gradients; a bidirectional model has none because it
//   is not trained on the next-token loss (it sees the next token).
//   Exact float32 weights, so the page's forward pass equals attnlab's to float rounding
//   (tools/browser_test.cpp checks 1e-4); base64 takes 5.3 characters per weight.
// A recorded model (`tinygpt show --from-npy`: weights without a model) holds what was
// computed instead, and the page shows only the listed sentences:
//     {..., "attention": [ per sentence: [layer][head][query][key] ]}
// Every array is indexed from 0: layer index 0 is what the page calls "layer 1"
// (explorer.js documents the page's numbering). Recorded weights are rounded to
// `decimals` places (the page shows them with exactly that many).
// Header-only; in explorer/ because phase 3 and `tinygpt show` both write the page.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <string>
#include <vector>

#include "assets/assets.hpp"
#include "tensor/error.hpp"
#include "io/fileio.hpp"
#include "io/json.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::explorer {

inline constexpr int kDecimals = 4;


// w rounded to kDecimals places (half away from zero, as std::round does).
inline double round_weight(double w) {
    constexpr double scale = 1e4;
    static_assert(kDecimals == 4, "scale must be 10^kDecimals");
    return std::round(w * scale) / scale;
}

inline constexpr int kGradientDigits = 4;

// g rounded to kGradientDigits significant digits: keeps sign and magnitude at any scale.
inline double round_gradient(double g) {
    if (g == 0 || !std::isfinite(g)) return g;
    const double scale = std::pow(10.0, kGradientDigits - 1 - std::floor(std::log10(std::abs(g))));
    return std::round(g * scale) / scale;
}

// One sequence's matrices, layers[l]: [H, T, T] -> JSON [layer][head][query][key], each value round()ed.
template <class Round>
Json matrices_json(const std::vector<Tensor>& layers, Round round, const char* what) {
    Json out = Json::array();
    for (const Tensor& layer : layers) {
        if (layer.dim() != 3 || layer.size(1) != layer.size(2))
            throw ShapeError(std::string("explorer::") + what + ": each layer must be [H, T, T], got " + layer.shape().str());
        const std::int64_t H = layer.size(0), T = layer.size(1);
        const std::vector<double> w = layer.contiguous().to_vector<double>();
        Json heads = Json::array();
        for (std::int64_t h = 0; h < H; ++h) {
            Json rows = Json::array();
            for (std::int64_t i = 0; i < T; ++i) {
                Json row = Json::array();
                for (std::int64_t j = 0; j < T; ++j) row.push_back(round(w[static_cast<std::size_t>((h * T + i) * T + j)]));
                rows.push_back(std::move(row));
            }
            heads.push_back(std::move(rows));
        }
        out.push_back(std::move(heads));
    }
    return out;
}

// Attention weights, rounded to kDecimals places; dL/dA, to kGradientDigits significant digits.
inline Json attention_json(const std::vector<Tensor>& layers) { return matrices_json(layers, round_weight, "attention_json"); }
inline Json gradients_json(const std::vector<Tensor>& layers) { return matrices_json(layers, round_gradient, "gradients_json"); }

// bytes as base64 (RFC 4648, with '=' padding): what the page's atob() reads back.
inline std::string base64(const std::string& bytes) {
    static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);  // 1, 2 or 3 bytes -> 2, 3 or 4 digits
        std::uint32_t group = 0;
        for (std::size_t b = 0; b < 3; ++b) group = group << 8 | (b < n ? static_cast<unsigned char>(bytes[i + b]) : 0u);
        for (std::size_t d = 0; d < 4; ++d) out += d <= n ? kDigits[(group >> (18 - 6 * d)) & 63] : '=';
    }
    return out;
}

// float32 values as little-endian bytes, whatever the host's order (the page reads them with a DataView).
inline std::string float32_bytes(const std::vector<float>& values) {
    std::string bytes;
    bytes.reserve(values.size() * 4);
    for (float v : values) {
        const auto bits = std::bit_cast<std::uint32_t>(v);
        for (int b = 0; b < 4; ++b) bytes += static_cast<char>((bits >> (8 * b)) & 0xFF);
    }
    return bytes;
}

// JSON text that is safe inside <script type="application/json">: the only way out
// of a script element is "</script" (and "<!--" changes how it is parsed), so every
// '<' is written as the JSON escape \u003c. JSON.parse reads the same value back.
inline std::string script_safe_json(const Json& data) {
    const std::string text = to_json(data);
    std::string out;
    out.reserve(text.size());
    for (char c : text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
    return out;
}

// The page's files: the skeleton, the style and the three scripts (model.js, gradients.js and
// explorer.js, which runs on load, share one script element in that order).
struct PageFiles {
    std::string html, css, js;
    std::string where;  // in messages: "the compiled-in explorer/explorer.html", or a folder's
};
// As compiled into the program (the page it writes).
inline PageFiles compiled_in_page() {
    const auto f = [](const char* name) { return std::string(assets::file(std::string("explorer/") + name)); };
    return {f("explorer.html"), f("explorer.css"), f("model.js") + "\n" + f("gradients.js") + "\n" + f("explorer.js"),
            "the compiled-in explorer/explorer.html"};
}
// Read from a folder holding the five files (tests of the template's checks).
inline PageFiles page_in(const std::string& dir) {
    return {read_file(dir + "/explorer.html"), read_file(dir + "/explorer.css"),
            read_file(dir + "/model.js") + "\n" + read_file(dir + "/gradients.js") + "\n" + read_file(dir + "/explorer.js"),
            dir + "/explorer.html"};
}

// The finished page: explorer.html with explorer.css, model.js, gradients.js, explorer.js and the data inlined.
// Each marker must occur exactly once in the skeleton (ValueError otherwise); they are
// all found before anything is inserted, so inserted text is never searched for markers.
inline std::string render_page(const Json& data, const PageFiles& files = compiled_in_page()) {
    const std::string& skeleton = files.html;
    // The inlined files must not end the element that holds them.
    if (files.css.find("</style") != std::string::npos) throw ValueError("explorer: explorer.css contains </style");
    if (files.js.find("</script") != std::string::npos) throw ValueError("explorer: model.js, gradients.js or explorer.js contains </script");
    struct Fill {
        std::string marker, content;
        std::size_t at = 0;
    };
    std::vector<Fill> fills{{"/*@STYLE@*/", files.css}, {"/*@SCRIPT@*/", files.js}, {"@DATA@", script_safe_json(data)}};
    for (Fill& f : fills) {
        f.at = skeleton.find(f.marker);
        if (f.at == std::string::npos || skeleton.find(f.marker, f.at + 1) != std::string::npos)
            throw ValueError("explorer: " + files.where + " must contain " + f.marker + " exactly once");
    }
    std::sort(fills.begin(), fills.end(), [](const Fill& a, const Fill& b) { return a.at < b.at; });
    std::string page;
    std::size_t from = 0;
    for (const Fill& f : fills) {
        page.append(skeleton, from, f.at - from).append(f.content);
        from = f.at + f.marker.size();
    }
    return page.append(skeleton, from);
}

}  // namespace attnlab::explorer
