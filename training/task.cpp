// task.cpp — see task.hpp.
#include "training/task.hpp"

#include <array>

#include "tensor/error.hpp"

namespace attnlab::lab {

namespace {

constexpr std::array<TaskInfo, 5> kTasks{{
    {Task::causal, "causal", "causal", "causal_model", true},
    {Task::single_head, "single-head", "single-head", "single_head_model", false},
    {Task::multi_head, "multi-head", "multi-head", "multi_head_model", false},
    {Task::qkv_head, "qkv-head", "qkv-head", "qkv_head_model", false},
    {Task::chars, "", "char", "char_model", true},
}};

Task find(const char* TaskInfo::*field, const std::string& value, const char* what, const std::string& choices) {
    for (const TaskInfo& t : kTasks)
        if (*(t.*field) != '\0' && value == t.*field) return t.task;
    throw ValueError("unknown " + std::string(what) + " '" + value + "' (expected " + choices + ")");
}

std::string list(const char* TaskInfo::*field) {
    std::string out;
    std::size_t n = 0, count = 0;
    for (const TaskInfo& t : kTasks) count += *(t.*field) != '\0';
    for (const TaskInfo& t : kTasks) {
        if (*(t.*field) == '\0') continue;
        out += (n == 0 ? "" : n + 1 == count ? " or " : ", ") + std::string(t.*field);
        ++n;
    }
    return out;
}

}  // namespace

const TaskInfo& info(Task task) {
    for (const TaskInfo& t : kTasks)
        if (t.task == task) return t;
    throw ValueError("info: unknown Task " + std::to_string(static_cast<int>(task)));
}

Task task_from_cli(const std::string& cli) { return find(&TaskInfo::cli, cli, "model", cli_choices()); }
Task task_from_kind(const std::string& kind) { return find(&TaskInfo::kind, kind, "checkpoint kind", list(&TaskInfo::kind)); }
Task task_from_model_name(const std::string& model_name) {
    return find(&TaskInfo::model_name, model_name, "standard model", list(&TaskInfo::model_name));
}

std::string cli_choices() { return list(&TaskInfo::cli); }

}  // namespace attnlab::lab
