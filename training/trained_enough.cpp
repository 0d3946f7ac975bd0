// trained_enough.cpp — see trained_enough.hpp.
#include "training/trained_enough.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace attnlab::lab {

std::string far_from_trained(const RunRecord& run) {
    std::vector<std::string> why;
    const std::vector<double>& l = run.losses;
    const bool solved = !std::isnan(run.accuracy) && run.accuracy >= kSolved;
    if (l.size() >= 2 && !solved) {
        // Rule 1: the means of the last two windows, a tenth of the run each.
        const std::size_t w = std::max<std::size_t>(1, l.size() / 10);
        const auto mean = [&](std::size_t from) {
            return std::accumulate(l.begin() + static_cast<std::ptrdiff_t>(from), l.begin() + static_cast<std::ptrdiff_t>(from + w), 0.0) /
                   static_cast<double>(w);
        };
        const double before = mean(l.size() - 2 * w), last = mean(l.size() - w);  // w <= size / 2
        if (before > 0 && (before - last) / before > kStillFalling) {
            char text[96];
            std::snprintf(text, sizeof text, "loss still falling %.0f%% between the last two %s", 100 * (before - last) / before,
                          w == 1 ? "evaluations" : "tenths of the run");
            why.push_back(text);
        }
    }
    if (!std::isnan(run.accuracy) && !std::isnan(run.chance) && run.accuracy < kNearChance * run.chance) {  // rule 2
        char text[96];
        std::snprintf(text, sizeof text, "accuracy %.3f near chance %.3f", run.accuracy, run.chance);
        why.push_back(text);
    }
    std::string out;
    for (const std::string& w : why) out += (out.empty() ? "" : ", ") + w;
    return out;
}

std::string untrained_warning(const std::vector<RunRecord>& runs, const std::string& more) {
    std::string list;
    std::size_t n = 0;
    for (const RunRecord& r : runs)
        if (const std::string why = far_from_trained(r); !why.empty()) list += (n++ ? "; " : "") + r.name + " (" + why + ")";
    if (n == 0) return "";
    return "warning: " + list + (n == 1 ? ": still far from trained; its place" : ": still far from trained; their places") +
           " in this comparison may change with more training (" + more + ")";
}

void print_untrained_warning(const std::vector<RunRecord>& runs, const std::string& more) {
    if (const std::string w = untrained_warning(runs, more); !w.empty()) std::printf("%s\n", w.c_str());
}

}  // namespace attnlab::lab
