// phase_common.hpp — the few things every phase program does the same way: read the
// learner's settings (the flags every phase shares), load the model and the sentence,
// announce sections, turn tensors into chart data, save figures (SVG + PNG) and
// metrics.json into <out>/phaseN/.
//
// A phase program's main() is its table of contents: it declares its flags, reads them
// (every check before any work, so a bad value costs nothing), then calls one function
// per section of the seed, in the seed's order and with its step numbers.
//
// Header-only on purpose: each phase stays one readable program, and this file
// only removes repetition that would distract from the seed's narrative.
#pragma once
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "data/grammar.hpp"
#include "data/tokenizer.hpp"
#include "lab/options.hpp"
#include "lab/show.hpp"
#include "lab/train.hpp"
#include "nn/checkpoint.hpp"
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

// The flags every phase takes. `model` is the standard checkpoint the phase reads unless
// --checkpoint names another (out/checkpoints/<model>.safetensors, trained if missing).
struct CommonDefaults {
    std::string phase;  // "phase1": the folder under --out
    std::string model;  // "single_head_model"; empty if the phase reads no checkpoint
    std::uint64_t seed = 0;
    bool sentence = true;  // the phase reads --sentence
};

inline void add_common_flags(lab::Options& o, const CommonDefaults& d) {
    if (d.sentence) o.add("sentence", "TEXT", kToySentence, "the sentence to study (words of the model's vocabulary)");
    if (!d.model.empty())
        o.add("checkpoint", "PATH", "out/checkpoints/" + d.model + ".safetensors",
              "the trained model to study (any attnlab checkpoint of the same kind)");
    o.add("seed", "N", std::to_string(d.seed), "seed of everything random the phase does");
    o.add("out", "DIR", "out", "write DIR/" + d.phase + "/ (figures, metrics.json) and DIR/data/ (for the summary sheet)");
}

// --checkpoint (or another flag naming a checkpoint): the standard model (trained first if it
// is missing, as `make train` would), or the learner's own file, read and checked by nn::load_checkpoint.
inline nn::LoadedCheckpoint load_model(const lab::Options& o, lab::Task standard, const std::string& flag = "checkpoint") {
    if (!o.given(flag)) return lab::load_or_train(standard);
    try {
        return nn::load_checkpoint(o.text(flag));
    } catch (const std::exception& e) {
        o.fail(flag, e.what());
    }
}

// --sentence as token ids of `vocab` (id -> word), each word checked: an unknown word is an
// error that lists the nearest words the model knows.
inline std::vector<std::int64_t> sentence_ids(const lab::Options& o, const std::vector<std::string>& vocab,
                                              std::int64_t context) {
    std::vector<std::int64_t> ids;
    std::string text = o.text("sentence"), word;
    text += ' ';
    for (char c : text) {
        if (c != ' ' && c != '\t') {
            word += c;
            continue;
        }
        if (word.empty()) continue;
        const auto it = std::find(vocab.begin(), vocab.end(), word);
        auto special = [](const std::string& w) { return w.empty() || w.front() == '<' || w.front() == '['; };  // <bos>, [MASK]
        if (it == vocab.end() || special(word)) {
            std::vector<std::string> words_only;
            for (const std::string& w : vocab)
                if (!special(w)) words_only.push_back(w);
            std::string near;
            for (const std::string& w : lab::nearest_words(word, words_only, 5)) near += (near.empty() ? "" : ", ") + w;
            o.fail("sentence", "the model does not know the word '" + word + "'; nearest known words: " + near);
        }
        ids.push_back(it - vocab.begin());
        word.clear();
    }
    if (ids.empty()) o.fail("sentence", "no words");
    if (static_cast<std::int64_t>(ids.size()) + 2 > context)  // room for <bos> and <eos>, as the models were trained
        o.fail("sentence", std::to_string(ids.size()) + " words, but the model reads at most " +
                               std::to_string(context - 2) + " (its context is " + std::to_string(context) + ")");
    return ids;
}

// The sentence of a model of the learner's own corpus (tinygpt train --corpus): --sentence in
// its vocabulary (its characters for a char model, else its words, checked as sentence_ids
// does), or without --sentence the corpus's own first tokens (at most 12, and the context). No <bos>: a
// corpus is one stream of tokens.
inline std::vector<std::int64_t> corpus_sentence_ids(const lab::Options& o, const nn::LoadedCheckpoint& ck) {
    const std::int64_t context = ck.model->config().context;
    const bool chars = lab::task_from_kind(ck.info.kind) == lab::Task::chars;
    if (o.given("sentence") && !chars) return sentence_ids(o, ck.info.vocab, context);
    std::string text = o.text("sentence");
    if (!o.given("sentence")) {
        const auto it = ck.metadata.find("corpus");
        const std::string path = it == ck.metadata.end() ? "" : it->second;
        try {
            text = read_file(path);
        } catch (const std::exception& e) {
            o.fail("sentence", "not given, and the checkpoint's corpus '" + path + "' cannot be read (" + e.what() +
                                   "): give a --sentence in its vocabulary");
        }
    }
    std::vector<std::int64_t> ids;
    if (chars) {
        std::string known;  // id 0 is <pad>; id i is the i-th character
        for (std::size_t i = 1; i < ck.info.vocab.size(); ++i) known += ck.info.vocab[i];
        try {
            ids = data::CharTokenizer::from_text(known, "the checkpoint's characters").encode(text);
        } catch (const std::exception& e) {
            o.fail("sentence", e.what());
        }
    } else {
        std::string word;
        for (char c : text + " ") {
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                word += c;
            } else if (!word.empty()) {
                const auto it = std::find(ck.info.vocab.begin(), ck.info.vocab.end(), word);
                if (it == ck.info.vocab.end())
                    o.fail("sentence", "the corpus holds the word '" + word + "', which the model does not know (the file "
                                       "changed since training?): give a --sentence in its vocabulary");
                ids.push_back(it - ck.info.vocab.begin());
                word.clear();
                if (ids.size() == 12) break;
            }
        }
    }
    if (!o.given("sentence")) ids.resize(std::min<std::size_t>(ids.size(), static_cast<std::size_t>(std::min<std::int64_t>(12, context))));
    if (static_cast<std::int64_t>(ids.size()) > context)
        o.fail("sentence", std::to_string(ids.size()) + " characters, but the model reads at most " + std::to_string(context));
    if (ids.empty()) o.fail("sentence", "no tokens");
    return ids;
}

// Tokens as labels, in `vocab` (id -> token), whitespace made visible (lab::token_label).
inline std::vector<std::string> token_labels(const std::vector<std::int64_t>& ids, const std::vector<std::string>& vocab) {
    std::vector<std::string> out;
    for (std::int64_t id : ids) out.push_back(lab::token_label(vocab.at(static_cast<std::size_t>(id))));
    return out;
}

// What a checkpoint was trained on, for messages: "the toy grammar", or "corpus 'notes.txt'
// (words)" (tinygpt train --corpus records the file's path; "its own corpus" if it did not).
inline std::string trained_on(const nn::LoadedCheckpoint& ck) {
    if (ck.info.vocab == lab::grammar_vocab()) return "the toy grammar";
    const auto it = ck.metadata.find("corpus");
    const std::string unit = lab::task_from_kind(ck.info.kind) == lab::Task::chars ? "characters" : "words";
    return (it == ck.metadata.end() || it->second.empty() ? std::string("its own corpus") : "corpus '" + it->second + "'") +
           " (" + unit + ")";
}

// The sentence a phase studies, for any checkpoint: --sentence (or its default) in the toy
// grammar's words for a model of the grammar; for a model of the learner's own corpus, its
// characters or words (corpus_sentence_ids: without --sentence, the corpus's first tokens).
struct Sentence {
    std::vector<std::int64_t> ids;
    std::vector<std::string> labels;  // token_labels: what axes show
    std::string text;                 // as the learner reads it, on one line
};
inline Sentence studied_sentence(const lab::Options& o, const nn::LoadedCheckpoint& ck) {
    Sentence s;
    const bool corpus = ck.info.vocab != lab::grammar_vocab();
    s.ids = corpus ? corpus_sentence_ids(o, ck) : sentence_ids(o, ck.info.vocab, ck.model->config().context);
    s.labels = token_labels(s.ids, ck.info.vocab);
    const bool chars = lab::task_from_kind(ck.info.kind) == lab::Task::chars;
    for (std::size_t i = 0; i < s.ids.size(); ++i) {  // characters as they are, except that \n and \t are spelled out
        const std::string& t = ck.info.vocab.at(static_cast<std::size_t>(s.ids[i]));
        s.text += (i == 0 || chars ? "" : " ") + (chars && t != " " ? s.labels[i] : t);
    }
    return s;
}

// What a phase's main() does with an error none of its sections caught (a model it cannot
// read, or a bug): print it under the program's name and exit with status 1, never abort.
inline int unexpected_error(const char* argv0, const std::exception& e) {
    std::fflush(stdout);  // what the phase printed so far comes first
    std::string name = argv0;
    name = name.substr(name.find_last_of('/') + 1);
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
    return 1;
}

// Where one phase writes: figures as <dir>/<name>.svg + .png, numbers in <dir>/metrics.json,
// the summary sheet's matrix in <root>/data/.
class Output {
public:
    explicit Output(const std::string& root, const std::string& phase)
        : root_(root), dir_(root + "/" + phase), metrics_(Json::object()) {}
    const std::string& dir() const { return dir_; }
    const std::string& root() const { return root_; }
    Json& metrics() { return metrics_; }
    // Saves <dir>/<name>.svg and .png. The caption is the figure's one-line description; it is
    // written beside the figure (captions.json) and the gallery shows it, so the words and the
    // drawing come from the same place and cannot drift apart.
    void figure(const plots::Figure& fig, const std::string& name, const std::string& caption) {
        plots::save(fig, dir_ + "/" + name);
        captions_[name] = caption;
        std::printf("  wrote %s/%s.svg and .png\n", dir_.c_str(), name.c_str());
    }
    // Saves <dir>/<name>.gif: the frames (all the same size) looping, delay_cs hundredths of a
    // second each. Its caption goes to captions.json like a figure's: the gallery shows the
    // animation as a figure of its own, under its own caption.
    void animation(const std::vector<plots::Figure>& frames, const std::string& name, const std::string& caption,
                   int delay_cs) {
        plots::save_gif(frames, dir_ + "/" + name + ".gif", delay_cs);
        captions_[name] = caption;
        std::printf("  wrote %s/%s.gif (%zu frames)\n", dir_.c_str(), name.c_str(), frames.size());
    }
    // metrics.json, and captions.json: {figure name: caption} for every figure saved above.
    void save_metrics() {
        save_json(dir_ + "/metrics.json", metrics_);
        save_json(dir_ + "/captions.json", captions_);
        std::printf("  wrote %s/metrics.json and captions.json\n", dir_.c_str());
    }

private:
    std::string root_, dir_;
    Json metrics_;
    Json captions_ = Json::object();
};

// What every phase's sections share: its settings, where it writes, the metrics it records.
// A phase's own state (its model, its sentence, results one section hands the next) is a
// struct derived from it, so each section is a function of that one argument.
struct Frame {
    Frame(const lab::Options& o, const std::string& phase)
        : opt(o), out(o.text("out"), phase), m(out.metrics()), seed(o.seed()) {}
    const lab::Options& opt;
    Output out;
    Json& m;  // out's metrics.json
    std::uint64_t seed;
};

// The summary sheet (tools/gallery) shows one matrix per phase. It reads them from
// out/data/<name>.npy, with their row and column labels in out/data/<name>.labels.txt
// (two lines, space-separated; tokens hold no spaces), so its panels name the tokens.
// `root` is the phase's --out (out/ by default).
inline void save_key_matrix(const std::string& name, const Tensor& m, const std::vector<std::string>& rows,
                            const std::vector<std::string>& cols, const std::string& root = "out") {
    if (m.dim() < 2 || m.size(-2) != static_cast<std::int64_t>(rows.size()) ||
        m.size(-1) != static_cast<std::int64_t>(cols.size()))
        throw ShapeError("save_key_matrix('" + name + "'): matrix " + m.shape().str() + " but " +
                         std::to_string(rows.size()) + " row and " + std::to_string(cols.size()) + " column labels");
    auto line = [](const std::vector<std::string>& labels) {
        std::string s;
        for (const std::string& l : labels) s += (s.empty() ? "" : " ") + l;
        return s + "\n";
    };
    save_npy(root + "/data/" + name + ".npy", m.contiguous());
    write_file_atomic(root + "/data/" + name + ".labels.txt", line(rows) + line(cols));
    std::printf("  wrote %s/data/%s.npy %s (for the summary sheet)\n", root.c_str(), name.c_str(), m.shape().str().c_str());
}

}  // namespace attnlab::phase
