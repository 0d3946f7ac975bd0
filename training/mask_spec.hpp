// mask_spec.hpp — the attention mask a run trains with, as the command line writes it:
//
//   none        every key: a bidirectional model (a next-token model then sees the answer)
//   causal      keys j ≤ i (next-token models; their default)
//   local:W     also |i − j| ≤ W: a band around the diagonal
//   strided:S   also (i − j) divisible by S: every S-th key
//
// local and strided keep the task's own causal setting (causal for next-token models).
// tinygpt train's --mask and phase 4's --mask list read it through parse_mask, so the two
// programs accept the same texts and refuse a bad one with the same message. The rule each
// mask states (which key j query i may see) is nn/mask.hpp's MaskRule::allows; this is only
// the choice of masks, carried into TrainConfig's causal_mask, window and stride.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "training/train.hpp"

namespace attnlab::lab {

struct MaskSpec {
    enum class Kind { none, causal, local, strided };
    Kind kind = Kind::causal;
    std::int64_t width = 0;  // W (local) or S (strided), from 1; 0 for none and causal

    // How printouts and metrics.json call it: "no mask", "causal", "local +-2", "strided 2".
    std::string name() const;
    // Sets c's causal_mask, window and stride. ValueError naming `flag` for causal on a
    // masked-token task (it predicts hidden words from both sides).
    void apply(TrainConfig& c, std::string_view flag = "--mask") const;
};

// "none" | "causal" | "local:W" | "strided:S" (W, S integers in [1, ModelLimits::max_context]).
// A bad text is a ValueError naming `flag` and the text: "--mask 'local:0': W of local:W needs ...".
MaskSpec parse_mask(std::string_view text, std::string_view flag = "--mask");

}  // namespace attnlab::lab
