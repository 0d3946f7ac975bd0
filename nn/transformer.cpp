// transformer.cpp — see transformer.hpp.
#include "nn/transformer.hpp"

#include "nn/transformer_spec.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

Block::Block(const TransformerConfig& c, Generator& gen)
    : ln1(c.d_model), attn(c.d_model, c.n_heads, 0, 0, gen, c.qkv_only), ln2(c.d_model), mlp(c.d_model, 4 * c.d_model, gen) {
    dropout = c.dropout, attention_only = c.attention_only;
    if (!c.scaled) attn.scale = 1.0;
    attn.normalizer = c.normalizer;
    attn.dropout = c.dropout;
    register_module("ln1", ln1);
    register_module("attn", attn);
    register_module("ln2", ln2);
    register_module("mlp", mlp);
}

Tensor Block::forward(const Tensor& x, const Mask& mask, KVCache* cache) {
    // Residual dropout (train mode): each branch's output, before it joins the stream.
    auto drop = [&](const Tensor& t) { return is_training() && dropout > 0 ? nn::dropout(t, dropout, *dropout_gen) : t; };
    // attn.forward_output runs the composed formula (nn/attention.cpp) in reference mode and
    // the fused kernel otherwise: MultiHeadAttention::attend's one dispatch point.
    Tensor h = x + drop(attn.forward_output(ln1.forward(x), mask, cache));  // tokens exchange information
    if (!attention_only) h = h + drop(mlp.forward(ln2.forward(h)));       // each token computes on its own
    // Activation patching (analyses/patching.hpp) reads or replaces the residual stream here.
    return output_hook ? output_hook(h) : h;
}

static const TransformerConfig& validated(const TransformerConfig& c) {
    if (c.vocab_size <= 0 || c.d_model <= 0 || c.n_layers <= 0 || c.context <= 0 || c.window < 0 || c.stride < 0 ||
        !(c.dropout >= 0 && c.dropout < 1))
        throw ValueError("Transformer: bad config: vocab_size=" + std::to_string(c.vocab_size) + " d_model=" +
                         std::to_string(c.d_model) + " n_layers=" + std::to_string(c.n_layers) + " context=" +
                         std::to_string(c.context) + " dropout=" + std::to_string(c.dropout));
    // The encoding pairs dimensions (sin, cos), one pair per frequency.
    if (c.positions == PositionScheme::sinusoidal && c.d_model % 2 != 0)
        throw ValueError("Transformer: sinusoidal positions need an even d_model (sin and cos pairs), got d_model=" +
                         std::to_string(c.d_model));
    if (!transformer_normalizer(c.normalizer))  // softmax or sparsemax (nn/transformer_spec.hpp says why)
        throw ValueError("Transformer: the attention normalizer must be softmax or sparsemax, got " + normalizer_flag(c.normalizer));
    return c;
}

// A learned table draws its weights right after tok_emb (as a member constructed there would):
// a learned model draws the same numbers in the same order whatever other schemes exist.
static std::optional<Embedding> position_table(const TransformerConfig& c, Generator& gen) {
    if (c.positions != PositionScheme::learned) return std::nullopt;
    return std::optional<Embedding>(std::in_place, c.context, c.d_model, gen);
}

Transformer::Transformer(const TransformerConfig& config, std::uint64_t seed) : Transformer(config, Generator(seed)) {}

Transformer::Transformer(const TransformerConfig& config, Generator&& gen)
    : tok_emb(validated(config).vocab_size, config.d_model, gen), pos_emb(position_table(config, gen)),
      ln_f(config.d_model), head(config.d_model, config.vocab_size, /*bias=*/false, gen), config_(config) {
    register_module("tok_emb", tok_emb);
    if (pos_emb) register_module("pos_emb", *pos_emb);
    if (config.positions == PositionScheme::sinusoidal) sinusoids_ = sinusoidal_positional_encoding(config.context, config.d_model);
    for (std::int64_t i = 0; i < config.n_layers; ++i) {
        blocks.push_back(std::make_unique<Block>(config, gen));
        register_module("blocks." + std::to_string(i), *blocks.back());
        blocks.back()->attn.set_trace(&trace_, static_cast<std::size_t>(i));
    }
    register_module("ln_f", ln_f);
    register_module("head", head);
    // GPT-2's initialisation (as nanoGPT): N(0, 0.02) for every matrix and embedding,
    // zero biases, LayerNorms at identity. PyTorch's per-layer defaults (N(0, 1)
    // embeddings) would start the residual stream far too loud for a 2-layer model.
    for (auto& p : named_parameters()) {
        const bool is_norm = p.name.find("ln") != std::string::npos;
        if (is_norm) continue;
        if (p.name.ends_with(".bias")) fill_(p.tensor.detach(), 0.0);
        else copy_(p.tensor.detach(), randn(p.tensor.shape(), kFloat32, gen) * 0.02);
    }
}

void Transformer::set_dropout_generator(Generator* gen) {
    for (auto& b : blocks) b->dropout_gen = b->attn.dropout_gen = gen;
}

Mask Transformer::attention_mask(std::int64_t Tq, std::int64_t Tk) const {
    Mask m;
    if (config_.causal) m = Mask::causal(Tq, Tk);
    if (config_.window > 0) m = m & Mask::local(Tq, Tk, config_.window);
    if (config_.stride > 0) m = m & Mask::strided(Tq, Tk, config_.stride);
    return m;
}

Tensor Transformer::position_vectors(std::int64_t past, std::int64_t T) const {
    const Tensor positions = arange(static_cast<double>(past), static_cast<double>(past + T), 1.0, kInt64);
    switch (config_.positions) {
        case PositionScheme::learned: return pos_emb->forward(positions);       // [T, d_model], trained
        case PositionScheme::sinusoidal:  // absolute positions, with a cache too; in the weights' dtype (Module::to moves those only)
            return sinusoids_.narrow(0, past, T).to(tok_emb.weight.dtype());
        case PositionScheme::none: break;
    }
    return Tensor();
}

Tensor Transformer::embed(const Tensor& ids, std::int64_t past) const {
    const Tensor x = tok_emb.forward(ids);  // [B, T, d_model]
    const Tensor p = position_vectors(past, ids.size(-1));
    return p.defined() ? x + p : x;
}

Tensor Transformer::forward(const Tensor& ids, const Mask& extra, std::vector<KVCache>* caches) {
    if (ids.dim() != 2 || ids.dtype() != kInt64)
        throw ShapeError("Transformer: expected int64 ids [B, T], got " + ids.shape().str() + " " + dtype_name(ids.dtype()));
    if (caches && caches->size() != blocks.size())
        throw ValueError("Transformer: " + std::to_string(caches->size()) + " caches for " + std::to_string(blocks.size()) + " layers");
    const std::int64_t T = ids.size(1);
    const std::int64_t past = caches ? (*caches)[0].length() : 0;
    if (past + T > config_.context)
        throw ValueError("Transformer: position " + std::to_string(past + T - 1) + " is past the context of " +
                         std::to_string(config_.context) + " tokens");
    if (is_training() && config_.dropout > 0 && !blocks[0]->dropout_gen)
        throw ValueError("Transformer: dropout " + std::to_string(config_.dropout) +
                         " in train mode needs set_dropout_generator (eval() for deterministic use)");
    trace_.clear();
    Tensor x = embed(ids, past);  // [B, T, d_model]
    const Mask mask = attention_mask(T, past + T) & extra;
    for (std::size_t i = 0; i < blocks.size(); ++i) x = blocks[i]->forward(x, mask, caches ? &(*caches)[i] : nullptr);
    return head.forward(ln_f.forward(x));  // [B, T, V]
}

}  // namespace attnlab::nn
