// transformer_spec.cpp — see transformer_spec.hpp.
#include "nn/transformer_spec.hpp"

#include "tensor/error.hpp"

namespace attnlab::nn {

namespace {

void check_range(const std::string& who, const char* name, std::int64_t v, std::int64_t lo, std::int64_t hi) {
    if (v < lo || v > hi)
        throw ValueError(who + ": " + name + " " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "] (the limits attnlab trains and loads, nn/transformer_spec.hpp)");
}

}  // namespace

bool transformer_normalizer(const Normalizer& n) {
    return n.kind == Normalizer::Kind::softmax || n.kind == Normalizer::Kind::sparsemax;
}

std::optional<Normalizer> parse_transformer_normalizer(std::string_view text) {
    for (const Normalizer& n : {Normalizer::softmax(), Normalizer::sparsemax()})
        if (text == n.name()) return n;
    return std::nullopt;
}

void check_limits(const TransformerConfig& c, const std::string& who) {
    using L = ModelLimits;
    check_range(who, "vocab_size", c.vocab_size, 1, L::max_vocab);
    check_range(who, "d_model", c.d_model, 1, L::max_d_model);
    check_range(who, "n_heads", c.n_heads, 1, L::max_heads);
    check_range(who, "n_layers", c.n_layers, 1, L::max_layers);
    check_range(who, "context", c.context, 1, L::max_context);
    check_range(who, "window", c.window, 0, L::max_context);
    check_range(who, "stride", c.stride, 0, L::max_context);
    if (!(c.dropout >= 0 && c.dropout < 1))
        throw ValueError(who + ": dropout " + std::to_string(c.dropout) + " is outside [0, 1)");
    if (c.d_model % c.n_heads != 0)
        throw ValueError(who + ": d_model " + std::to_string(c.d_model) + " is not divisible by n_heads " +
                         std::to_string(c.n_heads));
    if (c.positions == PositionScheme::sinusoidal && c.d_model % 2 != 0)
        throw ValueError(who + ": sinusoidal positions need an even d_model (sin and cos pairs), got d_model " +
                         std::to_string(c.d_model));
    if (!transformer_normalizer(c.normalizer))
        throw ValueError(who + ": the attention normalizer must be softmax or sparsemax, got " + normalizer_flag(c.normalizer));
    // Each factor is bounded above, so this count cannot overflow int64 (< 2^36).
    const std::int64_t n = parameter_count(c);
    if (n > L::max_parameters)
        throw ValueError(who + ": d_model " + std::to_string(c.d_model) + ", " + std::to_string(c.n_layers) +
                         " layers, context " + std::to_string(c.context) + " and vocab_size " + std::to_string(c.vocab_size) +
                         " make " + std::to_string(n) + " parameters, more than the limit of " +
                         std::to_string(L::max_parameters));
}

std::vector<ParameterSpec> parameter_specs(const TransformerConfig& c) {
    const std::int64_t d = c.d_model;
    std::vector<ParameterSpec> out{{"tok_emb.weight", Shape{c.vocab_size, d}}};
    if (c.positions == PositionScheme::learned) out.push_back({"pos_emb.weight", Shape{c.context, d}});  // the others have none
    auto linear = [&](const std::string& name, std::int64_t in, std::int64_t outf, bool bias) {
        out.push_back({name + ".weight", Shape{outf, in}});  // [out, in], as PyTorch
        if (bias) out.push_back({name + ".bias", Shape{outf}});
    };
    auto layer_norm = [&](const std::string& name) {
        out.push_back({name + ".weight", Shape{d}});
        out.push_back({name + ".bias", Shape{d}});
    };
    for (std::int64_t i = 0; i < c.n_layers; ++i) {  // Block: ln1, attn (w_q, w_k, w_v, w_o), ln2, mlp (fc1, fc2)
        const std::string b = "blocks." + std::to_string(i) + ".";
        layer_norm(b + "ln1");
        for (const char* w : {"w_q", "w_k", "w_v"}) linear(b + "attn." + w, d, d, !c.qkv_only);
        if (!c.qkv_only) linear(b + "attn.w_o", d, d, true);
        layer_norm(b + "ln2");
        linear(b + "mlp.fc1", d, 4 * d, true);
        linear(b + "mlp.fc2", 4 * d, d, true);
    }
    layer_norm("ln_f");
    linear("head", d, c.vocab_size, false);
    return out;
}

std::int64_t parameter_count(const TransformerConfig& c) {
    const std::int64_t d = c.d_model;
    // attention 4(d² + d) (qkv_only: 3d²), MLP 8d² + 5d, two LayerNorms 4d
    const std::int64_t block = (c.qkv_only ? 3 * d * d : 4 * d * d + 4 * d) + 8 * d * d + 9 * d;
    const std::int64_t positions = c.positions == PositionScheme::learned ? c.context * d : 0;
    return 2 * c.vocab_size * d + positions + c.n_layers * block + 2 * d;  // embeddings + head, blocks, ln_f
}

}  // namespace attnlab::nn
