// phase_common.hpp — the few things every phase program does the same way:
// announce sections, turn tensors into chart data, encode the toy sentence,
// save figures (SVG + PNG) and metrics.json into out/phaseN/.
//
// Header-only on purpose: each phase stays one readable program, and this file
// only removes repetition that would distract from the seed's narrative.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "data/grammar.hpp"
#include "data/tokenizer.hpp"
#include "lab/show.hpp"
#include "plots/chart_input.hpp"
#include "plots/save.hpp"
#include "tensor/fileio.hpp"
#include "tensor/json.hpp"
#include "tensor/npy.hpp"
#include "tensor/ops.hpp"

namespace attnlab::phase {

inline const std::string kToySentence = "the cat sat on the mat";

// A numbered section heading, like the seed's steps.
inline void section(const std::string& title) { std::printf("\n=== %s ===\n", title.c_str()); }

// A [R, C] tensor as rows of doubles, the plotter's input.
using lab::to_matrix;  // lab/show.hpp: one copy for phases and tools

inline std::vector<double> to_values(const Tensor& t) { return t.to_vector<double>(); }

// A tensor's elements as a flat JSON list, for metrics.json (its shape is recorded beside it).
inline Json to_json(const Tensor& t) {
    Json a = Json::array();
    for (double v : t.to_vector<double>()) a.push_back(v);
    return a;
}

// Words -> token ids of the toy grammar (without <bos>), and back to their words.
inline std::vector<std::int64_t> encode(const std::string& text) {
    return data::WordTokenizer(data::toy_grammar().vocab()).encode(text);
}
inline std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    for (std::int64_t id : encode(text)) out.push_back(data::toy_grammar().vocab().word(id));
    return out;
}

// Where one phase writes: figures as <dir>/<name>.svg + .png, numbers in <dir>/metrics.json.
class Output {
public:
    explicit Output(std::string dir) : dir_(std::move(dir)), metrics_(Json::object()) {}
    const std::string& dir() const { return dir_; }
    Json& metrics() { return metrics_; }
    void figure(const plots::Figure& fig, const std::string& name) {
        plots::save(fig, dir_ + "/" + name);
        std::printf("  wrote %s/%s.svg and .png\n", dir_.c_str(), name.c_str());
    }
    void save_metrics() {
        save_json(dir_ + "/metrics.json", metrics_);
        std::printf("  wrote %s/metrics.json\n", dir_.c_str());
    }

private:
    std::string dir_;
    Json metrics_;
};

// The summary sheet (tools/gallery) shows one matrix per phase. It reads them from
// out/data/<name>.npy, with their row and column labels in out/data/<name>.labels.txt
// (two lines, space-separated; tokens hold no spaces), so its panels name the tokens.
inline void save_key_matrix(const std::string& name, const Tensor& m, const std::vector<std::string>& rows,
                            const std::vector<std::string>& cols) {
    if (m.dim() < 2 || m.size(-2) != static_cast<std::int64_t>(rows.size()) ||
        m.size(-1) != static_cast<std::int64_t>(cols.size()))
        throw ShapeError("save_key_matrix('" + name + "'): matrix " + m.shape().str() + " but " +
                         std::to_string(rows.size()) + " row and " + std::to_string(cols.size()) + " column labels");
    auto line = [](const std::vector<std::string>& labels) {
        std::string s;
        for (const std::string& l : labels) s += (s.empty() ? "" : " ") + l;
        return s + "\n";
    };
    save_npy("out/data/" + name + ".npy", m.contiguous());
    write_file_atomic("out/data/" + name + ".labels.txt", line(rows) + line(cols));
    std::printf("  wrote out/data/%s.npy %s (for the summary sheet)\n", name.c_str(), m.shape().str().c_str());
}

}  // namespace attnlab::phase
