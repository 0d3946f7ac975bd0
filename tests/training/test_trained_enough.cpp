// test_trained_enough.cpp — the rule that says a comparison's run is still far from trained.
#include <catch2/catch.hpp>

#include <cmath>

#include "training/trained_enough.hpp"

using namespace attnlab;
using lab::RunRecord;
using Catch::Contains;

namespace {

// n per-step losses that fall as a / (1 + step / 10), then stay at their last value for `flat` steps.
std::vector<double> falling(int n, int flat = 0) {
    std::vector<double> l;
    for (int s = 0; s < n; ++s) l.push_back(3.0 / (1 + s / 10.0));
    for (int s = 0; s < flat; ++s) l.push_back(l.back());
    return l;
}

}  // namespace

TEST_CASE("far_from_trained: a loss still falling by more than 5% per tenth of the run", "[training][trained_enough]") {
    // 100 steps of 3 / (1 + s/10): the tenths 80-89 and 90-99 average 0.318 and 0.287, 9.6% lower.
    CHECK(lab::far_from_trained({"a", falling(100)}) == "loss still falling 10% between the last two tenths of the run");
    // The same curve flattened for its last 200 steps: the last two tenths (of 300) are equal.
    CHECK(lab::far_from_trained({"b", falling(100, 200)}).empty());
    // Two evaluations: the window is one value, and the drop is measured between them.
    CHECK(lab::far_from_trained({"c", {2.0, 1.89}}) == "loss still falling 6% between the last two evaluations");
    CHECK(lab::far_from_trained({"d", {2.0, 1.91}}).empty());  // 4.5%: under the 5% line
    CHECK(lab::far_from_trained({"e", {2.0, 2.5}}).empty());   // rising is not learning fast
    CHECK(lab::far_from_trained({"f", {2.0}}).empty());        // one value: rule 1 cannot say
    // A run that gets 95% or more right is not far from trained, however its loss still shrinks.
    CHECK(lab::far_from_trained({"g", falling(100), 0.95, 0.125}).empty());
    CHECK(lab::far_from_trained({"h", falling(100), 0.94, 0.125}) == "loss still falling 10% between the last two tenths of the run");
}

TEST_CASE("far_from_trained: accuracy near chance, where chance is known", "[training][trained_enough]") {
    CHECK(lab::far_from_trained({"a", {}, 0.15, 0.125}) == "accuracy 0.150 near chance 0.125");  // under 1.25 x 0.125
    CHECK(lab::far_from_trained({"b", {}, 0.16, 0.125}).empty());
    CHECK(lab::far_from_trained({"c", {}, 0.0, NAN}).empty());  // a task whose chance is about 0: no rule 2
    CHECK(lab::far_from_trained({"d", {2.0, 1.5}, 0.1, 0.125}) ==
          "loss still falling 25% between the last two evaluations, accuracy 0.100 near chance 0.125");
}

TEST_CASE("untrained_warning names each run far from trained, or says nothing", "[training][trained_enough]") {
    const RunRecord done{"done", falling(100, 200), 0.9, 0.125}, early{"early", falling(100)}, guess{"guess", {}, 0.13, 0.125};
    CHECK(lab::untrained_warning({done}).empty());
    CHECK(lab::untrained_warning({done, early}) ==
          "warning: early (loss still falling 10% between the last two tenths of the run): still far from trained; its place "
          "in this comparison may change with more training (--steps)");
    CHECK_THAT(lab::untrained_warning({early, done, guess}, "--compare-steps"),
               Contains("warning: early (") && Contains("; guess (accuracy 0.130 near chance 0.125): still far from trained; their places") &&
                   Contains("(--compare-steps)") && !Contains("done"));
}
