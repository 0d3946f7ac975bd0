// patching.hpp — activation patching: which activations carry what a prediction needs.
//
// Run a model on a clean input and on a corrupted one that differs in one fact (the subject's
// number: "the cat on the mats" / "the cats on the mats"), and read at the last position
//
//   logit difference   LD = logit(answer) − logit(wrong)            ("sleeps" − "sleep")
//
// Then run the corrupted input again with one activation copied in from the clean run:
//
//   fraction restored  = (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted)
//
// 1 (100 %): that activation alone carries everything the clean run knew and the corrupted
// one did not; 0: none of it; below 0: copying it in pushes the other way. Two kinds of site:
//   residual   the residual stream after block l, at position t            ([B, T, d_model], row t)
//   head       head h of layer l's output at position t, before W_O mixes the heads ([B, H, T, d_k])
// The forward pass reaches them through nn::ActivationHook (Block::output_hook,
// MultiHeadAttention::heads_hook). Left out: path patching (one path between two sites),
// attribution patching (its linear approximation by gradients), MLP outputs on their own.
#pragma once
#include <cstdint>
#include <vector>

#include "nn/transformer.hpp"

namespace attnlab::lab {

// A clean and a corrupted input of the same length, and the two tokens whose logits are
// compared at the last position: `answer` is what the clean input calls for.
struct PatchPair {
    std::vector<std::int64_t> clean, corrupted;
    std::int64_t answer = -1, wrong = -1;
};

// One run's activations at every site: residual[l] [B, T, d_model], heads[l] [B, H, T, d_k].
struct Activations {
    std::vector<Tensor> residual, heads;
    Tensor logits;  // [B, T, V]
};

enum class Site { residual, head };
struct Patch {
    Site site;
    std::int64_t layer, position, head = 0;  // head: Site::head only
};

// ids [B, T] int64 -> every activation of that run. No gradient is recorded.
Activations capture(nn::Transformer& model, const Tensor& ids);
// The run on ids [B, T] with every patch's activation taken from `source` (a capture of another
// input of the same shape) -> logits [B, T, V]. The model's hooks are cleared afterwards.
Tensor run_patched(nn::Transformer& model, const Tensor& ids, const Activations& source, const std::vector<Patch>& patches);

// logits [B, T, V] -> [B]: logit(answer[b]) − logit(wrong[b]) at the last position of each row.
std::vector<double> logit_differences(const Tensor& logits, const std::vector<std::int64_t>& answer,
                                      const std::vector<std::int64_t>& wrong);
// (patched − corrupted) / (clean − corrupted); a ValueError when clean equals corrupted
// (the corruption changed nothing there is to restore).
double fraction_restored(double patched, double clean, double corrupted);

// Every site patched once, over a batch of pairs of one length T. Fractions are of the mean
// logit differences over the pairs (a ratio of means: a pair whose corruption barely matters
// cannot blow up the average).
struct PatchingResult {
    std::vector<double> clean, corrupted;  // [B]: each pair's logit difference on either run
    double clean_mean = 0, corrupted_mean = 0;
    Tensor residual;  // [L, T] float64: patching the residual stream after block l at position t
    Tensor heads;     // [L, H] float64: patching head h of layer l at the last position
};
PatchingResult activation_patching(nn::Transformer& model, const std::vector<PatchPair>& pairs);

// A toy-grammar sentence (word ids, no <bos>) as a subject–verb agreement pair: the clean input
// is <bos> and the words before the verb, the corrupted one the same with the subject in the
// other number (data::other_number), the answer the sentence's verb and the wrong token the
// verb in the other number. A ValueError naming the sentence when it has no present-tense verb
// agreeing with a subject, or when the flipped subject is not a sentence of the grammar ("this cats").
struct AgreementPair {
    PatchPair pair;
    std::int64_t subject = -1;     // the subject noun's position in pair.clean (after <bos>)
    std::int64_t distractor = -1;  // the last noun between the subject and the verb, or -1
};
AgreementPair agreement_pair(const std::vector<std::int64_t>& words);

}  // namespace attnlab::lab
