// phase_common.cpp — the bodies of phases/phase_common.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase_common.hpp"

#include "training/run_config.hpp"

namespace attnlab::phase {

void section(const std::string& title) { std::printf("\n=== %s ===\n", title.c_str()); }

std::vector<double> to_values(const Tensor& t) { return t.to_vector<double>(); }

Json to_json(const Tensor& t) {
    Json a = Json::array();
    for (double v : t.to_vector<double>()) a.push_back(v);
    return a;
}

std::vector<std::int64_t> encode(const std::string& text) {
    return data::WordTokenizer(data::toy_grammar().vocab()).encode(text);
}

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    for (std::int64_t id : encode(text)) out.push_back(data::toy_grammar().vocab().word(id));
    return out;
}

void add_common_flags(lab::Options& o, const CommonDefaults& d) {
    if (d.sentence) o.add("sentence", "TEXT", kToySentence, "the sentence to study (words of the model's vocabulary)");
    if (!d.model.empty())
        o.add_path("checkpoint", "PATH", "out/checkpoints/" + d.model + ".safetensors",
              "the trained model to study (any attnlab checkpoint of the same kind)");
    o.add("seed", "N", std::to_string(d.seed), "seed of everything random the phase does");
    o.add_folder("out", "out", "write DIR/" + d.phase + "/ (figures, metrics.json) and DIR/data/ (for the summary sheet)");
}

nn::LoadedCheckpoint load_model(const lab::Options& o, lab::Task standard, const std::string& flag) {
    if (!o.given(flag)) return lab::load_or_train(standard);
    try {
        return nn::load_checkpoint(o.text(flag));
    } catch (const std::exception& e) {
        o.fail(flag, e.what());
    }
}

namespace {

// Words of `vocab` (id -> word, the four specials first) as ids, with the rules the model was
// trained with; an unknown word stops the program naming --sentence and the nearest known words.
// A special token ("[MASK]", "<bos>") is not a word of a sentence: the phases place them themselves.
std::vector<std::int64_t> word_ids(const lab::Options& o, const std::vector<std::string>& vocab, const std::string& text,
                                   const data::WordRules& rules) {
    const std::vector<std::string> words(vocab.begin() + data::Vocab::kFirstWord, vocab.end());
    std::vector<std::int64_t> ids;
    try {
        ids = data::WordTokenizer(data::Vocab(words), rules).encode(text);
    } catch (const ValueError& e) {
        o.fail("sentence", e.what());
    }
    for (std::int64_t id : ids)
        if (id < data::Vocab::kFirstWord)
            o.fail("sentence", "WordTokenizer: " + data::unknown_words_message({vocab[static_cast<std::size_t>(id)]}, words));
    return ids;
}

std::vector<std::int64_t> sentence_ids(const lab::Options& o, const std::vector<std::string>& vocab, std::int64_t context,
                                       const data::WordRules& rules) {
    const std::vector<std::int64_t> ids = word_ids(o, vocab, o.text("sentence"), rules);
    if (ids.empty()) o.fail("sentence", "no words");
    if (static_cast<std::int64_t>(ids.size()) + 2 > context)  // room for <bos> and <eos>, as the models were trained
        o.fail("sentence", std::to_string(ids.size()) + " words, but the model reads at most " +
                               std::to_string(context - 2) + " (its context is " + std::to_string(context) + ")");
    return ids;
}

}  // namespace

std::vector<std::int64_t> sentence_ids(const lab::Options& o, const std::vector<std::string>& vocab,
                                       std::int64_t context) {
    return sentence_ids(o, vocab, context, {});
}

std::vector<std::int64_t> corpus_sentence_ids(const lab::Options& o, const nn::LoadedCheckpoint& ck) {
    const std::int64_t context = ck.model->config().context;
    const bool chars = lab::task_from_kind(ck.info.kind) == lab::Task::chars;
    const data::WordRules rules = chars ? data::WordRules{} : lab::word_rules(ck, o.text("checkpoint"));
    if (o.given("sentence") && !chars) return sentence_ids(o, ck.info.vocab, context, rules);
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
        std::vector<std::string> first = data::split_words(text, rules);  // the corpus's words, split as in training
        first.resize(std::min<std::size_t>(first.size(), 12));
        for (const std::string& word : first) {
            const auto it = std::find(ck.info.vocab.begin(), ck.info.vocab.end(), word);
            if (it == ck.info.vocab.end())
                o.fail("sentence", "the corpus holds the word '" + word + "', which the model does not know (the file "
                                   "changed since training?): give a --sentence in its vocabulary");
            ids.push_back(it - ck.info.vocab.begin());
        }
    }
    if (!o.given("sentence")) ids.resize(std::min<std::size_t>(ids.size(), static_cast<std::size_t>(std::min<std::int64_t>(12, context))));
    if (static_cast<std::int64_t>(ids.size()) > context)
        o.fail("sentence", std::to_string(ids.size()) + " characters, but the model reads at most " + std::to_string(context));
    if (ids.empty()) o.fail("sentence", "no tokens");
    return ids;
}

Sentence studied_sentence(const lab::Options& o, const nn::LoadedCheckpoint& ck) {
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

int unexpected_error(const char* argv0, const std::exception& e) {
    std::fflush(stdout);  // what the phase printed so far comes first
    std::string name = argv0;
    name = name.substr(name.find_last_of('/') + 1);
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
    return 1;
}

void save_key_matrix(const std::string& name, const Tensor& m, const std::vector<std::string>& rows,
                     const std::vector<std::string>& cols, const std::string& root) {
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

void Output::figure(const plots::Figure& fig, const std::string& name, const std::string& caption) {
    plots::save(fig, dir_ + "/" + name);
    captions_[name] = caption;
    std::printf("  wrote %s/%s.svg and .png\n", dir_.c_str(), name.c_str());
}

void Output::animation(const std::vector<plots::Figure>& frames, const std::string& name, const std::string& caption,
                       int delay_cs) {
    plots::save_gif(frames, dir_ + "/" + name + ".gif", delay_cs);
    captions_[name] = caption;
    std::printf("  wrote %s/%s.gif (%zu frames)\n", dir_.c_str(), name.c_str(), frames.size());
}

void Output::save_metrics() {
    save_json(dir_ + "/metrics.json", metrics_);
    save_json(dir_ + "/captions.json", captions_);
    std::printf("  wrote %s/metrics.json and captions.json\n", dir_.c_str());
}

}  // namespace attnlab::phase
