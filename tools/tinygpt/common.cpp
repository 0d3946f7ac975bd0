// common.cpp — the file checks, prompt encoding and attention every command shares.
#include "tools/tinygpt/common.hpp"

#include <sys/stat.h>
#include <cstring>

#include "analyses/attention_weights.hpp"
#include "autograd/node.hpp"
#include "data/corpus.hpp"
#include "training/run_config.hpp"
#include "training/train.hpp"

namespace attnlab::tinygpt {

using lab::Task;

// A flag's value that is required.
std::string required(const lab::Options& o, const std::string& name) {
    if (!o.given(name)) throw UsageError("--" + name + " is required");
    return o.text(name);
}

// A path flag's value: never empty ("" if the flag is absent).
std::string path_flag(const lab::Options& o, const std::string& name) {
    if (o.given(name) && o.text(name).empty()) throw UsageError("--" + name + " needs a file path, got ''");
    return o.given(name) ? o.text(name) : "";
}

// An input file must be a non-empty regular file, checked with stat before it is opened:
// open(2) on a FIFO blocks until a writer comes, a directory reads as nothing useful.
void check_input(const std::string& what, const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw UsageError(what + " '" + path + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw UsageError(what + " '" + path + "' is a directory, not a file");
    if (!S_ISREG(st.st_mode))
        throw UsageError(what + " '" + path + "' is not a regular file (a FIFO, device or socket); give a file");
    if (st.st_size == 0) throw UsageError(what + " '" + path + "' is empty (stat reports 0 bytes)");
}

// An output may be new or a regular file, which is then replaced atomically; anything else
// (a directory, /dev/null, a FIFO) is refused rather than replaced by a regular file.
void check_output(const std::string& what, const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;  // does not exist yet
    if (S_ISDIR(st.st_mode)) throw UsageError(what + " '" + path + "' is a directory, not a file");
    if (!S_ISREG(st.st_mode)) throw UsageError(what + " '" + path + "' exists and is not a regular file; it is left alone");
}

// The checkpoint of --checkpoint, with its kind known (the loader checks the rest), so that
// no later message blames the prompt for what the file holds.
nn::LoadedCheckpoint load(const lab::Options& o) {
    const std::string path = path_flag(o, "checkpoint");
    if (path.empty()) throw UsageError("--checkpoint is required");
    check_input("--checkpoint", path);
    nn::LoadedCheckpoint ck = nn::load_checkpoint(path);
    try {
        lab::task_from_kind(ck.info.kind);
    } catch (const ValueError& e) {
        throw IOError("--checkpoint '" + path + "': metadata 'kind': " + e.what());
    }
    return ck;
}

// --prompt's text: given and not empty (an empty prompt has nothing to continue or score).
std::string prompt_flag(const lab::Options& o) {
    const std::string prompt = required(o, "prompt");
    if (prompt.empty()) throw UsageError("--prompt is empty; give the text, in the model's vocabulary");
    return prompt;
}

bool is_chars(const nn::LoadedCheckpoint& ck) { return lab::task_from_kind(ck.info.kind) == Task::chars; }

// Prompt text -> token ids, with the tokenizer the checkpoint was trained with (a word model's
// rules too: lowercased, punctuation split). `source` names where the text came from in
// messages: "--prompt", "--sentences 'f' line 3".
std::vector<std::int64_t> encode_prompt(const nn::LoadedCheckpoint& ck, const std::string& prompt,
                                        const std::string& source) {
    if (!is_chars(ck) && prompt.find_first_not_of(" \t\n\r\v\f") == std::string::npos)
        throw ValueError(source + " '" + prompt + "' holds no words; the model reads whitespace-separated words");
    if (is_chars(ck)) {
        std::string text;
        for (std::size_t i = 1; i < ck.info.vocab.size(); ++i) text += ck.info.vocab[i];
        try {
            return data::CharTokenizer::from_text(text, "checkpoint vocabulary").encode(prompt);
        } catch (const ValueError& e) {
            throw ValueError(source + " '" + prompt + "': " + e.what() + " of the checkpoint");
        }
    }
    // A word model's vocabulary opens with the four specials (<pad>, <bos>, <eos>, [MASK]); a file
    // whose vocabulary is shorter holds no words to read a prompt with.
    if (static_cast<std::int64_t>(ck.info.vocab.size()) <= data::Vocab::kFirstWord)
        throw ValueError("--checkpoint: a word model's vocabulary opens with " + std::to_string(data::Vocab::kFirstWord) +
                         " special tokens and then its words; this one has " + std::to_string(ck.info.vocab.size()) + " entries");
    std::vector<std::string> words(ck.info.vocab.begin() + data::Vocab::kFirstWord, ck.info.vocab.end());
    const data::WordTokenizer tokenizer(data::Vocab(words), lab::word_rules(ck, "--checkpoint"));
    // Grammar rows open with <bos>; a corpus's words are one stream without it.
    std::vector<std::int64_t> ids;
    if (!ck.metadata.contains("corpus") || ck.metadata.at("corpus").empty()) ids.push_back(data::Vocab::kBos);
    try {
        for (std::int64_t id : tokenizer.encode(prompt)) ids.push_back(id);
    } catch (const ValueError& e) {
        throw ValueError(source + " '" + prompt + "': " + e.what());
    }
    return ids;
}

std::string token_text(const nn::LoadedCheckpoint& ck, std::int64_t id) {
    const std::string& t = ck.info.vocab.at(static_cast<std::size_t>(id));
    return is_chars(ck) ? t : " " + t;
}

// A token as an axis label: visible whitespace for a character model.
std::string label(const nn::LoadedCheckpoint& ck, std::int64_t id) {
    const std::string& t = ck.info.vocab.at(static_cast<std::size_t>(id));
    return is_chars(ck) ? lab::token_label(t) : t;
}

// The model's attention on ids, one [H, T, T] tensor per layer, labelled with its tokens.
// `source` names the text in messages ("--prompt 'the cat'").
lab::AttentionOf attention_of(nn::LoadedCheckpoint& ck, const std::vector<std::int64_t>& ids, const std::string& title,
                              const std::string& source) {
    const nn::TransformerConfig& c = ck.model->config();
    if (static_cast<std::int64_t>(ids.size()) > c.context)
        throw ValueError(source + " has " + std::to_string(ids.size()) + " tokens, more than the context of " +
                         std::to_string(c.context));
    lab::check_drawable(c.n_layers, c.n_heads, static_cast<std::int64_t>(ids.size()), source);  // before the forward pass
    lab::AttentionOf a{title, "", {}, lab::attention_weights(*ck.model, ids), ids};  // layers[l]: [H, T, T]
    for (std::int64_t id : ids) a.tokens.push_back(label(ck, id));
    return a;
}

// An output folder: new, or an existing directory (a file there is refused).
std::string out_dir(const lab::Options& o, const std::string& flag) {
    const std::string dir = path_flag(o, flag);
    if (dir.empty()) throw UsageError("--" + flag + " DIR is required");
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
        throw UsageError("--" + flag + " '" + dir + "' exists and is not a directory");
    return dir;
}

void report(const std::vector<std::string>& stems) {
    for (const std::string& s : stems) std::printf("wrote %s.svg and .png\n", s.c_str());
}

}  // namespace attnlab::tinygpt
