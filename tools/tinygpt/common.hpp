// common.hpp — what every tinygpt command shares: the usage error, the checks of its file
// flags, and a checkpoint's prompt turned into tokens and attention.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/show.hpp"
#include "app/options.hpp"
#include "nn/checkpoint.hpp"

namespace attnlab::tinygpt {

// A mistake in the command line found after parsing (two flags that exclude each other, a
// file that cannot be used as the flag says): main prints it like lab::Options does, exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A flag's value that is required.
std::string required(const lab::Options& o, const std::string& name);
// A path flag's value: never empty ("" if the flag is absent).
std::string path_flag(const lab::Options& o, const std::string& name);
// An input file must be a non-empty regular file, checked with stat before it is opened.
void check_input(const std::string& what, const std::string& path);
// An output may be new or a regular file; a directory, /dev/null or a FIFO is refused.
void check_output(const std::string& what, const std::string& path);
// An output folder: new, or an existing directory (a file there is refused).
std::string out_dir(const lab::Options& o, const std::string& flag);

// The checkpoint of --checkpoint, with its kind known.
nn::LoadedCheckpoint load(const lab::Options& o);
// --prompt's text: given and not empty.
std::string prompt_flag(const lab::Options& o);
bool is_chars(const nn::LoadedCheckpoint& ck);
// Prompt text -> token ids, with the tokenizer the checkpoint was trained with. `source`
// names where the text came from in messages: "--prompt", "--sentences 'f' line 3".
std::vector<std::int64_t> encode_prompt(const nn::LoadedCheckpoint& ck, const std::string& prompt,
                                        const std::string& source = "--prompt");
// A token as generated text (a word with its leading space) and as an axis label.
std::string token_text(const nn::LoadedCheckpoint& ck, std::int64_t id);
std::string label(const nn::LoadedCheckpoint& ck, std::int64_t id);
// The model's attention on ids, one [H, T, T] tensor per layer, labelled with its tokens.
lab::AttentionOf attention_of(nn::LoadedCheckpoint& ck, const std::vector<std::int64_t>& ids, const std::string& title,
                              const std::string& source);
// "wrote X.svg and .png" for each figure.
void report(const std::vector<std::string>& stems);

// The commands: each declares its flags and runs.
void declare_train(lab::Options& o);
void declare_generate(lab::Options& o);
void declare_eval(lab::Options& o);
void declare_show(lab::Options& o);
void declare_patch(lab::Options& o);
void declare_lens(lab::Options& o);
void declare_induction(lab::Options& o);
void declare_vocab(lab::Options& o);
void declare_compare(lab::Options& o);
void declare_heads(lab::Options& o);
int cmd_train(const lab::Options& o);
int cmd_generate(const lab::Options& o);
int cmd_eval(const lab::Options& o);
int cmd_show(const lab::Options& o);
int cmd_patch(const lab::Options& o);
int cmd_lens(const lab::Options& o);
int cmd_induction(const lab::Options& o);
int cmd_vocab(const lab::Options& o);
int cmd_compare(const lab::Options& o);
int cmd_heads(const lab::Options& o);

}  // namespace attnlab::tinygpt
