// run_config.hpp — a training run's settings as data, so that a checkpoint can hold the
// whole run and `--resume` can restore it, and so that every setting has one name.
//
// run_settings() is one table: for each TrainConfig setting, its key (in a checkpoint's
// metadata and in messages), its tinygpt train flag, and the values it accepts. The
// checkpoint records every setting, the identity of the data (DataIdentity) and the loss
// curve; stored_run() reads them back and checks them against each other (the curve has
// one row per step, the step is within the run). differences() lists what a resumed
// run would change.
//
// To add a setting: a TrainConfig field, a row in run_settings() (run_config.cpp). It is
// then recorded, restored, compared on resume and accepted by tinygpt train's flag.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "data/tokenizer.hpp"
#include "training/train.hpp"
#include "io/number.hpp"
#include "io/safetensors.hpp"

namespace attnlab::lab {

struct RunSetting {
    const char* key;   // "lr": metadata key and the name in messages
    const char* flag;  // "--lr": tinygpt train's flag; "" if it has none yet
    std::variant<std::int64_t TrainConfig::*, double TrainConfig::*, std::uint64_t TrainConfig::*, bool TrainConfig::*,
                 nn::PositionScheme TrainConfig::*, nn::Normalizer TrainConfig::*>
        field;
    double lo = 0, hi = 0;  // accepted values: [lo, hi], open at an end when lo_open / hi_open (bool, uint64: any;
                            // a choice, the names its parser takes)
    bool lo_open = false, hi_open = false;
    bool since_v2 = false;  // added after the first run records: absent in older checkpoints, read as the default
};

const std::vector<RunSetting>& run_settings();

// The setting's value as text that reads back to the same value (shortest round trip).
std::string setting_text(const TrainConfig& c, const RunSetting& s);
// Parses text into the setting; ValueError "<who> needs <what it accepts>, got '<text>'".
void set_setting(TrainConfig& c, const RunSetting& s, const std::string& text, const std::string& who);
// ValueError naming `who` (the setting's key when empty) if the value is outside its range.
void check_setting(const TrainConfig& c, const RunSetting& s, const std::string& who = "");

// Strict text -> integer: the whole text, in range; nullopt otherwise. (Reals: parse_real in
// io/number.hpp, which has the same rules.)
std::optional<std::int64_t> parse_int64(std::string_view text);
std::optional<std::uint64_t> parse_uint64(std::string_view text);
// The shortest text that reads back as v ("0.003", "1e-320"), never "0.000000".
std::string format_real(double v);

// Which data a run was trained on. The grammar is part of the program; a corpus is
// identified by its content (a path may move; a file may change under the same path).
struct DataIdentity {
    std::string corpus;        // the path it was read from ("" for the grammar)
    std::int64_t bytes = 0;
    std::uint64_t fnv1a64 = 0;  // 64-bit FNV-1a of the bytes
    bool operator==(const DataIdentity& o) const { return bytes == o.bytes && fnv1a64 == o.fnv1a64; }
};
DataIdentity identify_corpus(const std::string& path, std::string_view text);
// "'corpus.txt' (960 bytes, FNV-1a 0f3a...)", for messages.
std::string describe(const DataIdentity& data);

// Everything a training checkpoint holds about its run, read back and checked.
struct StoredRun {
    TrainConfig config;        // every setting, task and corpus path as recorded
    DataIdentity data;
    std::int64_t step = 0;     // steps done
    std::vector<TrainPoint> curve;  // one row per step, 1..step
};

// Metadata and the curve tensor that record a run (save_checkpoint's extra and training tensors).
std::map<std::string, std::string> run_metadata(const TrainConfig& c, const DataIdentity& data);
NamedTensor curve_tensor(const std::vector<TrainPoint>& curve);  // "loss_curve", float64 [steps, 3]

// Reads the run back from a loaded checkpoint; ValueError naming `path` and the problem
// if it holds none (saved without training state, or by an attnlab before run records)
// or if its parts disagree.
StoredRun stored_run(const nn::LoadedCheckpoint& ck, const std::string& path);

// Where `requested` differs from `stored`: the task, then the settings in table order. Steps
// is left out (a resumed run may extend), and so is the corpus path: train() compares the
// corpus by its content (DataIdentity), wherever it now lives.
struct Difference {
    std::string key, flag, stored, requested;
};
std::vector<Difference> differences(const TrainConfig& stored, const TrainConfig& requested);

// The word rules (data/tokenizer.hpp) a run reads its corpus with, and so every prompt to its
// model: from its settings, or from a checkpoint's metadata (absent keys: no rule, as in the
// checkpoints recorded before the rules existed; a value other than true or false: ValueError
// naming `path`).
data::WordRules word_rules(const TrainConfig& c);
data::WordRules word_rules(const nn::LoadedCheckpoint& ck, const std::string& path);

// How often each token id occurs in a corpus run's text (training and held-out parts), kept
// in the checkpoint's metadata as "token_counts", a JSON array in id order (tinygpt vocab
// shows it). Reading: nullopt where none is recorded (the grammar, or an older checkpoint);
// ValueError naming `path` unless it is one count >= 0 per token of the vocabulary.
std::string token_counts_json(const std::vector<std::int64_t>& counts);
std::optional<std::vector<std::int64_t>> token_counts(const nn::LoadedCheckpoint& ck, const std::string& path);

// The CSV of a curve: "step,loss,val_loss" then one row per step (val_loss empty where none ran).
std::string curve_csv(const std::vector<TrainPoint>& curve);

}  // namespace attnlab::lab
