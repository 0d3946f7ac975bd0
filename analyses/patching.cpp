// patching.cpp — see patching.hpp.
#include "analyses/patching.hpp"

#include <cmath>
#include <string>

#include "autograd/node.hpp"
#include "data/grammar.hpp"
#include "tensor/error.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

namespace {

// Removes every hook it set when it goes out of scope, on success or on a throw: a model left
// with a hook would keep patching every later forward pass.
struct HookScope {
    nn::Transformer& model;
    ~HookScope() {
        for (auto& block : model.blocks) block->output_hook = nullptr, block->attn.heads_hook = nullptr;
    }
};

void check_ids(const Tensor& ids) {
    if (ids.dim() != 2 || ids.dtype() != kInt64 || ids.size(1) == 0)
        throw ShapeError("activation patching: expected int64 ids [B, T] with T >= 1, got " + ids.shape().str());
}

}  // namespace

Activations capture(nn::Transformer& model, const Tensor& ids) {
    check_ids(ids);
    NoGradGuard no_grad;
    HookScope scope{model};
    Activations a;
    a.residual.resize(model.blocks.size()), a.heads.resize(model.blocks.size());
    for (std::size_t l = 0; l < model.blocks.size(); ++l) {
        model.blocks[l]->output_hook = [&a, l](const Tensor& x) { return a.residual[l] = x; };
        model.blocks[l]->attn.heads_hook = [&a, l](const Tensor& h) { return a.heads[l] = h; };
    }
    a.logits = model.forward(ids);
    return a;
}

Tensor run_patched(nn::Transformer& model, const Tensor& ids, const Activations& source, const std::vector<Patch>& patches) {
    check_ids(ids);
    const auto L = static_cast<std::int64_t>(model.blocks.size()), H = model.config().n_heads, T = ids.size(1);
    if (static_cast<std::int64_t>(source.residual.size()) != L || source.logits.shape() != Shape{ids.size(0), T, model.config().vocab_size})
        throw ShapeError("run_patched: the source run's activations are not of this model on ids " + ids.shape().str());
    // Which rows to copy, per layer: residual [1, T, 1] and heads [1, H, T, 1] of 0 / 1.
    std::vector<std::vector<float>> residual(static_cast<std::size_t>(L)), heads(static_cast<std::size_t>(L));
    for (const Patch& p : patches) {
        if (p.layer < 0 || p.layer >= L || p.position < 0 || p.position >= T || p.head < 0 || p.head >= H)
            throw ValueError("run_patched: no site at layer " + std::to_string(p.layer) + ", position " +
                             std::to_string(p.position) + ", head " + std::to_string(p.head) + " (the model has " +
                             std::to_string(L) + " layers of " + std::to_string(H) + " heads, the input " +
                             std::to_string(T) + " positions)");
        auto& m = p.site == Site::residual ? residual[static_cast<std::size_t>(p.layer)] : heads[static_cast<std::size_t>(p.layer)];
        m.resize(static_cast<std::size_t>(p.site == Site::residual ? T : H * T), 0.0f);
        m[static_cast<std::size_t>(p.site == Site::residual ? p.position : p.head * T + p.position)] = 1.0f;
    }
    NoGradGuard no_grad;
    HookScope scope{model};
    for (std::size_t l = 0; l < model.blocks.size(); ++l) {
        // where() copies the source's value bit for bit where the mask is 1 and keeps the run's own elsewhere.
        if (!residual[l].empty()) {
            const Tensor m = from_vector(residual[l], {1, T, 1});
            model.blocks[l]->output_hook = [m, &s = source.residual[l]](const Tensor& x) { return where(m, s, x); };
        }
        if (!heads[l].empty()) {
            const Tensor m = from_vector(heads[l], {1, H, T, 1});
            model.blocks[l]->attn.heads_hook = [m, &s = source.heads[l]](const Tensor& h) { return where(m, s, h); };
        }
    }
    return model.forward(ids);
}

std::vector<double> logit_differences(const Tensor& logits, const std::vector<std::int64_t>& answer,
                                      const std::vector<std::int64_t>& wrong) {
    if (logits.dim() != 3 || static_cast<std::int64_t>(answer.size()) != logits.size(0) || answer.size() != wrong.size())
        throw ShapeError("logit_differences: logits " + logits.shape().str() + " for " + std::to_string(answer.size()) +
                         " answers and " + std::to_string(wrong.size()) + " wrong tokens");
    const std::int64_t B = logits.size(0), T = logits.size(1), V = logits.size(2);
    const std::vector<double> last = logits.select(1, T - 1).to(kFloat64).contiguous().to_vector<double>();  // [B, V]
    std::vector<double> d;
    for (std::int64_t b = 0; b < B; ++b) {
        const std::int64_t a = answer[static_cast<std::size_t>(b)], w = wrong[static_cast<std::size_t>(b)];
        if (a < 0 || a >= V || w < 0 || w >= V)
            throw ValueError("logit_differences: tokens " + std::to_string(a) + " and " + std::to_string(w) +
                             " for a vocabulary of " + std::to_string(V));
        d.push_back(last[static_cast<std::size_t>(b * V + a)] - last[static_cast<std::size_t>(b * V + w)]);
    }
    return d;
}

double fraction_restored(double patched, double clean, double corrupted) {
    if (!(clean != corrupted))
        throw ValueError("fraction_restored: the clean and the corrupted run give the same logit difference (" +
                         std::to_string(clean) + "): the corruption changed nothing that patching could restore");
    return (patched - corrupted) / (clean - corrupted);
}

namespace {
double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / double(v.size());
}
}  // namespace

PatchingResult activation_patching(nn::Transformer& model, const std::vector<PatchPair>& pairs) {
    if (pairs.empty()) throw ValueError("activation_patching: no pairs");
    const auto T = static_cast<std::int64_t>(pairs.front().clean.size());
    std::vector<std::int64_t> clean, corrupted, answer, wrong;
    for (const PatchPair& p : pairs) {
        if (static_cast<std::int64_t>(p.clean.size()) != T || p.corrupted.size() != p.clean.size())
            throw ValueError("activation_patching: every clean and corrupted input must have the same length (" +
                             std::to_string(T) + " tokens); got " + std::to_string(p.clean.size()) + " and " +
                             std::to_string(p.corrupted.size()));
        clean.insert(clean.end(), p.clean.begin(), p.clean.end());
        corrupted.insert(corrupted.end(), p.corrupted.begin(), p.corrupted.end());
        answer.push_back(p.answer), wrong.push_back(p.wrong);
    }
    const auto B = static_cast<std::int64_t>(pairs.size()), L = static_cast<std::int64_t>(model.blocks.size()),
               H = model.config().n_heads;
    const Tensor clean_ids = from_vector(clean, {B, T}), corrupted_ids = from_vector(corrupted, {B, T});
    const Activations source = capture(model, clean_ids);
    PatchingResult r;
    r.clean = logit_differences(source.logits, answer, wrong);
    r.corrupted = logit_differences(capture(model, corrupted_ids).logits, answer, wrong);
    r.clean_mean = mean(r.clean), r.corrupted_mean = mean(r.corrupted);
    const auto restored = [&](const Patch& p) {
        return fraction_restored(mean(logit_differences(run_patched(model, corrupted_ids, source, {p}), answer, wrong)),
                                 r.clean_mean, r.corrupted_mean);
    };
    std::vector<double> residual, heads;
    for (std::int64_t l = 0; l < L; ++l)
        for (std::int64_t t = 0; t < T; ++t) residual.push_back(restored({Site::residual, l, t}));
    for (std::int64_t l = 0; l < L; ++l)
        for (std::int64_t h = 0; h < H; ++h) heads.push_back(restored({Site::head, l, T - 1, h}));
    r.residual = from_vector(residual, {L, T}, kFloat64);
    r.heads = from_vector(heads, {L, H}, kFloat64);
    return r;
}

AgreementPair agreement_pair(const std::vector<std::int64_t>& words) {
    const data::Grammar& g = data::toy_grammar();
    std::string text;
    for (std::int64_t w : words) text += (text.empty() ? "" : " ") + (g.vocab().is_word(w) ? g.vocab().word(w) : "?");
    std::int64_t subject = -1, verb = -1;
    for (const data::GoldPair& p : data::toy_gold_pairs(words))
        if (p.relation == data::Relation::subject_verb) verb = p.from, subject = p.to;
    if (verb < 0)
        throw ValueError("agreement pair: '" + text + "' has no subject followed by its verb (\"the cat on the mats sleeps\")");
    const std::int64_t verb_word = words[static_cast<std::size_t>(verb)];
    if (data::other_number(verb_word) < 0)
        throw ValueError("agreement pair: in '" + text + "' the verb '" + g.vocab().word(verb_word) +
                         "' does not agree with its subject (only present-tense verbs do: 'sleeps' / 'sleep')");
    AgreementPair a;
    a.pair.clean.push_back(data::Vocab::kBos);
    a.pair.clean.insert(a.pair.clean.end(), words.begin(), words.begin() + verb);
    a.pair.corrupted = a.pair.clean;
    a.subject = subject + 1;
    a.pair.corrupted[static_cast<std::size_t>(a.subject)] = data::other_number(words[static_cast<std::size_t>(subject)]);
    a.pair.answer = verb_word, a.pair.wrong = data::other_number(verb_word);
    for (std::int64_t i = subject + 1; i < verb; ++i)
        if (data::noun_class(words[static_cast<std::size_t>(i)]) != data::NounClass::none) a.distractor = i + 1;
    try {  // "this cat" cannot become "this cats": the corrupted input must be the grammar's too
        const std::vector<std::int64_t> flipped(a.pair.corrupted.begin() + 1, a.pair.corrupted.end());
        if (g.step(g.state_after(flipped), a.pair.wrong) < 0) throw ValueError("its verb cannot follow");
    } catch (const ValueError& e) {
        throw ValueError("agreement pair: '" + text + "' with its subject '" + g.vocab().word(words[static_cast<std::size_t>(subject)]) +
                         "' in the other number is not a sentence of the grammar (" + e.what() +
                         "); start the subject with 'the', 'my', 'his' or 'her'");
    }
    return a;
}

}  // namespace attnlab::lab
