// task.hpp — what a toy transformer is trained to do, as a type.
//
//   Task          --model        checkpoint kind  standard checkpoint       predicts
//   causal        causal         causal           causal_model              the next word (TinyGPT)
//   single_head   single-head    single-head      single_head_model         [MASK]ed words, 1 head
//   multi_head    multi-head     multi-head       multi_head_model          [MASK]ed words, 4 heads
//   qkv_head      qkv-head       qkv-head         qkv_head_model            [MASK]ed words, 1 head of W_Q, W_K, W_V
//                                                                           only (no biases, no W_O: 3·d_model²)
//   chars         (--corpus F)   char             char_model                the next character of F
//
// The table in task.cpp is the only place these spellings appear: code compares Tasks,
// never strings. To add a task: a row there, its batches in training/held_out.cpp's BatchSource.
#pragma once
#include <string>

namespace attnlab::lab {

enum class Task { causal, single_head, multi_head, qkv_head, chars };

struct TaskInfo {
    Task task;
    const char* cli;         // tinygpt train --model spelling; "" for chars, which --corpus selects
    const char* kind;        // the checkpoint's "kind" metadata (format of nn/checkpoint.hpp)
    const char* model_name;  // out/checkpoints/<model_name>.safetensors for `make train`
    bool next_token;         // next-token prediction under the causal mask; false: masked-token, bidirectional
};

const TaskInfo& info(Task task);

// From each spelling back to the Task; ValueError naming the value and the choices.
Task task_from_cli(const std::string& cli);
Task task_from_kind(const std::string& kind);
Task task_from_model_name(const std::string& model_name);

// "causal, single-head or multi-head": the --model choices, for usage and errors.
std::string cli_choices();

}  // namespace attnlab::lab
