// trained_enough.hpp — is a run still far from trained? One rule for every comparison table.
//
// A comparison trains several models on the same budget and ranks them. Runs that stopped
// while still learning fast, or that barely beat guessing, may rank otherwise with more steps,
// so each comparison prints untrained_warning() beside its table (phase 2's heads sweep, phase
// 4's masks, phase 5's scorers and architectures). The rule, from what a run recorded:
//   1. still falling: the run's losses (one per step or per evaluation, in order), averaged over
//      windows of a tenth of them (at least one value each), fell between the last two windows
//      by more than kStillFalling of the earlier one's value - unless its accuracy reached
//      kSolved: a run that gets 95% or more right is not far from trained, and its loss
//      still shrinking toward 0 is polish, not learning;
//   2. near chance: its accuracy is below kNearChance times the accuracy of guessing (where
//      both are known: a task whose chance is about 0, such as a whole sequence, leaves it out).
// A run with one loss value can only be judged by rule 2.
#pragma once
#include <cmath>
#include <string>
#include <vector>

namespace attnlab::lab {

inline constexpr double kStillFalling = 0.05;  // 5% of the loss between the last two tenths of the run
inline constexpr double kNearChance = 1.25;    // accuracy under 1.25 × chance
inline constexpr double kSolved = 0.95;        // accuracy at which rule 1 no longer applies

struct RunRecord {
    std::string name;             // the run's row in its table
    std::vector<double> losses;   // in order: per training step, or per evaluation
    double accuracy = NAN;        // at the end of the run; NaN where not measured
    double chance = NAN;          // the accuracy of guessing; NaN where it is about 0
};

// Why the run is still far from trained ("loss still falling 12% between the last two tenths of
// the run", "accuracy 0.130 near chance 0.125"), or "" when neither rule holds.
std::string far_from_trained(const RunRecord& run);

// "" when every run is trained enough; else one line naming each run far from trained and why,
// and what it means for the table: "warning: ... still far from trained: their ranking may change
// with more steps (`more`)".
std::string untrained_warning(const std::vector<RunRecord>& runs, const std::string& more = "--steps");

// Prints untrained_warning's line, if any, to stdout (beside the table just printed).
void print_untrained_warning(const std::vector<RunRecord>& runs, const std::string& more = "--steps");

}  // namespace attnlab::lab
