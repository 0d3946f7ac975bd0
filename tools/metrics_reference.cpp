// metrics_reference.cpp — the phases' default numbers, recorded once and checked after every run.
//
// Every phase program writes out/phaseN/metrics.json, and with its default settings it must
// reproduce, bit for bit, every number that does not measure time. This program keeps those
// numbers in one committed file (tests/phases/metrics_reference.json) and compares a run with it;
// kUsage below is its manual. `make check-metrics` runs `check` after `make all` (.ci/run counts
// its "metrics-reference: N passed, N failed" line); `make metrics-reference` runs `write`.
//
// The record is one flat JSON object, keys sorted: each leaf of a metrics.json under its path,
// "phase2/heads/1/loss" (an object's key or a list's index per step). A list that holds only
// scalars stays whole, as one value: phase 1's output vector is one entry, not 64.
// Values compare as Json does (integer 1 equals 1.0; doubles bit for bit, since the writer
// prints the shortest text that reads back to the same bits).
//
// Left out, because they measure time: any key that names seconds or milliseconds or a
// speed-up (is_timing_key), and every key "attention_cost" under phase 5 (timings and the
// exponent fitted to them). To leave out another timing, extend those two and say why.
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "io/json.hpp"

using namespace attnlab;

namespace {

constexpr const char* kUsage = R"(usage: metrics_reference write [OUT] [REFERENCE]   record OUT/phase1..6/metrics.json
       metrics_reference check [OUT] [REFERENCE]   compare a run with the record
       metrics_reference --help

OUT defaults to out, REFERENCE to tests/phases/metrics_reference.json. `make metrics-reference`
runs `write` after `make all`: the one command to run when a change is meant to move the
numbers (new training numerics, a new default), with the reason in the commit message.

A value is left out when it measures time: any key that names seconds or milliseconds
("seconds", "ms" between underscores or at either end), a speed-up ("speedup" or "speed-up"), an exponent
fitted to times ("time" as a whole word, as in time_exponent), and phase 5's
attention_cost section (timings and the exponent fitted to them). Everything else is compared
exactly: numbers, strings, booleans, lists.

Exit status: 0 when every recorded value matches (or the record was written),
1 when a value differs or is missing or a file cannot be read, 2 on bad use.
)";

constexpr int kFirstPhase = 1, kLastPhase = 6;
constexpr std::size_t kShownMismatches = 20;  // a changed default can move hundreds of values
constexpr std::size_t kShownChars = 120;      // of each value in a mismatch line

using Values = std::map<std::string, Json>;  // "phaseN/a/b/3" -> value, sorted by key

// Whether word stands in key between '_'s or at either end (ms in train_ms and ms_per_step,
// but not in "params" or "norms").
bool has_word(std::string_view key, std::string_view word) {
    for (std::size_t i = key.find(word); i != key.npos; i = key.find(word, i + 1)) {
        const bool starts_word = i == 0 || key[i - 1] == '_';
        const bool ends_word = i + word.size() == key.size() || key[i + word.size()] == '_';
        if (starts_word && ends_word) return true;
    }
    return false;
}

// "seconds", "speedup" or "speed-up" anywhere, or "ms" or "time" as a whole word (time_exponent: the
// slope fitted to measured times, as noisy as the times themselves).
bool is_timing_key(std::string_view key) {
    if (key.find("seconds") != key.npos || key.find("speedup") != key.npos || key.find("speed-up") != key.npos) return true;
    return has_word(key, "ms") || has_word(key, "time");
}

bool is_timing_section(std::string_view phase, std::string_view key) {
    return phase == "phase5" && key == "attention_cost";
}

// Every leaf under node as out["phaseN/a/b/3"] = value; lists of scalars stay whole.
void flatten(const Json& node, const std::string& path, std::string_view phase, Values& out) {
    if (node.is_object()) {
        for (const auto& [key, value] : node.as_object())
            if (!is_timing_key(key) && !is_timing_section(phase, key)) flatten(value, path + "/" + key, phase, out);
        return;
    }
    if (node.is_array()) {
        const Json::Array& items = node.as_array();
        bool nested = false;
        for (const Json& item : items) nested = nested || item.is_array() || item.is_object();
        if (nested) {
            for (std::size_t i = 0; i < items.size(); ++i) flatten(items[i], path + "/" + std::to_string(i), phase, out);
            return;
        }
    }
    out[path] = node;
}

// Throws IOError naming the file if one is missing or not JSON.
Values collect(const std::string& out_dir) {
    Values values;
    for (int n = kFirstPhase; n <= kLastPhase; ++n) {
        const std::string phase = "phase" + std::to_string(n);
        flatten(load_json(out_dir + "/" + phase + "/metrics.json"), phase, phase, values);
    }
    return values;
}

Values load_reference(const std::string& path) {
    const Json record = load_json(path);
    if (!record.is_object())
        throw IOError("metrics_reference: '" + path + "' must hold one JSON object (got " +
                      json_type_name(record.type()) + ")");
    return Values(record.as_object().begin(), record.as_object().end());
}

std::string shown(const Json* value) {
    if (value == nullptr) return "<missing>";
    std::string text = to_json(*value);
    if (text.size() > kShownChars) text = text.substr(0, kShownChars) + "...";
    return text;
}

int write(const std::string& out_dir, const std::string& reference) {
    const Values values = collect(out_dir);
    Json record = Json::object();
    for (const auto& [key, value] : values) record.as_object().emplace_back(key, value);
    save_json(reference, record);  // atomically: a failed write leaves the old record whole
    std::printf("metrics_reference: wrote %zu values from %s/phase%d-%d to %s\n", values.size(), out_dir.c_str(),
                kFirstPhase, kLastPhase, reference.c_str());
    return 0;
}

int check(const std::string& out_dir, const std::string& reference) {
    const Values values = collect(out_dir);
    const Values expected = load_reference(reference);
    std::size_t failed = 0;
    for (const auto& [key, want] : expected) {
        const auto got = values.find(key);
        if (got != values.end() && got->second == want) continue;
        if (++failed <= kShownMismatches)
            std::printf("  %s: reference %s, this run %s\n", key.c_str(), shown(&want).c_str(),
                        shown(got == values.end() ? nullptr : &got->second).c_str());
    }
    if (failed > kShownMismatches) std::printf("  ... and %zu more\n", failed - kShownMismatches);
    std::vector<std::string> extra;  // recorded by this run but not by the reference: a new metric
    for (const auto& [key, value] : values)
        if (!expected.count(key)) extra.push_back(key);
    std::printf("metrics-reference: %zu passed, %zu failed", expected.size() - failed, failed);
    if (!extra.empty()) std::printf(" (%zu new values not in the reference, e.g. %s)", extra.size(), extra[0].c_str());
    std::printf("\n");
    return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    for (const std::string& a : args)
        if (a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
    std::string bad;
    if (args.empty()) bad = "a command is required";
    else if (args[0] != "write" && args[0] != "check") bad = "unknown command '" + args[0] + "'";
    else if (args.size() > 3) bad = "too many arguments ('" + args[3] + "')";
    for (const std::string& a : args)
        if (bad.empty() && a.rfind("-", 0) == 0) bad = "unknown flag '" + a + "'";
    if (!bad.empty()) {
        std::fprintf(stderr, "metrics_reference: %s\n\n%s", bad.c_str(), kUsage);
        return 2;
    }
    const std::string out_dir = args.size() > 1 ? args[1] : "out";
    const std::string reference = args.size() > 2 ? args[2] : "tests/phases/metrics_reference.json";
    try {
        return args[0] == "write" ? write(out_dir, reference) : check(out_dir, reference);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "metrics_reference: %s\n", e.what());
        return 1;
    }
}
