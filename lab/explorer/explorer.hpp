// explorer.hpp — builds the attention explorer (out/phase3/explorer.html): one
// self-contained page, in the spirit of bertviz's head view, that shows the
// trained models' attention on the toy sentences.
//
// The page is written by hand in three files beside this one — explorer.html (the
// skeleton), explorer.css and explorer.js — so each reads as what it is. render_page
// inlines the two into the skeleton and adds the attention data as a JSON script
// element: no network, no libraries, one file to open or send. The JavaScript
// documents the page's behaviour and its URL fragment; this file documents the data.
//
// The data (also written alone as explorer_data.json, which tools/browser_test reads):
//   { "format": "attnlab-explorer", "version": 1, "decimals": 4,
//     "head_colors": ["#1f77b4", ...],            the figures' palette, head index h -> colour h
//     "sentences": [ {"text": "the cat sat on the mat",
//                     "tokens": ["<bos>", "the", "cat", "sat", "on", "the", "mat", "<eos>"]}, ... ],
//     "models": [ {"key": "causal", "name": "causal_model", "causal": true, "description": "...",
//                  "n_layers": 2, "n_heads": 4,
//                  "attention": [ per sentence: [layer][head][query][key] ]}, ... ] }
// Every array is indexed from 0: layer index 0 is what the page calls "layer 1"
// (explorer.js documents the page's numbering). Weights are rounded to `decimals`
// places (the page shows them with exactly that many), which keeps the page small;
// a row then sums to 1 only to within ~T·0.5e-4.
// Header-only; in lab/ because phase 3 and `tinygpt show` both write the page.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tensor/error.hpp"
#include "tensor/fileio.hpp"
#include "tensor/json.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::explorer {

inline constexpr int kDecimals = 4;

inline std::string template_dir() { return std::string(ATTNLAB_SOURCE_DIR) + "/lab/explorer"; }

// w rounded to kDecimals places (half away from zero, as std::round does).
inline double round_weight(double w) {
    constexpr double scale = 1e4;
    static_assert(kDecimals == 4, "scale must be 10^kDecimals");
    return std::round(w * scale) / scale;
}

// One sequence's attention, layers[l]: [H, T, T] -> JSON [layer][head][query][key], rounded.
inline Json attention_json(const std::vector<Tensor>& layers) {
    Json out = Json::array();
    for (const Tensor& layer : layers) {
        if (layer.dim() != 3 || layer.size(1) != layer.size(2))
            throw ShapeError("explorer::attention_json: each layer must be [H, T, T], got " + layer.shape().str());
        const std::int64_t H = layer.size(0), T = layer.size(1);
        const std::vector<double> w = layer.contiguous().to_vector<double>();
        Json heads = Json::array();
        for (std::int64_t h = 0; h < H; ++h) {
            Json rows = Json::array();
            for (std::int64_t i = 0; i < T; ++i) {
                Json row = Json::array();
                for (std::int64_t j = 0; j < T; ++j) row.push_back(round_weight(w[static_cast<std::size_t>((h * T + i) * T + j)]));
                rows.push_back(std::move(row));
            }
            heads.push_back(std::move(rows));
        }
        out.push_back(std::move(heads));
    }
    return out;
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

// The finished page: explorer.html with explorer.css, explorer.js and the data inlined.
// Each marker must occur exactly once in the skeleton (ValueError otherwise); they are
// all found before anything is inserted, so inserted text is never searched for markers.
inline std::string render_page(const Json& data, const std::string& dir = template_dir()) {
    const std::string skeleton = read_file(dir + "/explorer.html");
    const std::string css = read_file(dir + "/explorer.css"), js = read_file(dir + "/explorer.js");
    // The inlined files must not end the element that holds them.
    if (css.find("</style") != std::string::npos) throw ValueError("explorer: explorer.css contains </style");
    if (js.find("</script") != std::string::npos) throw ValueError("explorer: explorer.js contains </script");
    struct Fill {
        std::string marker, content;
        std::size_t at = 0;
    };
    std::vector<Fill> fills{{"/*@STYLE@*/", css}, {"/*@SCRIPT@*/", js}, {"@DATA@", script_safe_json(data)}};
    for (Fill& f : fills) {
        f.at = skeleton.find(f.marker);
        if (f.at == std::string::npos || skeleton.find(f.marker, f.at + 1) != std::string::npos)
            throw ValueError("explorer: " + dir + "/explorer.html must contain " + f.marker + " exactly once");
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
