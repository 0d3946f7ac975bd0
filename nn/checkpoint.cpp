// checkpoint.cpp — see checkpoint.hpp.
#include "nn/checkpoint.hpp"

#include <cstdio>

#include "autograd/node.hpp"
#include "nn/safetensors.hpp"
#include "tensor/json.hpp"
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
    }
    save_safetensors(path, tensors, meta);
}

static const std::string& need(const std::map<std::string, std::string>& meta, const std::string& key,
                               const std::string& path) {
    auto it = meta.find(key);
    if (it == meta.end()) throw IOError("load_checkpoint: '" + path + "' has no '" + key + "' in its metadata");
    return it->second;
}

static std::int64_t need_int(const std::map<std::string, std::string>& meta, const std::string& key,
                             const std::string& path) {
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

LoadedCheckpoint load_checkpoint(const std::string& path) {
    SafetensorsFile file = load_safetensors(path);
    const auto& meta = file.metadata;
    if (need(meta, "format", path) != kCheckpointFormat)
        throw IOError("load_checkpoint: '" + path + "' is not an attnlab checkpoint (format '" + meta.at("format") + "')");
    if (need_int(meta, "format_version", path) != kCheckpointVersion)
        throw IOError("load_checkpoint: '" + path + "' has format_version " + meta.at("format_version") +
                      "; this build reads version " + std::to_string(kCheckpointVersion));

    TransformerConfig c;
    c.vocab_size = need_int(meta, "vocab_size", path);
    c.d_model = need_int(meta, "d_model", path);
    c.n_heads = need_int(meta, "n_heads", path);
    c.n_layers = need_int(meta, "n_layers", path);
    c.context = need_int(meta, "context", path);
    c.causal = need(meta, "causal", path) == "true";
    c.window = need_int(meta, "window", path);
    c.stride = need_int(meta, "stride", path);
    if (c.n_layers > 64 || c.d_model > 4096 || c.vocab_size > 1000000 || c.context > 65536)
        throw IOError("load_checkpoint: '" + path + "': implausible hyper-parameters (n_layers " +
                      std::to_string(c.n_layers) + ", d_model " + std::to_string(c.d_model) + ")");

    LoadedCheckpoint out;
    out.metadata = meta;
    out.info.kind = need(meta, "kind", path);
    const Json vocab = parse_json(need(meta, "vocab", path), path + " metadata 'vocab'");
    if (!vocab.is_array() || static_cast<std::int64_t>(vocab.size()) != c.vocab_size)
        throw IOError("load_checkpoint: '" + path + "': vocab is not an array of " + std::to_string(c.vocab_size) + " strings");
    for (const Json& w : vocab.as_array()) {
        if (!w.is_string()) throw IOError("load_checkpoint: '" + path + "': vocab holds a non-string");
        out.info.vocab.push_back(w.as_string());
    }
    try {
        out.model = std::make_unique<Transformer>(c);
    } catch (const Error& e) {
        throw IOError("load_checkpoint: '" + path + "': " + e.what());
    }

    NoGradGuard no_grad;
    for (auto& p : out.model->named_parameters()) {
        const Tensor& t = file.at(p.name);  // IOError naming the missing tensor
        if (t.shape() != p.tensor.shape() || t.dtype() != p.tensor.dtype())
            throw IOError("load_checkpoint: '" + path + "': tensor '" + p.name + "' is " + dtype_name(t.dtype()) + " " +
                          t.shape().str() + ", the model needs " + dtype_name(p.tensor.dtype()) + " " + p.tensor.shape().str());
        copy_(p.tensor, t);
    }
    for (const auto& t : file.tensors)
        if (t.name.starts_with("optim.")) out.optimizer_state.push_back({t.name.substr(6), t.tensor});

    if (meta.contains("step")) {
        out.has_training_state = true;
        out.step = need_int(meta, "step", path);
        for (int i = 0; i < 4; ++i) {
            const std::string& h = need(meta, "data_rng_" + std::to_string(i), path);
            if (h.size() != 16 || h.find_first_not_of("0123456789abcdef") != std::string::npos)
                throw IOError("load_checkpoint: '" + path + "': data_rng_" + std::to_string(i) + " is not 16 hex digits");
            out.data_rng[static_cast<std::size_t>(i)] = std::stoull(h, nullptr, 16);
        }
    }
    for (const auto& [k, v] : meta)
        if (!k.starts_with("data_rng_")) out.info.extra[k] = v;
    return out;
}

}  // namespace attnlab::nn
