// phase6_patching.hpp — phase 6's section 2: activation patching on subject–verb agreement.
// Body in phases/sections/phase6_patching.cpp (each .cpp in phases/ is its own program).
//
// The toy grammar's verb agrees with its subject across a prepositional phrase whose noun (the
// distractor) may have the other number: "the cat on the mats sleeps". A clean input ("<bos> the
// cat on the mats") and its corrupted twin ("... the cats on the mats") differ in the subject's
// number only; the logit difference logit(sleeps) − logit(sleep) at the last position tells how
// sure the model is, and copying one activation from the clean run into the corrupted one tells
// how much of it that activation carries (analyses/patching.hpp). The section patches the
// residual stream after each layer at each position and each head's output at the last
// position, averaged over pairs drawn from the grammar, and again for --sentence; a second set of
// pairs flips the distractor's number instead, to find the head that carries the distractor.
#pragma once
#include <string>

#include "analyses/patching.hpp"
#include "phases/phase_common.hpp"

namespace attnlab::phase6 {

inline const std::string kAgreementSentence = "the cat near the dogs sleeps";

// The model (a causal model of the toy grammar) and --sentence as an agreement pair, read and
// checked before any section runs: a bad value costs nothing (exit status 2).
struct PatchingSetup {
    nn::LoadedCheckpoint ckpt;
    lab::AgreementPair sentence;
};
PatchingSetup patching_setup(const lab::Options& opt);

void section2_activation_patching(phase::Frame& p, PatchingSetup& s);

}  // namespace attnlab::phase6
