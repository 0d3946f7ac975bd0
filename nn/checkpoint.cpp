// checkpoint.cpp — see checkpoint.hpp.
#include "nn/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "autograd/node.hpp"
#include "nn/transformer_spec.hpp"
#include "io/json.hpp"
#include "io/number.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

void save_checkpoint(const std::string& path, const Transformer& model, const CheckpointInfo& info,
                     const TrainingState* training) {
    const TransformerConfig& c = model.config();
    std::map<std::string, std::string> meta = info.extra;
    meta["format"] = kCheckpointFormat;
    meta["format_version"] = std::to_string(kCheckpointVersion);
    meta["kind"] = info.kind;
    meta["vocab_size"] = std::to_string(c.vocab_size);
    meta["d_model"] = std::to_string(c.d_model);
    meta["n_heads"] = std::to_string(c.n_heads);
    meta["n_layers"] = std::to_string(c.n_layers);
    meta["context"] = std::to_string(c.context);
    meta["causal"] = c.causal ? "true" : "false";
    meta["window"] = std::to_string(c.window);
    meta["stride"] = std::to_string(c.stride);
    meta["scaled"] = c.scaled ? "true" : "false";
    meta["qkv_only"] = c.qkv_only ? "true" : "false";
    meta["attention_only"] = c.attention_only ? "true" : "false";
    meta["positions"] = position_scheme_name(c.positions);
    meta["normalizer"] = normalizer_flag(c.normalizer);
    char dropout[32];
    std::snprintf(dropout, sizeof dropout, "%.17g", c.dropout);  // reads back to the same double
    meta["dropout"] = dropout;
    Json vocab = Json::array();
    for (const auto& w : info.vocab) vocab.push_back(Json(w));
    meta["vocab"] = to_json(vocab);

    std::vector<NamedTensor> tensors;
    for (const auto& p : model.named_parameters()) tensors.push_back({p.name, p.tensor.detach()});
    if (training) {
        meta["step"] = std::to_string(training->step);
        for (int i = 0; i < 4; ++i) {
            char hex[24];
            std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(training->data_rng[static_cast<std::size_t>(i)]));
            meta["data_rng_" + std::to_string(i)] = hex;
        }
        if (training->optimizer)
            for (const auto& s : training->optimizer->state()) tensors.push_back({"optim." + s.name, s.tensor.detach()});
        for (const auto& t : training->tensors) tensors.push_back({"train." + t.name, t.tensor.detach()});
    }
    save_safetensors(path, tensors, meta);
}

namespace {

const std::string& need(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& path) {
    auto it = meta.find(key);
    if (it == meta.end()) throw IOError("load_checkpoint: '" + path + "' has no '" + key + "' in its metadata");
    return it->second;
}

std::int64_t need_int(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& path) {
    const std::string& s = need(meta, key, path);
    std::size_t used = 0;
    std::int64_t v = 0;
    try {
        v = std::stoll(s, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != s.size() || s.empty())
        throw IOError("load_checkpoint: '" + path + "': metadata '" + key + "' is '" + s + "', not an integer");
    return v;
}

// "true" or "false", nothing else: a misspelt "True" must not quietly load a bidirectional model.
bool need_bool(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& path) {
    const std::string& v = need(meta, key, path);
    if (v != "true" && v != "false")
        throw IOError("load_checkpoint: '" + path + "': metadata '" + key + "' is '" + v + "', not true or false");
    return v == "true";
}

// Step 3 of the checks: every tensor in the file is one the configuration implies, with its shape.
void check_tensors(const SafetensorsFile& file, const TransformerConfig& c, const std::string& path) {
    std::map<std::string, Shape> expected;
    for (const ParameterSpec& s : parameter_specs(c)) expected.emplace(s.name, s.shape);
    auto check = [&](const std::string& name, const Tensor& t, const Shape& shape) {
        if (t.dtype() != kFloat32 || t.shape() != shape)
            throw IOError("load_checkpoint: '" + path + "': tensor '" + name + "' is " + dtype_name(t.dtype()) + " " +
                          t.shape().str() + ", the configuration (d_model " + std::to_string(c.d_model) + ", " +
                          std::to_string(c.n_layers) + " layers, context " + std::to_string(c.context) + ", vocab " +
                          std::to_string(c.vocab_size) + ") needs float32 " + shape.str());
        if (const std::string bad = first_non_finite(t); !bad.empty())
            throw IOError("load_checkpoint: '" + path + "': tensor '" + name + "' holds " + bad);
    };
    std::set<std::string> seen, optim_seen;
    for (const NamedTensor& t : file.tensors) {
        if (t.name.starts_with("train.")) continue;  // the trainer's; it checks them (training/run_config.cpp)
        if (t.name.starts_with("optim.")) {  // optim.<buffer>.<parameter>
            const std::size_t dot = t.name.find('.', 6);
            const std::string buffer = t.name.substr(6, dot == std::string::npos ? std::string::npos : dot - 6);
            if (std::find(kOptimizerBuffers.begin(), kOptimizerBuffers.end(), buffer) == kOptimizerBuffers.end())
                throw IOError("load_checkpoint: '" + path + "': optimizer state '" + t.name + "' is no AdamW buffer (" +
                              kOptimizerBuffers[0] + " or " + kOptimizerBuffers[1] + ")");
            auto it = dot == std::string::npos ? expected.end() : expected.find(t.name.substr(dot + 1));
            if (it == expected.end())
                throw IOError("load_checkpoint: '" + path + "': optimizer state '" + t.name + "' belongs to no parameter");
            check(t.name, t.tensor, it->second);
            optim_seen.insert(t.name);
            continue;
        }
        auto it = expected.find(t.name);
        if (it == expected.end())
            throw IOError("load_checkpoint: '" + path + "': tensor '" + t.name + "' is not a parameter of a model with " +
                          std::to_string(c.n_layers) + " layers");
        check(t.name, t.tensor, it->second);
        seen.insert(t.name);
    }
    for (const auto& [name, shape] : expected)
        if (!seen.contains(name)) file.at(name);  // IOError naming the missing tensor and what is there
    // The optimizer's state is all there or absent (inference only): a part of it would
    // restart the missing moments at zero on resume, which no error would ever reveal.
    if (optim_seen.empty()) return;
    for (const std::string buffer : kOptimizerBuffers)
        for (const auto& [name, shape] : expected)
            if (!optim_seen.contains("optim." + buffer + "." + name))
                throw IOError("load_checkpoint: '" + path + "': optimizer state 'optim." + buffer + "." + name + "' is missing (" +
                              std::to_string(optim_seen.size()) + " of " + std::to_string(2 * expected.size()) +
                              " buffers are there): the file is truncated or was edited");
}

}  // namespace

std::string first_non_finite(const Tensor& t) {
    const Tensor c = t.contiguous();
    const float* p = c.const_data_ptr<float>();
    for (std::int64_t i = 0; i < c.numel(); ++i)
        if (!std::isfinite(p[i])) return std::string(std::isnan(p[i]) ? "nan" : p[i] > 0 ? "inf" : "-inf") + " at element " + std::to_string(i);
    return "";
}

LoadedCheckpoint load_checkpoint(const std::string& path) {
    // 1. The container.
    SafetensorsFile file = load_safetensors(path);
    const auto& meta = file.metadata;
    if (need(meta, "format", path) != kCheckpointFormat)
        throw IOError("load_checkpoint: '" + path + "' is not an attnlab checkpoint (format '" + meta.at("format") + "')");
    const std::int64_t version = need_int(meta, "format_version", path);
    if (version < kOldestCheckpointVersion || version > kCheckpointVersion)
        throw IOError("load_checkpoint: '" + path + "' has format_version " + meta.at("format_version") +
                      "; this build reads versions " + std::to_string(kOldestCheckpointVersion) + " to " +
                      std::to_string(kCheckpointVersion));

    // 2. The configuration, against the limits the trainer uses.
    TransformerConfig c;
    c.vocab_size = need_int(meta, "vocab_size", path);
    c.d_model = need_int(meta, "d_model", path);
    c.n_heads = need_int(meta, "n_heads", path);
    c.n_layers = need_int(meta, "n_layers", path);
    c.context = need_int(meta, "context", path);
    c.causal = need_bool(meta, "causal", path);
    c.window = need_int(meta, "window", path);
    c.stride = need_int(meta, "stride", path);
    // Written since scaled scores and bias-free heads could be trained; absent in older files.
    if (meta.contains("scaled")) c.scaled = need_bool(meta, "scaled", path);
    if (meta.contains("qkv_only")) c.qkv_only = need_bool(meta, "qkv_only", path);
    if (meta.contains("attention_only")) c.attention_only = need_bool(meta, "attention_only", path);
    // Written since the scheme and the normalizer could be chosen; absent: learned, softmax.
    if (meta.contains("positions")) {
        const std::optional<PositionScheme> p = parse_position_scheme(meta.at("positions"));
        if (!p)
            throw IOError("load_checkpoint: '" + path + "': metadata 'positions' is '" + meta.at("positions") +
                          "', not learned, sinusoidal or none");
        c.positions = *p;
    }
    if (meta.contains("normalizer")) {
        const std::optional<Normalizer> n = parse_transformer_normalizer(meta.at("normalizer"));
        if (!n)
            throw IOError("load_checkpoint: '" + path + "': metadata 'normalizer' is '" + meta.at("normalizer") +
                          "', not softmax or sparsemax");
        c.normalizer = *n;
    }
    if (meta.contains("dropout")) {  // checked against [0, 1) by check_limits below
        const std::string& v = meta.at("dropout");
        const std::optional<double> p = parse_real(v);
        if (!p) throw IOError("load_checkpoint: '" + path + "': dropout is '" + v + "', not a number");
        c.dropout = *p;
    }
    try {
        check_limits(c, "load_checkpoint: '" + path + "'");
    } catch (const ValueError& e) {
        throw IOError(e.what());
    }

    LoadedCheckpoint out;
    out.metadata = meta;
    out.info.kind = need(meta, "kind", path);
    const Json vocab = parse_json(need(meta, "vocab", path), path + " metadata 'vocab'");
    if (!vocab.is_array() || static_cast<std::int64_t>(vocab.size()) != c.vocab_size)
        throw IOError("load_checkpoint: '" + path + "': vocab is not an array of " + std::to_string(c.vocab_size) + " strings");
    std::map<std::string, std::size_t> first_at;  // token -> its id, to name both ids of a repeat
    for (const Json& w : vocab.as_array()) {
        if (!w.is_string()) throw IOError("load_checkpoint: '" + path + "': vocab holds a non-string");
        const auto [it, fresh] = first_at.emplace(w.as_string(), out.info.vocab.size());
        if (!fresh)
            throw IOError("load_checkpoint: '" + path + "': vocab repeats '" + w.as_string() + "' (ids " +
                          std::to_string(it->second) + " and " + std::to_string(out.info.vocab.size()) +
                          "): one text would have two ids");
        out.info.vocab.push_back(w.as_string());
    }

    // 3 and 4. The tensors and their values; the step.
    check_tensors(file, c, path);
    if (meta.contains("step")) {
        out.has_training_state = true;
        out.step = need_int(meta, "step", path);
        if (out.step < 0 || out.step > kMaxTrainingSteps)
            throw IOError("load_checkpoint: '" + path + "': step " + std::to_string(out.step) + " is outside [0, " +
                          std::to_string(kMaxTrainingSteps) + "]");
        for (int i = 0; i < 4; ++i) {
            const std::string& h = need(meta, "data_rng_" + std::to_string(i), path);
            if (h.size() != 16 || h.find_first_not_of("0123456789abcdef") != std::string::npos)
                throw IOError("load_checkpoint: '" + path + "': data_rng_" + std::to_string(i) + " is not 16 hex digits");
            out.data_rng[static_cast<std::size_t>(i)] = std::stoull(h, nullptr, 16);
        }
    }

    // Only now: the model, whose size the checks above bounded by the file's.
    out.model = std::make_unique<Transformer>(c);
    NoGradGuard no_grad;
    for (auto& p : out.model->named_parameters()) copy_(p.tensor, file.at(p.name));
    for (const auto& t : file.tensors) {
        if (t.name.starts_with("optim.")) out.optimizer_state.push_back({t.name.substr(6), t.tensor});
        if (t.name.starts_with("train.")) out.training_tensors.emplace(t.name.substr(6), t.tensor);
    }
    // extra: what the writer added, without the keys save_checkpoint writes itself (so that
    // saving a loaded checkpoint again, with or without training state, is consistent).
    static const std::set<std::string> own{"format", "format_version", "kind", "vocab_size", "d_model", "n_heads",
                                           "n_layers", "context", "causal", "window", "stride", "scaled", "qkv_only", "dropout",
                                           "positions", "normalizer", "vocab", "step"};
    for (const auto& [k, v] : meta)
        if (!own.contains(k) && !k.starts_with("data_rng_")) out.info.extra[k] = v;
    return out;
}

}  // namespace attnlab::nn
