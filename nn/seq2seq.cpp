// seq2seq.cpp — see seq2seq.hpp.
#include "nn/seq2seq.hpp"

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

static std::int64_t half_width(std::int64_t hidden) {
    if (hidden < 2 || hidden % 2 != 0) throw ValueError("Seq2Seq: hidden must be even (two directions), got " + std::to_string(hidden));
    return hidden / 2;
}

Seq2Seq::Seq2Seq(const Seq2SeqConfig& c, Generator& gen)
    : src_emb(c.vocab, c.embed, gen), tgt_emb(c.vocab, c.embed, gen), encoder_fwd(c.embed, half_width(c.hidden), gen),
      encoder_bwd(c.embed, half_width(c.hidden), gen),
      decoder(c.embed + c.hidden, c.hidden, gen),
      scoring(c.attention ? make_scoring(c.scoring, c.hidden, c.hidden, c.attn, gen) : nullptr),
      out(2 * c.hidden, c.vocab, true, gen), config_(c),
      positions_(c.positions ? sinusoidal_positional_encoding(kMaxSteps, c.embed) : Tensor()) {
    register_module("src_emb", src_emb);
    register_module("tgt_emb", tgt_emb);
    register_module("encoder_fwd", encoder_fwd);
    register_module("encoder_bwd", encoder_bwd);
    register_module("decoder", decoder);
    if (scoring) register_module("scoring", *scoring);
    register_module("out", out);
}

// Row b's first lengths[b] entries reversed, padding left in place: flat indices
// into [B·S] such that out[b, i] = in[b, L_b − 1 − i] for i < L_b, in[b, i] after.
// Reversing twice is the identity, so the same index maps back.
static Tensor reverse_within_lengths(const std::vector<std::int64_t>& lengths, std::int64_t S) {
    std::vector<std::int64_t> idx;
    for (std::size_t b = 0; b < lengths.size(); ++b)
        for (std::int64_t i = 0; i < S; ++i)
            idx.push_back(static_cast<std::int64_t>(b) * S + (i < lengths[b] ? lengths[b] - 1 - i : i));
    return from_vector(idx, {static_cast<std::int64_t>(idx.size())});
}

Seq2Seq::Encoded Seq2Seq::encode(const Tensor& src, const std::vector<std::int64_t>& lengths) const {
    const std::int64_t B = src.size(0), S = src.size(1);
    const Tensor flip = reverse_within_lengths(lengths, S);
    const std::vector<std::int64_t> ids = src.to_vector<std::int64_t>(), at = flip.to_vector<std::int64_t>();
    std::vector<std::int64_t> ids_reversed(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids_reversed[i] = ids[static_cast<std::size_t>(at[i])];
    const Tensor src_reversed = from_vector(ids_reversed, {B, S});  // the same permutation, on the token ids
    // Each direction's step k reads its token plus PE(k): k = i forwards, k = L − 1 − i backwards.
    auto embed = [&](const Tensor& tokens) {
        Tensor e = src_emb.forward(tokens);  // [B, S, embed]
        return positions_.defined() ? e + positions_.narrow(0, 0, S).to(e.dtype()) : e;
    };
    GRUOutput fwd = encoder_fwd.forward(embed(src), Tensor(), lengths);           // →h  [B, S, hidden/2]
    GRUOutput bwd = encoder_bwd.forward(embed(src_reversed), Tensor(), lengths);  // ←h, in reversed order
    const std::int64_t half = fwd.outputs.size(2);
    Tensor bwd_outputs = index_select(bwd.outputs.reshape({B * S, half}), 0, flip).reshape({B, S, half});
    Tensor outputs = cat({fwd.outputs, bwd_outputs}, 2);                     // h_i = [→h_i; ←h_i]  [B, S, hidden]
    Tensor prepared = scoring ? scoring->prepare(outputs) : Tensor();       // once per source, not per step
    return {outputs, prepared, cat({fwd.last, bwd.last}, 1), Mask::padding(lengths, S)};
}

Seq2Seq::Step Seq2Seq::decode_step(const Encoded& enc, const Tensor& prev_tokens, const Tensor& state,
                                    std::int64_t t) const {
    Tensor weights, context = enc.last;  // without attention: the final encoder state, every step
    if (scoring) {
        // 1. α = normalize(score(s_{t−1}, h_i)) over the real source positions;  2. c = Σ α_i h_i
        weights = scoring->weights(state.unsqueeze(1), enc.prepared, enc.mask, config_.normalizer);  // [B, 1, S]
        context = matmul(weights, enc.outputs).squeeze(1);                                            // [B, hidden]
        weights = weights.squeeze(1);
    }
    // 3. s_t = GRU([embed(y_{t−1}); c_t], s_{t−1})
    Tensor e = tgt_emb.forward(prev_tokens);  // [B, embed]
    if (positions_.defined()) e = e + positions_.select(0, t).to(e.dtype());
    Tensor input = cat({e, context}, 1);  // [B, embed + hidden]
    return {decoder.step(decoder.input_gates(input), state), context, weights};
}

Seq2SeqOutput Seq2Seq::forward(const Tensor& src, const std::vector<std::int64_t>& lengths, const Tensor& tgt_in) const {
    if (src.dim() != 2 || tgt_in.dim() != 2 || src.size(0) != tgt_in.size(0))
        throw ShapeError("Seq2Seq: expected src [B, S] and tgt_in [B, T_out], got " + src.shape().str() + " and " +
                         tgt_in.shape().str());
    const Encoded enc = encode(src, lengths);
    Tensor state = enc.last;  // s_0 = h_S
    std::vector<Tensor> states, contexts, weights;
    for (std::int64_t t = 0; t < tgt_in.size(1); ++t) {
        Step step = decode_step(enc, tgt_in.select(1, t), state, t);  // teacher forcing: the true y_{t−1}
        state = step.state;
        states.push_back(step.state);
        contexts.push_back(step.context);
        if (step.weights.defined()) weights.push_back(step.weights.detach());
    }
    // The output layer for all steps at once: logits = W_out [s_t; c_t] + b   [B, T_out, V]
    Tensor logits = out.forward(cat({stack(states, 1), stack(contexts, 1)}, 2));
    return {logits, weights.empty() ? Tensor() : stack(weights, 1)};
}

GreedyOutput Seq2Seq::greedy(const Tensor& src, const std::vector<std::int64_t>& lengths, std::int64_t max_steps,
                             std::int64_t bos, std::int64_t eos) const {
    NoGradGuard no_grad;
    const std::int64_t B = src.size(0);
    const Encoded enc = encode(src, lengths);
    Tensor state = enc.last, prev = full({B}, static_cast<double>(bos), kInt64);
    GreedyOutput result;
    result.tokens.resize(static_cast<std::size_t>(B));
    std::vector<bool> done(static_cast<std::size_t>(B), false);
    std::vector<Tensor> weights;
    for (std::int64_t t = 0; t < max_steps; ++t) {
        Step step = decode_step(enc, prev, state, t);
        state = step.state;
        if (step.weights.defined()) weights.push_back(step.weights);
        prev = argmax(out.forward(cat({step.state, step.context}, 1)), 1);  // [B] the most likely token
        const std::vector<std::int64_t> next = prev.to_vector<std::int64_t>();
        bool all_done = true;
        for (std::int64_t b = 0; b < B; ++b) {
            const auto i = static_cast<std::size_t>(b);
            if (!done[i]) result.tokens[i].push_back(next[i]), done[i] = next[i] == eos;
            all_done = all_done && done[i];
        }
        if (all_done) break;
    }
    if (!weights.empty()) result.weights = stack(weights, 1);
    return result;
}

}  // namespace attnlab::nn
