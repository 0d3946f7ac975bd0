// run_config.cpp — see run_config.hpp.
#include "training/run_config.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "io/json.hpp"
#include "nn/transformer_spec.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

namespace {

constexpr double kAny = std::numeric_limits<double>::max();
using L = nn::ModelLimits;

// "an integer in [1, 4096]", "a number > 0", "a number in (0, 1]".
std::string accepts(const RunSetting& s) {
    if (std::holds_alternative<bool TrainConfig::*>(s.field)) return "true or false";
    if (std::holds_alternative<std::uint64_t TrainConfig::*>(s.field)) return "an integer >= 0";
    if (std::holds_alternative<nn::PositionScheme TrainConfig::*>(s.field)) return "learned, sinusoidal or none";
    if (std::holds_alternative<nn::Normalizer TrainConfig::*>(s.field)) return "softmax or sparsemax";
    const bool real = std::holds_alternative<double TrainConfig::*>(s.field);
    const auto text = [&](double v) { return real ? format_real(v) : std::to_string(static_cast<std::int64_t>(v)); };
    const std::string what = real ? "a number " : "an integer ";
    if (s.hi == kAny) return what + (s.lo_open ? "> " : ">= ") + text(s.lo);
    return what + "in " + (s.lo_open ? "(" : "[") + text(s.lo) + ", " + text(s.hi) + (s.hi_open ? ")" : "]");
}

bool in_range(const RunSetting& s, double v) { return (s.lo_open ? v > s.lo : v >= s.lo) && (s.hi_open ? v < s.hi : v <= s.hi); }

const std::string& need(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& path) {
    auto it = meta.find(key);
    if (it == meta.end())
        throw ValueError("resume: '" + path + "' records no '" + key +
                         "': it was saved without its run configuration (before attnlab stored one) and cannot be resumed");
    return it->second;
}

}  // namespace

const std::vector<RunSetting>& run_settings() {
    static const std::vector<RunSetting> table{
        {"total_steps", "--steps", &TrainConfig::steps, 1, double(nn::kMaxTrainingSteps)},
        {"d_model", "--d-model", &TrainConfig::d_model, 1, double(L::max_d_model)},
        {"n_heads", "--heads", &TrainConfig::n_heads, 1, double(L::max_heads)},
        {"n_layers", "--layers", &TrainConfig::n_layers, 1, double(L::max_layers)},
        {"context", "--context", &TrainConfig::context, 4, double(L::max_context)},
        {"batch", "--batch", &TrainConfig::batch, 1, 65536},
        {"shards", "--shards", &TrainConfig::shards, 1, 64, false, false, true},
        {"lr", "--lr", &TrainConfig::lr, 0, kAny},
        {"warmup", "--warmup", &TrainConfig::warmup, 0, double(nn::kMaxTrainingSteps)},
        {"min_lr_ratio", "--min-lr-ratio", &TrainConfig::min_lr_ratio, 0, 1, false, false, true},
        {"beta1", "--beta1", &TrainConfig::beta1, 0, 1, false, true, true},
        {"beta2", "--beta2", &TrainConfig::beta2, 0, 1, false, true, true},
        {"weight_decay", "--weight-decay", &TrainConfig::weight_decay, 0, kAny},
        {"clip", "--clip", &TrainConfig::clip, 0, kAny, true},
        {"seed", "--seed", &TrainConfig::seed},
        // The three of --mask none|causal|local:W|strided:S (read by training/mask_spec.hpp).
        {"causal_mask", "--mask", &TrainConfig::causal_mask},
        {"window", "--mask", &TrainConfig::window, 0, double(L::max_context)},
        {"stride", "--mask", &TrainConfig::stride, 0, double(L::max_context)},
        {"scaled", "--unscaled", &TrainConfig::scaled, 0, 0, false, false, true},
        {"positions", "--positions", &TrainConfig::positions, 0, 0, false, false, true},
        {"normalizer", "--normalizer", &TrainConfig::normalizer, 0, 0, false, false, true},
        {"dropout", "--dropout", &TrainConfig::dropout, 0, 1, false, true, true},
        {"word_tokens", "--tokens", &TrainConfig::word_tokens, 0, 0, false, false, true},  // --tokens words|chars
        {"lowercase", "--lowercase", &TrainConfig::lowercase, 0, 0, false, false, true},
        {"split_punctuation", "--split-punctuation", &TrainConfig::split_punctuation, 0, 0, false, false, true},
        {"mask_prob", "--mask-prob", &TrainConfig::mask_prob, 0, 1, true},
        {"eval_every", "--eval-every", &TrainConfig::eval_every, 1, double(nn::kMaxTrainingSteps)},
        {"val_batches", "", &TrainConfig::val_batches, 1, 1'000'000},
    };
    return table;
}

std::optional<std::int64_t> parse_int64(std::string_view t) {
    std::int64_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;
    return v;
}

std::optional<std::uint64_t> parse_uint64(std::string_view t) {
    std::uint64_t v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;
    return v;
}

std::string format_real(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);  // no precision: the shortest round trip
    return std::string(buf, r.ptr);
}

std::string setting_text(const TrainConfig& c, const RunSetting& s) {
    return std::visit(
        [&](auto field) -> std::string {
            const auto& v = c.*field;
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, bool>) return v ? "true" : "false";
            else if constexpr (std::is_same_v<V, nn::PositionScheme>) return nn::position_scheme_name(v);
            else if constexpr (std::is_same_v<V, nn::Normalizer>) return nn::normalizer_flag(v);
            else if constexpr (std::is_same_v<V, double>) return format_real(v);
            else return std::to_string(v);
        },
        s.field);
}

void set_setting(TrainConfig& c, const RunSetting& s, const std::string& text, const std::string& who) {
    const auto bad = [&] { return ValueError(who + " needs " + accepts(s) + ", got '" + text + "'"); };
    std::visit(
        [&](auto field) {
            auto& v = c.*field;
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, bool>) {
                if (text != "true" && text != "false") throw bad();
                v = text == "true";
            } else if constexpr (std::is_same_v<V, nn::PositionScheme>) {
                const auto p = nn::parse_position_scheme(text);
                if (!p) throw bad();
                v = *p;
            } else if constexpr (std::is_same_v<V, nn::Normalizer>) {
                const auto n = nn::parse_transformer_normalizer(text);
                if (!n) throw bad();
                v = *n;
            } else if constexpr (std::is_same_v<V, std::uint64_t>) {
                const auto x = parse_uint64(text);
                if (!x) throw bad();
                v = *x;
            } else if constexpr (std::is_same_v<V, double>) {
                const auto x = parse_real(text);
                if (!x || !in_range(s, *x)) throw bad();
                v = *x;
            } else {
                const auto n = parse_int64(text);
                if (!n || !in_range(s, double(*n))) throw bad();
                v = *n;
            }
        },
        s.field);
}

void check_setting(const TrainConfig& c, const RunSetting& s, const std::string& who) {
    const bool ok = std::visit(
        [&](auto field) {
            const auto& v = c.*field;
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, bool> || std::is_same_v<V, std::uint64_t> || std::is_same_v<V, nn::PositionScheme>) return true;
            else if constexpr (std::is_same_v<V, nn::Normalizer>) return nn::transformer_normalizer(v);
            else return std::isfinite(double(v)) && in_range(s, double(v));
        },
        s.field);
    if (!ok) throw ValueError((who.empty() ? std::string(s.key) : who) + " needs " + accepts(s) + ", got " + setting_text(c, s));
}

DataIdentity identify_corpus(const std::string& path, std::string_view text) {
    std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64-bit: offset basis, then xor and multiply per byte
    for (unsigned char b : text) h = (h ^ b) * 0x100000001b3ull;
    return {path, static_cast<std::int64_t>(text.size()), h};
}

static std::string hex16(std::uint64_t v) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(v));
    return hex;
}

std::string describe(const DataIdentity& data) {
    return "'" + data.corpus + "' (" + std::to_string(data.bytes) + " bytes, FNV-1a " + hex16(data.fnv1a64) + ")";
}

std::map<std::string, std::string> run_metadata(const TrainConfig& c, const DataIdentity& data) {
    std::map<std::string, std::string> meta;
    for (const RunSetting& s : run_settings()) meta[s.key] = setting_text(c, s);
    meta["corpus"] = data.corpus;
    meta["corpus_bytes"] = std::to_string(data.bytes);
    meta["corpus_fnv1a64"] = hex16(data.fnv1a64);
    return meta;
}

NamedTensor curve_tensor(const std::vector<TrainPoint>& curve) {
    std::vector<double> rows;
    for (const TrainPoint& p : curve) rows.insert(rows.end(), {double(p.step), p.loss, p.val_loss});
    return {"loss_curve", from_vector(rows, {static_cast<std::int64_t>(curve.size()), 3}, kFloat64)};
}

StoredRun stored_run(const nn::LoadedCheckpoint& ck, const std::string& path) {
    if (!ck.has_training_state)
        throw ValueError("resume: '" + path + "' holds no training state (it was saved for inference only)");
    StoredRun run;
    const auto& meta = ck.metadata;
    try {
        run.config.task = task_from_kind(ck.info.kind);
    } catch (const ValueError& e) {
        throw ValueError("resume: '" + path + "' metadata 'kind': " + e.what());
    }
    // AdamW's moments: without them the run would restart them at zero and drift from the
    // run it continues (the loader has checked that they are complete when present).
    if (ck.optimizer_state.empty())
        throw ValueError("resume: '" + path + "' holds no optimizer state (optim.exp_avg.*, optim.exp_avg_sq.*)");
    for (const RunSetting& s : run_settings())
        if (!s.since_v2 || meta.contains(s.key))
            set_setting(run.config, s, need(meta, s.key, path), "resume: '" + path + "' metadata '" + s.key + "'");
    if (!meta.contains("shards")) run.config.shards = 1;  // recorded before the split: whole batches
    run.config.corpus = need(meta, "corpus", path);
    const auto bytes = parse_int64(need(meta, "corpus_bytes", path));
    const std::string& hex = need(meta, "corpus_fnv1a64", path);
    std::uint64_t h = 0;
    const auto r = std::from_chars(hex.data(), hex.data() + hex.size(), h, 16);
    if (!bytes || *bytes < 0 || hex.size() != 16 || r.ec != std::errc() || r.ptr != hex.data() + hex.size())
        throw ValueError("resume: '" + path + "': corpus_bytes '" + meta.at("corpus_bytes") + "' / corpus_fnv1a64 '" + hex +
                         "' are not a byte count and 16 hex digits");
    run.data = {run.config.corpus, *bytes, h};

    // The model's own settings are recorded twice (model config and run): they must agree.
    const nn::TransformerConfig& m = ck.model->config();
    const std::pair<const char*, std::pair<std::int64_t, std::int64_t>> pairs[] = {
        {"d_model", {m.d_model, run.config.d_model}}, {"n_heads", {m.n_heads, run.config.n_heads}},
        {"n_layers", {m.n_layers, run.config.n_layers}}, {"context", {m.context, run.config.context}},
        {"window", {m.window, run.config.window}},     {"stride", {m.stride, run.config.stride}},
        {"scaled", {m.scaled, run.config.scaled}}};
    for (const auto& [key, v] : pairs)
        if (v.first != v.second)
            throw ValueError("resume: '" + path + "': the model has " + key + " " + std::to_string(v.first) +
                             " but its run records " + std::to_string(v.second));

    if (m.dropout != run.config.dropout)
        throw ValueError("resume: '" + path + "': the model has dropout " + format_real(m.dropout) + " but its run records " +
                         format_real(run.config.dropout));
    run.step = ck.step;
    if (run.step > run.config.steps)
        throw ValueError("resume: '" + path + "' is at step " + std::to_string(run.step) + ", past its run's total_steps " +
                         std::to_string(run.config.steps));
    auto it = ck.training_tensors.find("loss_curve");
    if (it == ck.training_tensors.end()) throw ValueError("resume: '" + path + "' holds no loss_curve");
    const Tensor& t = it->second;
    if (t.dtype() != kFloat64 || t.shape() != Shape{run.step, 3})
        throw ValueError("resume: '" + path + "': loss_curve is " + dtype_name(t.dtype()) + " " + t.shape().str() +
                         ", expected float64 [" + std::to_string(run.step) + ", 3] (one row per step done)");
    const std::vector<double> v = t.to_vector<double>();
    for (std::int64_t i = 0; i < run.step; ++i) {
        const double* row = v.data() + 3 * i;
        if (row[0] != double(i + 1))
            throw ValueError("resume: '" + path + "': loss_curve row " + std::to_string(i) + " is step " + format_real(row[0]) +
                             ", expected " + std::to_string(i + 1));
        // The loss of every step done is finite (the trainer stops before saving a diverged
        // run); the validation loss too, or NaN on the steps it was not measured.
        if (!std::isfinite(row[1]) || std::isinf(row[2]))
            throw ValueError("resume: '" + path + "': loss_curve row " + std::to_string(i) + " (step " + std::to_string(i + 1) +
                             ") has loss " + format_real(row[1]) + ", val_loss " + format_real(row[2]) + "; a run's losses are finite");
        run.curve.push_back({i + 1, row[1], row[2]});
    }
    return run;
}

std::vector<Difference> differences(const TrainConfig& stored, const TrainConfig& requested) {
    std::vector<Difference> out;
    if (stored.task != requested.task) {
        const auto name = [](Task t) { return std::string(*info(t).cli ? info(t).cli : "char (--corpus)"); };
        out.push_back({"task", "--model", name(stored.task), name(requested.task)});
    }
    for (const RunSetting& s : run_settings()) {
        if (std::string_view(s.key) == "total_steps") continue;
        const std::string a = setting_text(stored, s), b = setting_text(requested, s);
        if (a != b) out.push_back({s.key, s.flag, a, b});
    }
    return out;
}

data::WordRules word_rules(const TrainConfig& c) { return {c.lowercase, c.split_punctuation}; }

data::WordRules word_rules(const nn::LoadedCheckpoint& ck, const std::string& path) {
    TrainConfig c;
    for (const RunSetting& s : run_settings())
        if (std::holds_alternative<bool TrainConfig::*>(s.field) && ck.metadata.contains(s.key))
            set_setting(c, s, ck.metadata.at(s.key), "'" + path + "' metadata '" + s.key + "'");
    return word_rules(c);
}

std::string token_counts_json(const std::vector<std::int64_t>& counts) {
    Json a = Json::array();
    for (std::int64_t n : counts) a.push_back(Json(n));
    return to_json(a);
}

std::optional<std::vector<std::int64_t>> token_counts(const nn::LoadedCheckpoint& ck, const std::string& path) {
    const auto it = ck.metadata.find("token_counts");
    if (it == ck.metadata.end()) return std::nullopt;
    const Json a = parse_json(it->second, "'" + path + "' metadata 'token_counts'");
    const std::string bad = "'" + path + "' metadata 'token_counts' is not one count >= 0 for each of the " +
                            std::to_string(ck.info.vocab.size()) + " tokens of its vocabulary";
    if (!a.is_array() || a.size() != ck.info.vocab.size()) throw ValueError(bad);
    std::vector<std::int64_t> counts;
    for (const Json& n : a.as_array()) {
        if (!n.is_integer() || n.as_int64() < 0) throw ValueError(bad);
        counts.push_back(n.as_int64());
    }
    return counts;
}

std::string curve_csv(const std::vector<TrainPoint>& curve) {
    std::string csv = "step,loss,val_loss\n";
    char row[96];
    for (const TrainPoint& p : curve) {
        std::snprintf(row, sizeof row, "%lld,%.6f,", static_cast<long long>(p.step), p.loss);
        csv += row;
        if (!std::isnan(p.val_loss)) csv += std::to_string(p.val_loss);
        csv += "\n";
    }
    return csv;
}

}  // namespace attnlab::lab
