// parallel.hpp — a small persistent thread pool and parallel_for over an index range.
//
// What it is: num_threads()-1 worker threads, created on first use. parallel_for
// cuts [begin, end) into at most num_threads() contiguous chunks of at least
// `grain` indices. Chunk c is always the same index range, so which thread runs
// it never changes a result; threads claim chunks one at a time from a shared
// counter. The caller claims too, right after publishing the job, and keeps
// claiming until none is left: if a worker has not started (it is asleep, or
// the scheduler gave its core to another program), the caller runs that chunk
// itself instead of waiting a scheduler slice for it. It waits only for chunks
// a worker has already started.
//
// Between jobs a worker spins for kSpinMicroseconds (with a pause instruction,
// so it leaves its core's pipeline to the sibling) and then sleeps on a
// condition variable. A job that follows within the spin window starts in well
// under a microsecond. Waking a sleeping worker costs the caller a system call
// and starts the worker's chunk late (tens of microseconds on a virtual machine,
// where the wake is an interrupt to another virtual CPU); the caller does not wait
// for it, and runs the chunk itself if the worker has not started it. The spin is
// bounded so that an idle program costs nothing; pool_counts() says how many jobs
// had to wake a worker.
//
// What it leaves out: dynamic scheduling beyond the caller's claiming, per-job
// priorities, nested parallelism.
//
// Rules worth knowing:
//   * It runs `body` serially, in the calling thread, when only one thread is
//     configured, when the range is shorter than 2*grain, when called from
//     inside another parallel_for body (no nested parallelism, no deadlock),
//     or when another thread is already using the pool.
//   * An exception thrown by `body` in any chunk is caught, the other chunks
//     finish, and the first exception (in chunk order) is rethrown to the caller.
//
// How to extend: a kernel picks a grain large enough that one chunk outweighs
// a few microseconds of hand-off (a cache line bounced between cores, a worker
// that has to be woken); see gemm_kernel.cpp for a measured example.
#pragma once
#include <cstdint>
#include <memory>
#include <type_traits>

namespace attnlab {

// Sets the number of threads parallel_for (and OpenBLAS, in that build) may use,
// the caller included. Throws ValueError if n < 1 or if called from inside a
// parallel_for body.
void set_num_threads(int n);

// The thread count: 1 in reference mode (tensor/reference.hpp), else the configured one. Default: the environment variable
// ATTNLAB_NUM_THREADS if set (parsed by parse_num_threads), else default_thread_count's rule
// (tensor/thread_count.hpp: the physical cores this process may use, at most 8).
int num_threads();

// The value of ATTNLAB_NUM_THREADS as a thread count: a whole number from 1 to
// kMaxThreads. Anything else ("abc", "0", "-3", "4x") is a ValueError naming the
// variable and the value; it is never clamped into range silently.
inline constexpr int kMaxThreads = 1024;
int parse_num_threads(const char* text);

// How many jobs parallel_for has handed to the pool since the program started, how many
// of them found a worker asleep and had to wake it, how long the calling thread spent in
// them (from publishing a job to its last chunk's end) and, of that, waiting for chunks
// that workers had started (bench_workloads reports all four per call: on 2 threads, a
// call's time outside the pool is what runs on one thread). Single-thread runs and serial
// fallbacks count as none of them.
struct PoolCounts {
    std::uint64_t jobs = 0, wakes = 0, job_ns = 0, wait_ns = 0;
};
PoolCounts pool_counts();

// The least arithmetic (in flops) one chunk of a parallel kernel should carry;
// kernels divide it by their flops per index to get parallel_for's grain.
// 2 MFLOP is about 10 us of gemm on one core, ten times the hand-off to a worker that
// is spinning (it spins 1 ms before it sleeps: parallel.cpp). At this floor the toy
// model's [512, 64] x [64, 64] products split in two, which pays on two threads (compare
// with bench/ab.sh --threads "1 2"); a lower floor splits products whose hand-off costs
// more than it saves, and on a loaded machine each split can wait on a preempted worker.
inline constexpr double kMinFlopsPerChunk = 2e6;

// What parallel_for runs: a reference to the caller's callable, not a copy. The body
// is only called before parallel_for returns, so nothing needs to own it, and a
// std::function would allocate for any lambda capturing more than two pointers
// (every kernel's [&]): a malloc and a free per call, tiny tensors included.
class ChunkBody {
public:
    template <typename F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, ChunkBody>)
    ChunkBody(F&& f)  // NOLINT: converts implicitly, so callers pass a lambda as before
        : callable_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_([](void* c, int64_t lo, int64_t hi) { (*static_cast<std::remove_reference_t<F>*>(c))(lo, hi); }) {}
    void operator()(int64_t lo, int64_t hi) const { call_(callable_, lo, hi); }

private:
    void* callable_;
    void (*call_)(void*, int64_t, int64_t);
};

// Calls body(lo, hi) on disjoint chunks that exactly cover [begin, end), each
// chunk at least `grain` long (grain < 1 counts as 1). Nothing happens if end <= begin.
void parallel_for(int64_t begin, int64_t end, int64_t grain, ChunkBody body);

// The least work one chunk of an elementwise kernel (add, exp, a strided copy) should
// carry, in elements. Such kernels move memory rather than compute: 32K floats is 128 KB
// read and 128 KB written, about ten microseconds of traffic, ten times a spinning worker's
// hand-off (about a microsecond). At this floor the [768, 128] activations of nanoGPT's CPU
// recipe (98K floats: residual adds, LayerNorm, bias gradients) split in two, which pays on
// two threads (bench_workloads' nanogpt_cpu_train_step, --threads 1 and 2).
inline constexpr int64_t kMinElementsPerChunk = int64_t{1} << 15;

// parallel_for over `count` indices of `elements_per_index` elements each (a flat loop:
// 1; a walk over rows: the row length), chunks of at least kMinElementsPerChunk elements.
// A range too small to split calls body(0, count) directly: the small tensors of a toy
// model (most of them) then pay no more than a comparison, and their body is inlined
// rather than called through parallel_for's ChunkBody. Elementwise results do not depend
// on where chunks begin, so the bits are the same at any thread count.
template <typename Body>
void parallel_for_elements(int64_t count, int64_t elements_per_index, Body&& body) {
    const int64_t grain = kMinElementsPerChunk / (elements_per_index > 0 ? elements_per_index : 1);
    if (count < 2 * (grain > 0 ? grain : 1)) {
        if (count > 0) body(int64_t{0}, count);
        return;
    }
    parallel_for(0, count, grain, body);
}

}  // namespace attnlab
