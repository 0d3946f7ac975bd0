// course_errata.cpp — the bodies of phases/course_errata.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/course_errata.hpp"

namespace attnlab::phase {

std::vector<SoftmaxErratum> softmax_errata() {
    std::vector<SoftmaxErratum> out{{"softmax([2, 0, 3])", {2, 0, 3}, {0.24, 0.03, 0.73}, {}},
                                    {"softmax([2, -inf, 3])", {2, -INFINITY, 3}, {0.27, 0.00, 0.73}, {}}};
    for (SoftmaxErratum& e : out) {
        e.computed = to_values(softmax(from_vector(e.scores, {3}), -1));
        for (std::size_t i = 0; i < e.scores.size(); ++i) e.max_diff = std::max(e.max_diff, std::abs(e.computed[i] - e.course_printed[i]));
        e.course_right = e.max_diff <= 0.005 + 1e-12;
    }
    return out;
}

std::string bracketed(const std::vector<double>& v, int decimals) {
    std::string s;
    for (double x : v) s += (s.empty() ? "[" : ", ") + plots::layout::format_fixed(x, decimals);
    return s + "]";
}

void print_softmax_errata(Frame& p) {
    std::printf("the course's numbers beside the true ones:\n");
    lab::Table t({{"case", "case", 21, -1}, {"course_printed", "course prints", 18, -1}, {"computed", "computed", 22, -1},
                  {"max_abs_diff", "max |diff|", 10, 3}, {"course_right", "course right", 10, -1}}, "  ");
    t.print_header();
    for (const SoftmaxErratum& e : softmax_errata())
        t.row({e.name, bracketed(e.course_printed, 2), bracketed(e.computed, 3), e.max_diff, e.course_right});
    std::printf("  (the first is wrong: e^2, e^0, e^3 over their sum are 0.259, 0.035, 0.705; -inf's row is right)\n");
    p.m["softmax_errata"] = t.json();
}

SatErratum sat_scale_erratum() {
    SatErratum e;
    const Tensor s = from_vector(e.scores, {6});
    auto weights_at = [&](double scale) { return to_values(softmax(s * scale, -1)); };
    auto max_diff = [&](const std::vector<double>& w) {
        double d = 0;
        for (std::size_t i = 0; i < w.size(); ++i) d = std::max(d, std::abs(w[i] - e.course_weights[i]));
        return d;
    };
    e.at_scale_1 = weights_at(1.0);
    e.best_max_diff = INFINITY;
    for (int i = 0; i <= 4000; ++i) {  // scales 10^-2 .. 10^2, 1000 per decade
        const double scale = std::pow(10.0, -2.0 + i / 1000.0), d = max_diff(weights_at(scale));
        if (d < e.best_max_diff) e.best_max_diff = d, e.best_scale = scale;
    }
    e.at_best_scale = weights_at(e.best_scale);
    return e;
}

}  // namespace attnlab::phase

namespace attnlab::phase1 {

using namespace attnlab::phase;

void section4b_sat_scale_erratum(Frame& p) {
    section("4b. The \"sat\" example: its weights are not the softmax of its scores");
    const SatErratum e = sat_scale_erratum();
    std::printf("scores                    %s\nthe course's weights      %s\nsoftmax(scores)           %s\n",
                bracketed(e.scores, 2).c_str(), bracketed(e.course_weights, 2).c_str(), bracketed(e.at_scale_1, 3).c_str());
    std::printf("closest scale (10^-2..10^2): softmax(%.3f * scores) = %s, still %.3f away (max |diff|)\n", e.best_scale,
                bracketed(e.at_best_scale, 3).c_str(), e.best_max_diff);
    std::printf("no scale can give them: softmax keeps the scores' order, and the course gives 0.7 ('the') 0.10 but 0.8 ('the') 0.05\n");
    p.m["sat_scale_erratum"] = Json::Object{
        {"scores", Json::Array(e.scores.begin(), e.scores.end())}, {"course_weights", Json::Array(e.course_weights.begin(), e.course_weights.end())},
        {"softmax_scale_1", Json::Array(e.at_scale_1.begin(), e.at_scale_1.end())}, {"closest_scale", e.best_scale},
        {"closest_weights", Json::Array(e.at_best_scale.begin(), e.at_best_scale.end())}, {"closest_max_abs_diff", e.best_max_diff}};
}

}  // namespace attnlab::phase1
