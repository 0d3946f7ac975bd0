// attention_cost.cpp — see attention_cost.hpp.
#include "experiments/attention_cost.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

namespace attnlab::lab {

Timing time_median(const std::function<void()>& fn, int reps, double rep_seconds, double warmup_seconds) {
    using Clock = std::chrono::steady_clock;
    auto seconds_since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    const auto t0 = Clock::now();
    int n = 0;
    while (n < 3 || seconds_since(t0) < warmup_seconds) fn(), ++n;  // warm-up: caches, allocator, page faults
    const double per_call = seconds_since(t0) / n;
    const int inner = std::max(1, static_cast<int>(rep_seconds / std::max(per_call, 1e-9)));
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        const auto t = Clock::now();
        for (int i = 0; i < inner; ++i) fn();
        ms.push_back(seconds_since(t) * 1e3 / inner);
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front(), ms.back()};
}

AttentionCost measure_attention_cost(std::int64_t T, std::int64_t B, std::int64_t H, std::int64_t d_k, double rep_seconds,
                                     double warmup_seconds) {
    NoGradGuard no_grad;
    Generator gen(0);
    const std::int64_t d_model = H * d_k;
    const Tensor q = randn({B, H, T, d_k}, kFloat32, gen), k = randn({B, H, T, d_k}, kFloat32, gen),
                 v = randn({B, H, T, d_k}, kFloat32, gen);
    const Tensor x = randn({B, T, d_model}, kFloat32, gen), w = randn({d_model, d_model}, kFloat32, gen);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d_k));
    AttentionCost cost;
    cost.T = T;
    cost.core = time_median([&] { matmul(softmax(matmul(q, k.mT()) * scale, -1), v); }, 7, rep_seconds, warmup_seconds);  // [B, H, T, T] twice
    cost.projections = time_median([&] {
        for (int i = 0; i < 4; ++i) matmul(x, w.mT());  // W_Q, W_K, W_V, W_O: [B, T, d_model] each
    }, 7, rep_seconds, warmup_seconds);
    cost.score_bytes = static_cast<double>(B * H * T * T) * sizeof(float);
    return cost;
}

}  // namespace attnlab::lab
