// bench_sharded_step.cpp — what data parallelism would buy the W4 training step, measured.
//
// W4 (bench/w4.hpp: toy causal LM, batch 16 × T 32, d 64, 2 layers, AdamW) gains
// little from a second thread today: its kernels are split one op at a time, and the ops
// are too small for two threads to pay. The coarser split is the batch. Here the step runs
// as S shards of 16/S sequences, each on its own replica of the model whose parameters
// share the main model's storage (so AdamW's in-place update reaches every replica) but
// keep their own gradients (so two backward passes never add into one tensor at once).
// A shard's loss is its mean cross-entropy times 1/S, so the shard gradients sum to the
// whole batch's; they are added in shard order, then AdamW steps the main model.
//
// Compared in one process, interleaved round by round (as the README's speed table asks):
//   whole   the step as bench_workloads times it, one thread
//   sharded S shards one after another on one thread (what the split itself costs)
//   sharded S shards at once on --threads threads (one parallel_for over the shards;
//           each shard's own ops run serially inside it)
// and, per shard, how long its forward + backward took and how long the serial tail
// (summing the shard gradients, AdamW) took. The losses of a whole and a sharded model
// trained side by side from the same seed are printed too: the same up to rounding.
//
// The split changes the order in which gradients are summed, so adopting it in training
// would change the trained models' bits (and every number the phases print from them);
// this program measures what the change would buy before anyone pays for that.
//
//   build/bench_sharded_step [--shards 2] [--threads 2] [--rounds 5]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/w4.hpp"
#include "lab/options.hpp"
#include "nn/loss.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"

using namespace attnlab;
using Clock = std::chrono::steady_clock;

namespace {

using bench::kW4Batch, bench::kW4Steps, bench::kW4Warmup, bench::w4_config;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A model, its optimiser, and (when sharded) its replicas and their slices of the batch.
struct Trainer {
    nn::Transformer model{w4_config(), 0};
    nn::AdamW opt{model.named_parameters(), bench::kW4LearningRate};
    std::vector<std::unique_ptr<nn::Transformer>> replicas;
    std::vector<Tensor> xs, ys;
    std::vector<double> shard_ms;
    // The parameter lists, walked once here rather than on every step inside the timed tail.
    std::vector<Tensor> own;
    std::vector<std::vector<Tensor>> theirs;
    double tail_ms = 0, loss = 0;

    Trainer(const Tensor& x, const Tensor& y, int shards) {
        own = model.parameters();
        const std::int64_t rows = kW4Batch / shards;
        for (int s = 0; s < shards; ++s) {
            replicas.push_back(std::make_unique<nn::Transformer>(w4_config(), 0));
            theirs.push_back(replicas.back()->parameters());
            for (std::size_t i = 0; i < own.size(); ++i)
                theirs.back()[i].set_data(own[i].detach());  // the replica's own leaf, now viewing our storage
            xs.push_back(x.narrow(0, s * rows, rows).contiguous());
            ys.push_back(y.narrow(0, s * rows, rows).contiguous());
        }
        shard_ms.assign(static_cast<std::size_t>(shards), 0.0);
    }

    // The step as bench_workloads times it.
    void whole_step(const Tensor& x, const Tensor& y) { loss = bench::w4_step(model, opt, x, y); }

    void sharded_step() {
        const int shards = static_cast<int>(replicas.size());
        std::vector<double> losses(replicas.size());
        for (auto& r : replicas) r->zero_grad();
        parallel_for(0, shards, 1, [&](std::int64_t lo, std::int64_t hi) {
            for (std::int64_t s = lo; s < hi; ++s) {
                const auto t0 = Clock::now();
                Tensor l = nn::cross_entropy(replicas[s]->forward(xs[s]), ys[s]) * (1.0 / shards);
                l.backward();
                losses[s] = l.item();
                shard_ms[s] += ms_since(t0);
            }
        });
        const auto t0 = Clock::now();
        for (std::size_t i = 0; i < own.size(); ++i) {
            Tensor g = theirs[0][i].grad();
            for (int s = 1; s < shards; ++s) g = add(g, theirs[s][i].grad());  // shard order, fixed
            own[i].set_grad(g);
        }
        opt.step();
        tail_ms += ms_since(t0);
        loss = 0;
        for (double l : losses) loss += l;
    }
};

// Median step time in ms (bench/w4.hpp's loop, as bench_workloads times W4).
template <typename Step>
double median_step_ms(Step&& step) {
    const std::vector<double> ms = bench::time_steps(step);
    return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    lab::Options flags("bench_sharded_step",
                       "W4's training step split over the batch: one thread whole, one thread sharded, N threads sharded.");
    flags.add("shards", "S", "2", "shards of the batch of 16 (a divisor of 16)");
    flags.add("threads", "N", "2", "threads for the sharded step run at once");
    flags.add("rounds", "R", "5", "interleaved rounds; each prints its times, then the medians");
    flags.parse(argc, argv);
    const int shards = static_cast<int>(flags.integer("shards", 1, kW4Batch));
    const int threads = static_cast<int>(flags.integer("threads", 1, 256));
    const int rounds = static_cast<int>(flags.integer("rounds", 1, 100));
    if (kW4Batch % shards != 0) flags.fail("shards", std::to_string(shards) + " does not divide the batch of 16");

    const bench::W4Batch batch = bench::w4_batch();
    const Tensor &x = batch.x, &y = batch.y;

    std::printf("# W4 step: batch %lld x T %lld, %d shards; ms per step, median of %d after %d warm-up\n",
                static_cast<long long>(kW4Batch), static_cast<long long>(bench::kW4T), shards, kW4Steps, kW4Warmup);
    std::vector<double> whole, serial, parallel;
    Trainer a(x, y, shards), b(x, y, shards), c(x, y, shards);  // one per configuration, trained alike
    // Per step: each shard's forward + backward, then the serial tail (summing the gradients, AdamW).
    auto parts = [&](Trainer& t) {
        std::string out;
        char buf[48];
        for (int s = 0; s < shards; ++s) {
            std::snprintf(buf, sizeof buf, "shard %d %.3f, ", s, t.shard_ms[s] / (kW4Warmup + kW4Steps));
            out += buf;
        }
        std::snprintf(buf, sizeof buf, "tail %.3f", t.tail_ms / (kW4Warmup + kW4Steps));
        std::fill(t.shard_ms.begin(), t.shard_ms.end(), 0.0);
        t.tail_ms = 0;
        return out + buf;
    };
    for (int r = 1; r <= rounds; ++r) {
        set_num_threads(1);
        whole.push_back(median_step_ms([&] { a.whole_step(x, y); }));
        serial.push_back(median_step_ms([&] { b.sharded_step(); }));
        set_num_threads(threads);
        parallel.push_back(median_step_ms([&] { c.sharded_step(); }));
        std::printf("round %d: whole 1 thread %.3f | sharded 1 thread %.3f (%s) | sharded %d threads %.3f (%s)\n", r,
                    whole.back(), serial.back(), parts(b).c_str(), threads, parallel.back(), parts(c).c_str());
    }
    const double w = median(whole), s1 = median(serial), sn = median(parallel);
    std::printf("median: whole 1 thread %.3f ms | sharded 1 thread %.3f ms (%.2fx) | sharded %d threads %.3f ms (%.2fx)\n", w,
                s1, w / s1, threads, sn, w / sn);
    const int steps = rounds * (kW4Warmup + kW4Steps);
    std::printf("loss after %d steps: whole %.6f, sharded %.6f and %.6f (|difference| %.1e)\n", steps, a.loss, b.loss, c.loss,
                std::max(std::fabs(a.loss - b.loss), std::fabs(a.loss - c.loss)));
    // Each shard's ops run serially, whichever thread runs it: with the built-in gemm the
    // thread count moves no bit. OpenBLAS (BLAS=openblas) sums in an order that depends on
    // its own thread count, so there the two agree only up to rounding, as the whole step does.
#ifdef ATTNLAB_OPENBLAS
    constexpr bool kPromisesBits = false;
#else
    constexpr bool kPromisesBits = true;
#endif
    std::printf("sharded on 1 and on %d threads: %s%s\n", threads, b.loss == c.loss ? "the same bits" : "different bits",
                kPromisesBits ? "" : " (OpenBLAS build: the bits are not promised)");
    return kPromisesBits && b.loss != c.loss ? 1 : 0;
}
