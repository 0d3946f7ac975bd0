// w4.hpp — workload W4, the toy causal LM training step, as both programs that time it
// run it (bench_workloads.cpp beside PyTorch, bench_sharded_step.cpp split over the batch):
// the model, the batch, one step and the timing loop, defined once so the two measure
// the same thing. torch_peer.py times the same step for PyTorch (the same model, shapes and
// AdamW), but on a fresh random batch each step: the work is the same, the losses are not.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "nn/data_parallel.hpp"
#include "nn/optim.hpp"
#include "nn/transformer.hpp"
#include "tensor/rng.hpp"

namespace attnlab::bench {

constexpr std::int64_t kW4Batch = 16, kW4T = 32;
constexpr double kW4LearningRate = 3e-4;  // AdamW
constexpr int kW4Warmup = 10, kW4Steps = 50;

// vocab 64, d_model 64, 4 heads, 2 layers, context 32, causal (W6 generates with it too).
inline nn::TransformerConfig w4_config() {
    nn::TransformerConfig c;
    c.vocab_size = 64, c.d_model = 64, c.n_heads = 4, c.n_layers = 2, c.context = kW4T, c.causal = true;
    return c;
}

// The batch: 16 random sequences of 33 tokens from a fixed seed; y is x shifted by one.
struct W4Batch {
    Tensor x, y;  // [kW4Batch, kW4T] token ids each
};
inline W4Batch w4_batch() {
    Generator gen(1234);
    const Tensor ids = randint(0, 64, {kW4Batch, kW4T + 1}, gen);
    return {ids.narrow(1, 0, kW4T).contiguous(), ids.narrow(1, 1, kW4T).contiguous()};
}

// One training step, as lab::train takes it (nn/data_parallel.hpp: the batch in
// parallel.shards() runs of rows, at once on up to that many threads); returns the loss.
inline double w4_step(nn::DataParallel& parallel, nn::AdamW& opt, const Tensor& x, const Tensor& y) {
    opt.zero_grad();
    const double loss = parallel.forward_backward(x, y);
    opt.step();
    return loss;
}

// Each step's time in ms, sorted, over kW4Steps calls of step() after kW4Warmup: a step is
// milliseconds long, so each is timed alone (no inner loop), and the median is the middle one.
template <typename Step>
std::vector<double> time_steps(Step&& step) {
    using Clock = std::chrono::steady_clock;
    for (int i = 0; i < kW4Warmup; ++i) step();
    std::vector<double> ms;
    for (int i = 0; i < kW4Steps; ++i) {
        const auto t0 = Clock::now();
        step();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms;
}

}  // namespace attnlab::bench
