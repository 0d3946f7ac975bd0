// parallel.hpp — a small persistent thread pool and parallel_for over an index range.
//
// What it is: num_threads()-1 worker threads, created on first use, that sleep
// on a condition variable between jobs (no spinning: on a 2-core machine a
// spinning worker would steal the core the caller needs). parallel_for cuts
// [begin, end) into at most num_threads() contiguous chunks of at least `grain`
// indices; the calling thread runs the first chunk itself, workers the rest,
// and the call returns when every chunk is done.
//
// What it leaves out: work stealing, dynamic scheduling, per-job priorities.
// Chunks are static and equal, which suits the regular kernels that use it
// (gemm, elementwise, softmax) and keeps "which thread computes what" a pure
// function of the range and the thread count.
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
// the cost of waking a worker (tens of microseconds); see gemm_kernel.cpp for
// a measured example.
#pragma once
#include <cstdint>
#include <functional>

namespace attnlab {

// Sets the number of threads parallel_for (and OpenBLAS, in that build) may use,
// the caller included. Throws ValueError if n < 1 or if called from inside a
// parallel_for body.
void set_num_threads(int n);

// The configured thread count. Default: the environment variable
// ATTNLAB_NUM_THREADS if set (parsed by parse_num_threads), else
// std::thread::hardware_concurrency() (at least 1).
int num_threads();

// The value of ATTNLAB_NUM_THREADS as a thread count: a whole number from 1 to
// kMaxThreads. Anything else ("abc", "0", "-3", "4x") is a ValueError naming the
// variable and the value; it is never clamped into range silently.
inline constexpr int kMaxThreads = 1024;
int parse_num_threads(const char* text);

// Calls body(lo, hi) on disjoint chunks that exactly cover [begin, end), each
// chunk at least `grain` long (grain < 1 counts as 1). Nothing happens if end <= begin.
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& body);

}  // namespace attnlab
