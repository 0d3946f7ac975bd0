// bench_sharded_step.cpp — what splitting W4's training step over the batch buys, measured.
//
// W4 (bench/w4.hpp: toy causal LM, batch 16 × T 32, d 64, 2 layers, AdamW) gains little
// from a second thread inside one op: its ops are too small. The coarser split is the batch:
// nn::DataParallel runs S shards of the batch, each on a replica of the model that shares
// its weights but keeps its own gradients, and adds the shard gradients in shard order.
// Training uses it with `tinygpt train --shards S` (TrainConfig::shards; make train keeps 1),
// and bench_workloads' toy_lm_train_step_2shards times it with S = 2. This program compares,
// in one process and interleaved round by round (as docs/performance.md asks):
//   whole   the whole batch in one forward and backward (shards = 1), one thread
//   sharded S shards one after another on one thread (what the split itself costs)
//   sharded S shards at once on --threads threads
// and prints the losses of the three models trained side by side from the same seed: the
// two sharded ones must be the same bits (the program exits 1 if not), the whole one the
// same up to rounding.
//
//   build/bench_sharded_step [--shards 2] [--threads 2] [--rounds 5]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/w4.hpp"
#include "app/options.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"

using namespace attnlab;

namespace {

using bench::kW4Batch, bench::kW4Steps, bench::kW4Warmup, bench::w4_config;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A model, its optimiser and its split; each configuration trains its own, alike.
struct Trainer {
    nn::Transformer model{w4_config(), 0};
    nn::AdamW opt{model.named_parameters(), bench::kW4LearningRate};
    nn::DataParallel parallel;
    double loss = 0;

    explicit Trainer(int shards) : parallel(model, shards) {}
    // Median step time in ms (bench/w4.hpp's loop, as bench_workloads times W4).
    double median_step_ms(const bench::W4Batch& b) {
        const std::vector<double> ms = bench::time_steps([&] { loss = bench::w4_step(parallel, opt, b.x, b.y); });
        return ms[ms.size() / 2];
    }
};

}  // namespace

int main(int argc, char** argv) {
    lab::Options flags("bench_sharded_step",
                       "W4's training step split over the batch: one thread whole, one thread sharded, N threads sharded.");
    flags.add("shards", "S", "2", "shards of the batch of 16 (1 to 16; rows split as evenly as they go)");
    flags.add("threads", "N", "2", "threads for the sharded step run at once");
    flags.add("rounds", "R", "5", "interleaved rounds; each prints its times, then the medians");
    flags.parse(argc, argv);
    const int shards = static_cast<int>(flags.integer("shards", 1, kW4Batch));
    const int threads = static_cast<int>(flags.integer("threads", 1, 256));
    const int rounds = static_cast<int>(flags.integer("rounds", 1, 100));

    const bench::W4Batch batch = bench::w4_batch();

    std::printf("# W4 step: batch %lld x T %lld, %d shards; ms per step, median of %d after %d warm-up\n",
                static_cast<long long>(kW4Batch), static_cast<long long>(bench::kW4T), shards, kW4Steps, kW4Warmup);
    std::vector<double> whole, serial, parallel;
    Trainer a(1), b(shards), c(shards);
    for (int r = 1; r <= rounds; ++r) {
        set_num_threads(1);
        whole.push_back(a.median_step_ms(batch));
        serial.push_back(b.median_step_ms(batch));
        set_num_threads(threads);
        parallel.push_back(c.median_step_ms(batch));
        std::printf("round %d: whole 1 thread %.3f | sharded 1 thread %.3f | sharded %d threads %.3f\n", r, whole.back(),
                    serial.back(), threads, parallel.back());
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
