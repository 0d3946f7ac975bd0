// phase2_heads_cost.cpp — the bodies of phases/phase2_heads_cost.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase2_heads_cost.hpp"

namespace attnlab::phase2 {

double attention_flops(std::int64_t T, std::int64_t d_model, std::int64_t n_heads) {
    const double t = static_cast<double>(T), d = static_cast<double>(d_model), h = static_cast<double>(n_heads);
    return 8 * t * d * d + 4 * t * t * d + 5 * h * t * t;
}

void draw_time_per_step(Frame& p, const lab::Table& sweep, std::int64_t d_model, std::int64_t context) {
    const std::vector<double> H = sweep.column("n_heads"), ms = sweep.column("ms_per_step");
    if (H.empty()) return;
    plots::Series claim{.name = "the course's ~H x (from the " + std::to_string(static_cast<long long>(H.front())) + "-head time)",
                        .markers = false, .dashed = true};
    for (std::size_t i = 0; i < H.size(); ++i) claim.x.push_back(H[i]), claim.y.push_back(ms.front() * H[i] / H.front());
    const double flop_ratio = attention_flops(context, d_model, static_cast<std::int64_t>(H.back())) /
                              attention_flops(context, d_model, static_cast<std::int64_t>(H.front()));
    std::printf("time per step: %.1f ms at H = %.0f, %.1f ms at H = %.0f (x%.2f); the course's ~H x predicts x%.0f;\n"
                "the attention flops per layer (T = %lld) change by x%.3f: only the softmax's H T^2 term grows with H\n",
                ms.front(), H.front(), ms.back(), H.back(), ms.back() / ms.front(), H.back() / H.front(),
                static_cast<long long>(context), flop_ratio);
    p.m["heads_cost"] = Json::Object{{"time_ratio", ms.back() / ms.front()}, {"seed_claim_ratio", H.back() / H.front()},
                                     {"flop_ratio", flop_ratio}};
    const std::string dm = std::to_string(d_model);
    p.out.figure(plots::line_chart({sweep.series("n_heads", "ms_per_step", {.name = "measured (training step, batch of the sweep)"}), claim},
                                   {.title = "Time per training step vs number of heads at d_model " + dm,
                                    .x_title = "heads H (log scale; d_k = " + dm + " / H)", .y_title = "ms per step (log scale)",
                                    .log_x = true, .log_y = true}),
                 "heads_time_per_step",
                 "Phase 2: time per training step of the heads sweep against H at fixed d_model " + dm +
                     ", beside the course's ~H x claim; the flops do not grow with H.");
}

}  // namespace attnlab::phase2
