// thread_count.hpp — how many threads attnlab uses when ATTNLAB_NUM_THREADS is not set: the
// one rule, default_thread_count, and what it is given, the cores this process may run on.
//
// The rule: one thread per physical core the process may run on (its CPU affinity, as
// taskset or a container sets it), never more than kDefaultThreadCap; at least 1.
//   * Physical cores, not hardware threads: two threads on one core share its multiply-add
//     units, which the GEMM and attention tiles already keep busy, and each extra thread
//     is one more to hand work to and wait for.
//   * The cap: past it, measured scaling stops paying. On a 16-core Xeon
//     (bench/thread_scaling.sh --threads "1 2 4 8 16", docs/performance.md) nanoGPT's CPU
//     step (W7) takes 24.2 ms on 8 threads and 30.1 ms on 16, exact attention forward +
//     backward at T 512 (W8) 3.5 and 5.4 ms, the toy LM step (W4) 3.82 and 4.16 ms: with
//     more threads each share of a product is smaller and the workers more often fall asleep
//     between jobs (W7 on 16 threads wakes a sleeping worker 72 times a step, on 8 twice).
// Small work never reaches the pool at any count: parallel_for splits a range only when
// each thread's share carries kMinFlopsPerChunk or kMinElementsPerChunk (tensor/parallel.hpp),
// so the toy models' small ops run on the calling thread whatever the default.
//
// ATTNLAB_NUM_THREADS=N sets the count instead (1 to kMaxThreads), and set_num_threads at
// run time; reference mode (ATTNLAB_REFERENCE=1) always runs on one thread.
#pragma once
#include <span>
#include <vector>

namespace attnlab {

inline constexpr int kDefaultThreadCap = 8;

// One CPU the process may run on: the physical core it belongs to (a core is a package
// and a core id within it; hardware threads of one core share both).
struct CpuCore {
    int package = 0, core = 0;
};

// The rule above: the number of distinct cores among `cpus`, capped at kDefaultThreadCap,
// at least 1.
int default_thread_count(std::span<const CpuCore> cpus);

// The CPUs of this process's affinity mask with their cores, from Linux's
// /sys/devices/system/cpu/cpuN/topology; a CPU whose topology cannot be read counts as a
// core of its own. Elsewhere: std::thread::hardware_concurrency() CPUs, one core each.
std::vector<CpuCore> usable_cpus();

}  // namespace attnlab
