// phase5_fused_attention.cpp — the bodies of phases/phase5_fused_attention.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase5_fused_attention.hpp"

namespace attnlab::phase5 {

void fused_cost_against_T(phase::Output& out, Json& result) {
    std::printf("\n11. The fused path: flash_attention against the composed path (B 1, H 8, d_k 64, no grad)\n");
    lab::Table t({{"T", "T", 6, -1}, {"composed_ms", "composed ms", 12, 3}, {"fused_ms", "fused ms", 12, 3},
                  {"composed_peak_bytes", "composed bytes", 14, -1}, {"fused_peak_bytes", "fused bytes", 14, -1}}, "   ");
    t.print_header();
    for (std::int64_t T : {64, 128, 256, 512, 1024, 2048}) {
        manual_seed(0);
        const Tensor q = randn({1, 8, T, 64}), k = randn({1, 8, T, 64}), v = randn({1, 8, T, 64});
        NoGradGuard no_grad;
        auto composed = [&] { nn::scaled_dot_product_attention(q, k, v); };
        auto fused = [&] { nn::flash_attention(q, k, v); };
        // Short repetitions (20 ms, 50 ms warm-up): the curve's slope needs medians, not
        // bench-grade precision, and phase 5 runs in every `make all` (bench_attention is the bench).
        const double rep_s = T >= 1024 ? 0.0 : 0.02;
        t.row({T, lab::time_median(composed, 5, rep_s, 0.05).median_ms, lab::time_median(fused, 5, rep_s, 0.05).median_ms,
               peak_extra_storage_bytes(composed), peak_extra_storage_bytes(fused)});
    }
    const P::Series t_comp = t.series("T", "composed_ms", {.name = "composed (scores, weights)"});
    const P::Series t_fused = t.series("T", "fused_ms", {.name = "fused (flash_attention)"});
    P::Series m_comp = t.series("T", "composed_peak_bytes", {.name = "composed"});
    P::Series m_fused = t.series("T", "fused_peak_bytes", {.name = "fused"});
    for (P::Series* m : {&m_comp, &m_fused})
        for (double& bytes : m->y) bytes /= 1 << 20;  // drawn in MiB
    const Json rows = t.json_by("T");
    const double e_tc = P::fit_power_law(t_comp.x, t_comp.y).slope, e_tf = P::fit_power_law(t_fused.x, t_fused.y).slope;
    const double e_mc = P::fit_power_law(m_comp.x, m_comp.y).slope, e_mf = P::fit_power_law(m_fused.x, m_fused.y).slope;
    std::printf("   fitted exponents: time composed %.2f, fused %.2f; memory composed %.2f (T²), fused %.2f (T)\n", e_tc, e_tf, e_mc, e_mf);
    result["by_T"] = rows;
    result["time_exponent"] = Json::Object{{"composed", e_tc}, {"fused", e_tf}};
    result["memory_exponent"] = Json::Object{{"composed", e_mc}, {"fused", e_mf}};
    out.figure(P::hstack({P::line_chart({t_comp, t_fused}, {.title = "Forward time (1 thread)", .x_title = "sequence length T",
                                                        .y_title = "ms per call", .log_x = true, .log_y = true, .fit_slope = true,
                                                        .plot_width = 300}),
                       P::line_chart({m_comp, m_fused}, {.title = "Peak extra memory, measured", .x_title = "sequence length T",
                                                        .y_title = "MiB allocated by one call", .log_x = true, .log_y = true,
                                                        .fit_slope = true, .plot_width = 300})},
                      "Composed vs fused attention, B 1, H 8, d_k 64"),
               "fused_attention_cost",
               "Phase 5: time and measured peak memory of the composed and the fused (flash) attention path against T, log-log: "
               "memory grows like T^2 composed, like T fused.");
}

void online_softmax_of_one_row(phase::Output& out, Json& result) {
    // 64 keys in blocks of 8 (the kernel's blocks are kFlashKeyBlock = 512 keys; small
    // blocks show more steps). After block b: m = the largest score so far, l = Σ exp(s − m)
    // over the keys so far, rescaled by exp(m_old − m_new) whenever m moves; m + log l is
    // the log-sum-exp of the keys so far and ends at the kernel's lse.
    constexpr std::int64_t Tk = 64, block = 8;
    Generator gen(11);
    const Tensor q = randn({1, 1, 16}, kFloat32, gen), k = randn({1, Tk, 16}, kFloat32, gen), v = randn({1, Tk, 16}, kFloat32, gen);
    const double scale = 1.0 / 4.0;
    const nn::FlashAttentionResult fused = nn::flash_attention_with_lse(q, k, v);
    const nn::AttentionResult composed = nn::scaled_dot_product_attention(q, k, v);
    const std::vector<double> s = (matmul(q, k.mT()) * scale).reshape({Tk}).to_vector<double>();
    P::Series run_m{.name = "running max m"}, run_lse{.name = "m + log l (log-sum-exp so far)"}, run_l{.name = "running sum l"};
    double m = -std::numeric_limits<double>::infinity(), l = 0;
    for (std::int64_t j0 = 0; j0 < Tk; j0 += block) {
        const double m_new = std::max(m, *std::max_element(s.begin() + j0, s.begin() + j0 + block));
        l *= std::exp(m - m_new);  // 0 on the first block (m = −inf): nothing to rescale yet
        for (std::int64_t j = j0; j < j0 + block; ++j) l += std::exp(s[static_cast<std::size_t>(j)] - m_new);
        m = m_new;
        const auto seen = static_cast<double>(j0 + block);
        run_m.x.push_back(seen), run_m.y.push_back(m), run_lse.x.push_back(seen), run_lse.y.push_back(m + std::log(l));
        run_l.x.push_back(seen), run_l.y.push_back(l);
    }
    const double lse = fused.lse.item();
    P::Series w_comp{.name = "composed: softmax row", .markers = false}, w_fused{.name = "fused: exp(s - lse)", .markers = false, .dashed = true};
    double max_diff = 0;
    const std::vector<double> wc = composed.weights.reshape({Tk}).to_vector<double>();
    for (std::int64_t j = 0; j < Tk; ++j) {
        const double rebuilt = std::exp(s[static_cast<std::size_t>(j)] - lse);
        max_diff = std::max(max_diff, std::abs(rebuilt - wc[static_cast<std::size_t>(j)]));
        w_comp.x.push_back(static_cast<double>(j)), w_comp.y.push_back(wc[static_cast<std::size_t>(j)]);
        w_fused.x.push_back(static_cast<double>(j)), w_fused.y.push_back(rebuilt);
    }
    const double out_diff = max(abs(fused.output - composed.output)).item();
    std::printf("   online softmax, one row of %lld keys in blocks of %lld: final m + log l = %.6f, kernel lse = %.6f\n"
                "   weights rebuilt as exp(s - lse) vs the composed softmax: max |difference| = %.2e; outputs: %.2e\n",
                static_cast<long long>(Tk), static_cast<long long>(block), m + std::log(l), lse, max_diff, out_diff);
    result["online_softmax"] = Json::Object{{"keys", Tk}, {"block", block}, {"final_running_lse", m + std::log(l)}, {"kernel_lse", lse},
                                            {"max_abs_diff_weights", max_diff}, {"max_abs_diff_output", out_diff}};
    out.figure(P::hstack({P::line_chart({run_m, run_lse}, {.title = "Running max and log-sum-exp", .x_title = "keys seen",
                                                        .y_title = "scaled score", .plot_width = 260, .plot_height = 200}),
                       P::line_chart({run_l}, {.title = "Running sum l (relative to m)", .x_title = "keys seen",
                                               .y_title = "sum of exp(s - m)", .plot_width = 260, .plot_height = 200}),
                       P::line_chart({w_comp, w_fused}, {.title = "Weights of the row", .x_title = "key j", .y_title = "weight",
                                                         .plot_width = 300, .plot_height = 200})},
                      "Online softmax of one query row, blocks of 8 keys"),
               "online_softmax",
               "Phase 5: the online softmax of one query row, block by block: running max, running sum, and the weights "
               "rebuilt from the log-sum-exp beside the composed softmax.");
}

Json section11_fused_attention(phase::Output& out) {
    Json result = Json::object();
    fused_cost_against_T(out, result);
    online_softmax_of_one_row(out, result);
    return result;
}

}  // namespace attnlab::phase5
