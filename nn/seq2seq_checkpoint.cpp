// seq2seq_checkpoint.cpp — see seq2seq_checkpoint.hpp.
#include "nn/seq2seq_checkpoint.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "autograd/node.hpp"
#include "nn/checkpoint.hpp"
#include "io/safetensors.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

namespace {
constexpr ScoreKind kKinds[] = {ScoreKind::dot, ScoreKind::scaled_dot, ScoreKind::additive, ScoreKind::multiplicative};
const std::set<std::string> kOwnKeys{"format", "format_version", "vocab", "embed", "hidden", "attn",
                                     "attention", "positions", "scoring", "normalizer"};
}  // namespace

std::string score_kind_flag(ScoreKind kind) { return kind == ScoreKind::scaled_dot ? "scaled_dot" : score_kind_name(kind); }

bool parse_score_kind(const std::string& s, ScoreKind& out) {
    for (ScoreKind k : kKinds)
        if (score_kind_flag(k) == s) return out = k, true;
    return false;
}

void check_seq2seq_limits(const Seq2SeqConfig& c, const std::string& who) {
    auto within = [&](const char* name, std::int64_t v, std::int64_t lo, std::int64_t hi) {
        if (v < lo || v > hi)
            throw ValueError(who + ": " + name + " is " + std::to_string(v) + ", outside [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
    };
    within("vocab", c.vocab, 1, Seq2SeqLimits::max_vocab);
    within("embed", c.embed, 1, Seq2SeqLimits::max_width);
    within("hidden", c.hidden, 2, Seq2SeqLimits::max_width);
    within("attn", c.attn, 1, Seq2SeqLimits::max_width);
    if (c.hidden % 2) throw ValueError(who + ": hidden is " + std::to_string(c.hidden) + ", not even (two encoder directions)");
    if (c.normalizer.kind == Normalizer::Kind::topk) within("top-k", c.normalizer.k, 1, Seq2SeqLimits::max_width);
}

std::vector<ParameterSpec> seq2seq_parameter_specs(const Seq2SeqConfig& c) {
    const std::int64_t half = c.hidden / 2;
    std::vector<ParameterSpec> specs{{"src_emb.weight", Shape{c.vocab, c.embed}}, {"tgt_emb.weight", Shape{c.vocab, c.embed}}};
    auto gru = [&](const std::string& name, std::int64_t in, std::int64_t h) {  // GRUCell's four, gate rows r, z, n
        specs.push_back({name + ".weight_ih", Shape{3 * h, in}});
        specs.push_back({name + ".weight_hh", Shape{3 * h, h}});
        specs.push_back({name + ".bias_ih", Shape{3 * h}});
        specs.push_back({name + ".bias_hh", Shape{3 * h}});
    };
    gru("encoder_fwd.cell", c.embed, half);
    gru("encoder_bwd.cell", c.embed, half);
    gru("decoder", c.embed + c.hidden, c.hidden);
    if (c.attention && c.scoring == ScoreKind::additive)
        specs.insert(specs.end(), {{"scoring.w_s.weight", Shape{c.attn, c.hidden}}, {"scoring.w_h.weight", Shape{c.attn, c.hidden}},
                                   {"scoring.w_h.bias", Shape{c.attn}}, {"scoring.v.weight", Shape{1, c.attn}}});
    if (c.attention && c.scoring == ScoreKind::multiplicative) specs.push_back({"scoring.w.weight", Shape{c.hidden, c.hidden}});
    specs.push_back({"out.weight", Shape{c.vocab, 2 * c.hidden}});
    specs.push_back({"out.bias", Shape{c.vocab}});
    return specs;
}

void save_seq2seq(const std::string& path, const Seq2Seq& model, const std::map<std::string, std::string>& extra,
                  const TrainingState* training) {
    const Seq2SeqConfig& c = model.config();
    std::map<std::string, std::string> meta = extra;
    meta["format"] = kSeq2SeqFormat;
    meta["format_version"] = std::to_string(kSeq2SeqVersion);
    meta["vocab"] = std::to_string(c.vocab);
    meta["embed"] = std::to_string(c.embed);
    meta["hidden"] = std::to_string(c.hidden);
    meta["attn"] = std::to_string(c.attn);
    meta["attention"] = c.attention ? "true" : "false";
    meta["positions"] = c.positions ? "true" : "false";
    meta["scoring"] = score_kind_flag(c.scoring);
    meta["normalizer"] = normalizer_flag(c.normalizer);
    std::vector<NamedTensor> tensors;
    for (const auto& p : model.named_parameters()) tensors.push_back({p.name, p.tensor.detach()});
    if (training) {
        meta["step"] = std::to_string(training->step);
        for (std::size_t i = 0; i < 4; ++i) {
            char hex[24];
            std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(training->data_rng[i]));
            meta["data_rng_" + std::to_string(i)] = hex;
        }
        if (training->optimizer)
            for (const auto& s : training->optimizer->state()) tensors.push_back({"optim." + s.name, s.tensor.detach()});
    }
    save_safetensors(path, tensors, meta);
}

LoadedSeq2Seq load_seq2seq(const std::string& path) {
    const std::string who = "load_seq2seq: '" + path + "'";
    // 1. The container.
    const SafetensorsFile file = load_safetensors(path);
    const auto& meta = file.metadata;
    auto need = [&](const std::string& key) -> const std::string& {
        auto it = meta.find(key);
        if (it == meta.end()) throw IOError(who + " has no '" + key + "' in its metadata (not a seq2seq checkpoint?)");
        return it->second;
    };
    auto need_int = [&](const std::string& key) {
        const std::string& s = need(key);
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
            throw IOError(who + ": metadata '" + key + "' is '" + s + "', not a whole number below 10^9");
        return static_cast<std::int64_t>(std::stoll(s));
    };
    auto need_bool = [&](const std::string& key) {
        const std::string& s = need(key);
        if (s != "true" && s != "false") throw IOError(who + ": metadata '" + key + "' is '" + s + "', not true or false");
        return s == "true";
    };
    if (need("format") != kSeq2SeqFormat)
        throw IOError(who + " is not a seq2seq checkpoint (format '" + meta.at("format") + "'; `seq2seq train` writes them)");
    const std::int64_t version = need_int("format_version");
    if (version < kOldestSeq2SeqVersion || version > kSeq2SeqVersion)
        throw IOError(who + " has format_version " + meta.at("format_version") + "; this build reads versions " +
                      std::to_string(kOldestSeq2SeqVersion) + " to " + std::to_string(kSeq2SeqVersion));
    // 2. The configuration, bounded before anything is built from it.
    Seq2SeqConfig c;
    c.vocab = need_int("vocab"), c.embed = need_int("embed"), c.hidden = need_int("hidden"), c.attn = need_int("attn");
    c.attention = need_bool("attention"), c.positions = need_bool("positions");
    if (!parse_score_kind(need("scoring"), c.scoring))
        throw IOError(who + ": scoring is '" + meta.at("scoring") + "', not dot, scaled_dot, additive or multiplicative");
    if (!parse_normalizer(need("normalizer"), c.normalizer))
        throw IOError(who + ": normalizer is '" + meta.at("normalizer") + "', not softmax, sparsemax or topk:K");
    try {
        check_seq2seq_limits(c, who);
    } catch (const ValueError& e) {
        throw IOError(e.what());
    }
    // 3 and 4. Exactly the tensors the configuration implies, float32, finite.
    const std::vector<ParameterSpec> specs = seq2seq_parameter_specs(c);
    std::map<std::string, Shape> expected;
    for (const ParameterSpec& s : specs) {
        const Tensor& t = file.at(s.name);  // IOError naming the missing tensor
        if (t.dtype() != kFloat32 || t.shape() != s.shape)
            throw IOError(who + ": tensor '" + s.name + "' is " + dtype_name(t.dtype()) + " " + t.shape().str() +
                          ", the configuration (hidden " + std::to_string(c.hidden) + ", embed " + std::to_string(c.embed) +
                          ", vocab " + std::to_string(c.vocab) + ") needs float32 " + s.shape.str());
        if (const std::string bad = first_non_finite(t); !bad.empty())
            throw IOError(who + ": tensor '" + s.name + "' holds " + bad);
        expected.emplace(s.name, s.shape);
    }
    LoadedSeq2Seq out;
    std::map<std::string, std::size_t> buffers;  // optimizer buffer kind -> parameters it covers
    for (const NamedTensor& t : file.tensors) {
        if (version >= 2 && t.name.starts_with("optim.")) {  // optim.<buffer>.<parameter>
            const std::size_t dot = t.name.find('.', 6);
            auto it = dot == std::string::npos ? expected.end() : expected.find(t.name.substr(dot + 1));
            if (it == expected.end()) throw IOError(who + ": optimizer state '" + t.name + "' belongs to no parameter");
            const std::string buffer = t.name.substr(6, dot - 6);
            if (std::find(kOptimizerBuffers.begin(), kOptimizerBuffers.end(), buffer) == kOptimizerBuffers.end())
                throw IOError(who + ": optimizer state '" + t.name + "' is no Adam buffer (" + kOptimizerBuffers[0] + " or " +
                              kOptimizerBuffers[1] + ")");
            if (t.tensor.dtype() != kFloat32 || t.tensor.shape() != it->second)
                throw IOError(who + ": optimizer state '" + t.name + "' is " + dtype_name(t.tensor.dtype()) + " " +
                              t.tensor.shape().str() + ", its parameter needs float32 " + it->second.str());
            if (const std::string bad = first_non_finite(t.tensor); !bad.empty())
                throw IOError(who + ": optimizer state '" + t.name + "' holds " + bad);
            ++buffers[t.name.substr(6, dot - 6)];
            out.optimizer_state.push_back({t.name.substr(6), t.tensor});
        } else if (!expected.contains(t.name)) {
            throw IOError(who + ": tensor '" + t.name + "' is not a parameter of this model (" + score_kind_flag(c.scoring) +
                          (c.attention ? " attention" : ", no attention") + ")");
        }
    }
    // All of the state or none: a missing buffer would restart its moments at zero on resume.
    for (const std::string kind : kOptimizerBuffers)
        if (!buffers.empty() && !buffers.contains(kind))
            throw IOError(who + ": optimizer state '" + kind + "' is missing (the file has " + buffers.begin()->first + ")");
    for (const auto& [kind, n] : buffers)
        if (n != expected.size())
            throw IOError(who + ": optimizer state '" + kind + "' covers " + std::to_string(n) + " of the " +
                          std::to_string(expected.size()) + " parameters");
    out.has_training_state = meta.contains("step");
    if (!out.has_training_state && !buffers.empty())
        throw IOError(who + " has optimizer state but no 'step' in its metadata");
    if (out.has_training_state) {
        if (version < 2) throw IOError(who + " has a 'step' but format_version 1 has no training state");
        if (buffers.empty()) throw IOError(who + " has a 'step' but no optimizer state (optim.exp_avg.*, optim.exp_avg_sq.*)");
        out.step = need_int("step");  // a whole number below 10^9
        if (out.step < 1 || out.step > kMaxTrainingSteps)
            throw IOError(who + ": step " + std::to_string(out.step) + " is outside [1, " + std::to_string(kMaxTrainingSteps) + "]");
        for (std::size_t i = 0; i < 4; ++i) {
            const std::string& h = need("data_rng_" + std::to_string(i));
            if (h.size() != 16 || h.find_first_not_of("0123456789abcdef") != std::string::npos)
                throw IOError(who + ": data_rng_" + std::to_string(i) + " is '" + h + "', not 16 hex digits");
            out.data_rng[i] = std::stoull(h, nullptr, 16);
        }
    }

    // Only now: the model, no larger than the file.
    Generator unused(0);  // every parameter is overwritten below
    out.model = std::make_unique<Seq2Seq>(c, unused);
    NoGradGuard no_grad;
    for (auto& p : out.model->named_parameters()) copy_(p.tensor, file.at(p.name));
    for (const auto& [k, v] : meta)
        if (!kOwnKeys.contains(k) && k != "step" && !k.starts_with("data_rng_")) out.extra[k] = v;
    return out;
}

}  // namespace attnlab::nn
