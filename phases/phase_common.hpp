// phase_common.hpp — the few things every phase program does the same way: read the
// learner's settings (the flags every phase shares), load the model and the sentence,
// announce sections, turn tensors into chart data, save figures (SVG + PNG) and
// metrics.json into <out>/phaseN/.
//
// A phase program's main() is its table of contents: it declares its flags, reads them
// (every check before any work, so a bad value costs nothing), then calls one function
// per step of the course, in its order and with its step numbers.
//
// This file only removes repetition that would distract from the course's narrative. Its
// bodies, like every phase section's, are in phases/sections/ (build/libphases.a), compiled
// once rather than in every phase program: one phase rebuilds in seconds.
#pragma once
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "data/grammar.hpp"
#include "data/tokenizer.hpp"
#include "app/options.hpp"
#include "analyses/show.hpp"
#include "training/train.hpp"
#include "nn/checkpoint.hpp"
#include "plots/chart_input.hpp"
#include "plots/save.hpp"
#include "io/fileio.hpp"
#include "io/json.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"

namespace attnlab::phase {

inline const std::string kToySentence = "the cat sat on the mat";

// A numbered section heading, like the course's steps.
void section(const std::string& title);

// A [R, C] tensor as rows of doubles, the plotter's input.
using lab::to_matrix;  // analyses/show.hpp: one copy for phases and tools

std::vector<double> to_values(const Tensor& t);

// A tensor's elements as a flat JSON list, for metrics.json (its shape is recorded beside it).
Json to_json(const Tensor& t);

// Words -> token ids of the toy grammar (without <bos>), and back to their words.
std::vector<std::int64_t> encode(const std::string& text);
std::vector<std::string> words(const std::string& text);

// The flags every phase takes. `model` is the standard checkpoint the phase reads unless
// --checkpoint names another (out/checkpoints/<model>.safetensors, trained if missing).
struct CommonDefaults {
    std::string phase;  // "phase1": the folder under --out
    std::string model;  // "single_head_model"; empty if the phase reads no checkpoint
    std::uint64_t seed = 0;
    bool sentence = true;  // the phase reads --sentence
};

void add_common_flags(lab::Options& o, const CommonDefaults& d);

// --checkpoint (or another flag naming a checkpoint): the standard model (trained first if it
// is missing, as `make train` would), or the learner's own file, read and checked by nn::load_checkpoint.
nn::LoadedCheckpoint load_model(const lab::Options& o, lab::Task standard, const std::string& flag = "checkpoint");

// --sentence as token ids of `vocab` (id -> word), each word checked: an unknown word is an
// error that lists the nearest words the model knows.
std::vector<std::int64_t> sentence_ids(const lab::Options& o, const std::vector<std::string>& vocab,
                                       std::int64_t context);

// The sentence of a model of the learner's own corpus (tinygpt train --corpus): --sentence in
// its vocabulary (its characters for a char model, else its words, checked as sentence_ids
// does), or without --sentence the corpus's own first tokens (at most 12, and the context). No <bos>: a
// corpus is one stream of tokens.
std::vector<std::int64_t> corpus_sentence_ids(const lab::Options& o, const nn::LoadedCheckpoint& ck);

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
Sentence studied_sentence(const lab::Options& o, const nn::LoadedCheckpoint& ck);

// What a phase's main() does with an error none of its sections caught (a model it cannot
// read, or a bug): print it under the program's name and exit with status 1, never abort.
int unexpected_error(const char* argv0, const std::exception& e);

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
    void figure(const plots::Figure& fig, const std::string& name, const std::string& caption);
    // Saves <dir>/<name>.gif: the frames (all the same size) looping, delay_cs hundredths of a
    // second each. Its caption goes to captions.json like a figure's: the gallery shows the
    // animation as a figure of its own, under its own caption.
    void animation(const std::vector<plots::Figure>& frames, const std::string& name, const std::string& caption,
                   int delay_cs);
    // metrics.json, and captions.json: {figure name: caption} for every figure saved above.
    void save_metrics();

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
void save_key_matrix(const std::string& name, const Tensor& m, const std::vector<std::string>& rows,
                     const std::vector<std::string>& cols, const std::string& root = "out");

}  // namespace attnlab::phase
