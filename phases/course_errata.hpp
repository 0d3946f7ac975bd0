// course_errata.hpp — two softmax results the course prints wrong, recomputed where the phases
// meet them: phase 4 beside its −∞ example, phase 1 beside its "sat" example. Bodies in
// phases/sections/course_errata.cpp; tests/phases/test_course_examples.cpp checks
// the numbers.
//
//   "Why −∞ instead of zero": softmax([2, 0, 3]) printed as [0.24, 0.03, 0.73]; it is
//     [0.259, 0.035, 0.705]. Its −∞ case, [0.27, 0.00, 0.73], is right to two decimals.
//   "For token sat": scores [0.8, 3.2, 1.5, 0.5, 0.7, 2.1], weights
//     [0.05, 0.45, 0.15, 0.05, 0.10, 0.20]. softmax(scale · s) keeps the order of the
//     scores for every scale > 0, and the course's weights do not (0.7 gets 0.10, 0.8 gets
//     0.05), so no scale gives them; we search the scales and print the closest.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/report.hpp"
#include "phases/phase_common.hpp"
#include "plots/layout.hpp"

namespace attnlab::phase {

struct SoftmaxErratum {
    std::string name;
    std::vector<double> scores, course_printed, computed;
    double max_diff = 0;  // max |printed - computed|
    bool course_right = false;  // within the 0.005 of printing two decimals
};

std::vector<SoftmaxErratum> softmax_errata();

std::string bracketed(const std::vector<double>& v, int decimals);

// Phase 4, step 1: both of the course's softmax lines beside ours, the wrong one flagged.
void print_softmax_errata(Frame& p);

// The "sat" example: what softmax(scale * scores) gives, and the scale that comes closest.
struct SatErratum {
    std::vector<double> scores{0.8, 3.2, 1.5, 0.5, 0.7, 2.1}, course_weights{0.05, 0.45, 0.15, 0.05, 0.10, 0.20};
    std::vector<double> at_scale_1;              // softmax(scores)
    double best_scale = 0, best_max_diff = 0;    // the scale minimising max |softmax(scale s) - printed|
    std::vector<double> at_best_scale;
};

SatErratum sat_scale_erratum();

}  // namespace attnlab::phase

namespace attnlab::phase1 {

// Phase 1's step 4b, beside the course's worked examples.
void section4b_sat_scale_erratum(phase::Frame& p);

}  // namespace attnlab::phase1
