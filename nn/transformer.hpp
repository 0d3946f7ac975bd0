// transformer.hpp — the toy transformers: TinyGPT (causal) and its bidirectional twin.
//
//   x = tok_emb[ids] + pos_emb[0..T−1]
//   for each block:  x = x + attn(ln1(x));  x = x + mlp(ln2(x))     (pre-LayerNorm)
//   logits = head(ln_f(x))                                          (head: no bias, not tied)
//
// attn is MultiHeadAttention with the model's mask; mlp = fc2(gelu(fc1(h))), hidden 4·d_model.
// The positions term is the config's scheme: the learned table pos_emb (above, the default),
// the fixed sinusoidal encoding (nn/positional.hpp; no parameter), or none (no parameter, and
// no position signal but what the mask implies). The attention normalizer is softmax, or sparsemax.
// Parameter names match a plain PyTorch module with the same attribute names
// (tok_emb.weight, blocks.0.attn.w_q.weight, ..., head.weight), so a checkpoint
// loads with safetensors.torch.load_file into the equivalent torch.nn.Module.
//
// With causal = true this is TinyGPT, trained on next-token prediction; with
// causal = false it is a bidirectional encoder (BERT-style) trained to fill in
// [MASK] tokens. `window` / `stride` restrict attention further (phase 4's custom
// masks): each query then sees only keys within ±window, or every stride-th key.
#pragma once
#include <memory>
#include <vector>

#include "nn/attention.hpp"
#include "nn/positional.hpp"

namespace attnlab::nn {

struct TransformerConfig {
    std::int64_t vocab_size = 0;
    std::int64_t d_model = 64;
    std::int64_t n_heads = 4;
    std::int64_t n_layers = 2;
    std::int64_t context = 32;  // T_max: rows of pos_emb
    bool causal = true;
    std::int64_t window = 0;  // > 0: local attention, |i − j| ≤ window
    std::int64_t stride = 0;  // > 0: strided attention, (i − j) divisible by stride
    bool scaled = true;       // false: scores q·k without the 1/√d_k (phase 1's experiment, trained)
    bool qkv_only = false;    // attention without biases or W_O: 3·d_model² per layer (the seed's single head)
    double dropout = 0;       // train mode only: on attention weights and on each residual branch
    bool attention_only = false;  // blocks without ln2 + mlp (their parameters stay, unused): the induction-head models
    PositionScheme positions = PositionScheme::learned;  // sinusoidal needs an even d_model
    Normalizer normalizer = Normalizer::softmax();        // softmax or sparsemax (top-k: not in a Transformer)
};

class Block : public Module {
public:
    Block(const TransformerConfig& c, Generator& gen);
    // x [B, T, d_model] -> [B, T, d_model]
    Tensor forward(const Tensor& x, const Mask& mask, KVCache* cache = nullptr);
    double dropout = 0;                // on each residual branch, in train mode (attn.dropout: on its weights)
    bool attention_only = false;       // x + attn(ln1(x)) alone: TransformerConfig::attention_only
    Generator* dropout_gen = nullptr;
    ActivationHook output_hook;        // when set, called with the residual stream after this block
    LayerNorm ln1;
    MultiHeadAttention attn;
    LayerNorm ln2;
    MLP mlp;
};

class Transformer : public Module {
public:
    explicit Transformer(const TransformerConfig& config, std::uint64_t seed = 0);

    // ids [B, T] int64 -> logits [B, T, V]. `extra` is ANDed with the model's own
    // mask (padding, for batches of unequal length). With caches (one per layer),
    // ids are the new positions only and the caches hold the earlier ones.
    Tensor forward(const Tensor& ids, const Mask& extra = Mask(), std::vector<KVCache>* caches = nullptr);

    // The model's own mask for Tq queries against Tk keys (the last Tq of Tk positions).
    Mask attention_mask(std::int64_t Tq, std::int64_t Tk) const;
    // The residual stream's start for ids [B, T] at positions past .. past+T−1: tok_emb[ids] plus
    // the scheme's position vectors -> [B, T, d_model]. Every reader of the embeddings calls it.
    Tensor embed(const Tensor& ids, std::int64_t past = 0) const;
    // The position vectors alone, [T, d_model]: rows of pos_emb or of the sinusoidal encoding;
    // undefined for PositionScheme::none.
    Tensor position_vectors(std::int64_t past, std::int64_t T) const;

    const TransformerConfig& config() const { return config_; }
    AttentionTrace& trace() { return trace_; }  // enable to record every layer's weights
    std::vector<KVCache> make_caches() const { return std::vector<KVCache>(blocks.size()); }
    // Where dropout draws from (config().dropout > 0 in train mode needs one). The trainer
    // passes its data stream, whose state every checkpoint saves: a resumed run drops the
    // same units as an uninterrupted one.
    void set_dropout_generator(Generator* gen);

    Embedding tok_emb;
    std::optional<Embedding> pos_emb;  // PositionScheme::learned only: never drawn, stored or used otherwise
    std::vector<std::unique_ptr<Block>> blocks;
    LayerNorm ln_f;
    Linear head;

private:
    Transformer(const TransformerConfig& config, Generator&& gen);  // every draw from one seeded stream
    TransformerConfig config_;
    Tensor sinusoids_;  // [context, d_model], PositionScheme::sinusoidal only: fixed, not a parameter
    AttentionTrace trace_;
};

}  // namespace attnlab::nn
