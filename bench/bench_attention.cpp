// bench_attention.cpp — attention's two paths, time and memory against T.
//
//   W3   forward, B 1, H 8, d_k 64, no grad:
//          attn_fwd_T{T}       composed: softmax(q kᵀ/√d_k) v via scaled_dot_product_attention
//          flash_fwd_T{T}      fused: flash_attention (nn/flash_attention.hpp)
//   W3b  forward + backward of the same, q, k, v requiring grad, upstream gradient fixed:
//          attn_fwd_bwd_T{T}   flash_fwd_bwd_T{T}
//
// Each line: median ms per call (min..max over 7 repetitions after warm-up; lab::time_median,
// the loop torch_peer.py uses), GFLOP/s against the model's flops (forward 4·T²·d_k·H: q kᵀ
// and weights·v; forward + backward 3× that: the backward's dq, dk, dv, dweights), and the
// peak extra bytes of tensor storage one call needed beyond its inputs (peak_extra_MB),
// measured with the allocator's counters (tensor/allocator.hpp; the fused kernel's scratch
// is tensors too), split into what the call leaves behind (kept_MB: q, k, v's gradients;
// the forward's output is dropped at once) and the rest (work_MB = peak − kept: scores,
// weights, the output kept for backward, scratch, the engine's copies of the gradients),
// and the median process CPU time per call (cpu_ms: steadier than wall time on a shared
// machine; at 2 threads it is both threads' time added up).
// The two paths run back to back for each T, so a busy machine slows both alike.
//
// Usage: build/bench_attention [--threads N] [--max-t T] [--composed-max-t T] [--reps N]
//   --max-t           largest T (default 4096; T runs 64, 128, ... up to it)
//   --composed-max-t  largest T for the composed path (default 4096 forward; its
//                     forward + backward stops one step earlier: > 3 GB at T 4096)
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "autograd/node.hpp"
#include "nn/attention.hpp"
#include "experiments/attention_cost.hpp"
#include "nn/flash_attention.hpp"
#include "tensor/allocator.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"

using namespace attnlab;

namespace {

constexpr std::int64_t H = 8, d_k = 64;

// Median process CPU time of one call (all threads together), over `reps` calls. On a
// shared machine wall time also counts the time other jobs held the core; CPU time
// does not, so it is the steadier number to compare across runs.
template <typename F>
double cpu_ms_median(F&& fn, int reps) {
    auto now = [] {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
    };
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
        const double t0 = now();
        fn();
        ms.push_back(now() - t0);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// `reset` drops what a previous call left (the gradients) before memory is measured, so
// that their release inside the call does not hide as much new memory.
template <typename F, typename R>
void measure(const std::string& name, F&& fn, R&& reset, int reps, double rep_s, double flops) {
    const lab::Timing t = lab::time_median(fn, reps, rep_s);
    reset();
    const std::size_t before = storage_bytes_in_use();
    const double bytes = peak_extra_storage_bytes(fn), kept = static_cast<double>(storage_bytes_in_use() - before);
    const double cpu = cpu_ms_median(fn, reps), MB = 1 << 20;
    std::printf("%s: %.4f ms (%.4f..%.4f)  GFLOPs=%.1f  peak_extra_MB=%.2f  kept_MB=%.2f  work_MB=%.2f  cpu_ms=%.4f  "
                "cpu_GFLOPs=%.1f\n",
                name.c_str(), t.median_ms, t.min_ms, t.max_ms, flops / (t.median_ms * 1e6), bytes / MB, kept / MB,
                (bytes - kept) / MB, cpu, flops / (cpu * 1e6));
    std::fflush(stdout);
}


}  // namespace

int main(int argc, char** argv) {
    lab::Options opt("bench_attention", "Self-attention forward and backward times, B 1, H 8, d_k 64, T = 64, 128, ... "
                                        "(the composed reference and the fused flash kernel).");
    opt.add("threads", "N", "1", "threads of the parallel kernels");
    opt.add("max-t", "T", "4096", "the longest sequence timed");
    opt.add("composed-max-t", "T", "4096", "the longest sequence the composed reference is timed at (0: never)");
    opt.add("reps", "N", "7", "timed repetitions per point (the median is printed)");
    opt.parse(argc, argv);
    const int threads = static_cast<int>(opt.integer("threads", 1, 256)), reps = static_cast<int>(opt.integer("reps", 1, 1000));
    const std::int64_t max_t = opt.integer("max-t", 1, 1 << 20), composed_max_t = opt.integer("composed-max-t", 0, 1 << 20);
    set_num_threads(threads);
    std::printf("# attnlab bench_attention threads=%d B=1 H=%lld d_k=%lld\n", threads, static_cast<long long>(H),
                static_cast<long long>(d_k));
    for (std::int64_t T = 64; T <= max_t; T *= 2) {
        manual_seed(0);
        const Tensor q = randn({1, H, T, d_k}), k = randn({1, H, T, d_k}), v = randn({1, H, T, d_k}), g = randn({1, H, T, d_k});
        const double fwd_flops = 4.0 * double(T) * double(T) * d_k * H;
        const double rep_s = T >= 1024 ? 0.0 : 0.15;  // big T: one call per repetition
        {
            NoGradGuard no_grad;
            auto composed = [&] { nn::scaled_dot_product_attention(q, k, v); };
            auto fused = [&] { nn::flash_attention(q, k, v); };
            auto nothing = [] {};
            if (T <= composed_max_t) measure("attn_fwd_T" + std::to_string(T), composed, nothing, reps, rep_s, fwd_flops);
            measure("flash_fwd_T" + std::to_string(T), fused, nothing, reps, rep_s, fwd_flops);
        }
        Tensor qg = q.detach().requires_grad_(), kg = k.detach().requires_grad_(), vg = v.detach().requires_grad_();
        auto zero_grads = [&] { qg.zero_grad(), kg.zero_grad(), vg.zero_grad(); };
        auto step = [&](auto attend) {
            return [&, attend] {
                zero_grads();
                attend().backward(g);
            };
        };
        auto composed = step([&] { return nn::scaled_dot_product_attention(qg, kg, vg).output; });
        auto fused = step([&] { return nn::flash_attention(qg, kg, vg); });
        if (T < composed_max_t) measure("attn_fwd_bwd_T" + std::to_string(T), composed, zero_grads, reps, rep_s, 3 * fwd_flops);
        measure("flash_fwd_bwd_T" + std::to_string(T), fused, zero_grads, reps, rep_s, 3 * fwd_flops);
    }
    return 0;
}
