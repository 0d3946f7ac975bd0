// reference.hpp — reference mode: every op runs the readable code of the reading path.
//
// docs/read-the-source.md lists a dozen files a learner reads from one query·key dot
// product to a trained TinyGPT. Each op there computes its formula in plain loops or
// composed ops; a fast kernel (tiles, vector intrinsics, packed weights, the thread pool,
// batch sharding) lives in a file of its own, reached from one marked dispatch point:
//
//   if (reference_mode()) ...the formula...;
//   else ...fast path: see X...;
//
// In reference mode every such point takes the formula, parallel_for runs on one thread,
// attention is composed (never the fused kernel) and training never shards its batch, so
// a debugger stepping into training lands in the formula. Results agree with the fast
// mode to rounding (tests/training/test_reference_mode.cpp), not bit for bit.
//
// On when ATTNLAB_REFERENCE=1, or when a program is given --reference (app/options.cpp),
// or, by default, in a build without optimisation (make debug); ATTNLAB_REFERENCE=0
// turns it off there.
#pragma once

namespace attnlab {

bool reference_mode();
void set_reference_mode(bool on);

// The value of ATTNLAB_REFERENCE: "1" on, "0" off; anything else is a ValueError naming
// the variable and the value. Null (unset) or "" gives the build's default.
bool parse_reference_mode(const char* text);

}  // namespace attnlab
