// parallel.cpp — see parallel.hpp.
//
// One job runs at a time. The caller writes it (body, range, chunk count), then
// publishes it with one atomic store of `job_` (generation, chunk count, next
// chunk) and wakes any sleeping worker. The caller and the workers claim chunks
// by compare-and-swap on `job_` and count finished ones in `done_`; the caller
// returns when `done_` reaches the chunk count. Nobody waits for a thread that
// has not claimed a chunk, so a descheduled worker costs nothing.
#include "tensor/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tensor/error.hpp"
#include "tensor/reference.hpp"
#include "tensor/thread_count.hpp"

namespace attnlab {

int parse_num_threads(const char* text) {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE)
        throw ValueError(std::string("num_threads: ATTNLAB_NUM_THREADS='") + text + "' is not an integer");
    // 0 or -3 is a mistake, not a request for "as many as you like": say so, never clamp.
    if (n < 1 || n > kMaxThreads)
        throw ValueError(std::string("num_threads: ATTNLAB_NUM_THREADS='") + text + "' is out of range; it must be 1 to " +
                         std::to_string(kMaxThreads));
    return static_cast<int>(n);
}

namespace {

// True while this thread is running a parallel_for body: nested calls run serially.
thread_local bool t_in_parallel_body = false;

struct BodyScope {
    BodyScope() { t_in_parallel_body = true; }
    ~BodyScope() { t_in_parallel_body = false; }
    BodyScope(const BodyScope&) = delete;
    BodyScope& operator=(const BodyScope&) = delete;
};

int default_num_threads() {
    if (const char* env = std::getenv("ATTNLAB_NUM_THREADS")) return parse_num_threads(env);
    return default_thread_count(usable_cpus());  // the rule: tensor/thread_count.hpp
}

std::atomic<int>& configured_threads() {
    static std::atomic<int> n{default_num_threads()};
    return n;
}

// Lets the sibling hardware thread (and the memory system) breathe while spinning.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// How long a worker spins on the job word before sleeping. A W4 training step on
// 2 threads hands the pool 12 jobs, some of them 300-1000 us apart, with the small
// ops between them running serially. `bench_workloads --threads 2 --only
// 'toy_lm_train_step$'` with a 30 us spin: 10.4-10.9 of the 12 woke a sleeping
// worker (pool_wakes_per_iter), and the step took 4.2 ms; 300 us: 5.7-5.9 and 4.0 ms;
// 1000 us: 0-0.1 and 3.6 ms. So a worker spins for a millisecond. That still bounds
// what an idle worker burns after its last job; the OpenMP runtimes spin longer by
// default (libgomp's GOMP_SPINCOUNT, Intel's 200 ms KMP_BLOCKTIME).
constexpr auto kSpinMicroseconds = std::chrono::microseconds(1000);

class Pool {
public:
    ~Pool() { stop_workers(); }

    // Runs one job of `chunks` chunks on the caller and whichever workers turn up;
    // returns when all chunks are done.
    void run(int64_t begin, int64_t n, int chunks, const ChunkBody& body) {
        const auto published = std::chrono::steady_clock::now();
        start_workers(num_threads() - 1);
        body_ = &body;
        begin_ = begin;
        n_ = n;
        chunks_ = chunks;
        errors_.assign(static_cast<size_t>(chunks), nullptr);
        done_.store(0, std::memory_order_relaxed);
        const uint64_t gen = (job_.load(std::memory_order_relaxed) >> 32) + 1;
        job_.store(gen << 32 | uint64_t(chunks) << 16, std::memory_order_seq_cst);  // publishes the fields above
        jobs_.fetch_add(1, std::memory_order_relaxed);
        if (sleepers_.load(std::memory_order_seq_cst) > 0) {
            wakes_.fetch_add(1, std::memory_order_relaxed);
            std::lock_guard lock(mutex_);  // a worker between "no job yet" and wait() holds it
            wake_.notify_all();
        }
        claim_and_run(gen);  // our share first, then anything no worker has started
        const auto claimed_all = std::chrono::steady_clock::now();
        // Every chunk is claimed; the ones left are running on workers that started them.
        for (int spins = 0; done_.load(std::memory_order_acquire) < chunks; ++spins) {
            if (spins < 4096) cpu_relax();
            else std::this_thread::yield();  // a worker was preempted mid-chunk: give it the core
        }
        const auto finished = std::chrono::steady_clock::now();
        job_ns_.fetch_add(nanoseconds(finished - published), std::memory_order_relaxed);
        wait_ns_.fetch_add(nanoseconds(finished - claimed_all), std::memory_order_relaxed);
        body_ = nullptr;
        for (std::exception_ptr& e : errors_)
            if (e) std::rethrow_exception(e);
    }

    // Joins every worker; the next run() starts as many as it needs.
    void stop_workers() {
        {
            std::lock_guard lock(mutex_);
            stopping_.store(true);
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
        workers_.clear();
        stopping_.store(false);
    }

    // Held by whoever is using the pool (a job, or a resize).
    std::mutex& busy() { return busy_; }

    PoolCounts counts() const {
        return {jobs_.load(std::memory_order_relaxed), wakes_.load(std::memory_order_relaxed),
                job_ns_.load(std::memory_order_relaxed), wait_ns_.load(std::memory_order_relaxed)};
    }

private:
    // job_ packs the generation (bits 32-63), the job's chunk count (16-31) and the
    // next unclaimed chunk (0-15), so a claim is one compare-and-swap that also
    // checks it is still the job the claimer saw: a worker that wakes late never
    // takes a chunk of a newer job by mistake. kMaxThreads < 2^16 bounds chunks.
    static_assert(kMaxThreads < (1 << 16));

    // Claims chunks of job `gen` until none is left (or a newer job replaced it) and runs them.
    void claim_and_run(uint64_t gen) {
        uint64_t w = job_.load(std::memory_order_acquire);
        for (;;) {
            if (w >> 32 != gen) return;
            const uint64_t next = w & 0xffff, chunks = (w >> 16) & 0xffff;
            if (next >= chunks) return;
            if (!job_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
            // The job's fields stay put until done_ counts this chunk.
            run_chunk(static_cast<int>(next));
            done_.fetch_add(1, std::memory_order_acq_rel);
            w = job_.load(std::memory_order_acquire);
        }
    }

    void start_workers(int count) {
        while (static_cast<int>(workers_.size()) < count)
            workers_.emplace_back([this, seen = job_.load() >> 32] { worker_loop(seen); });
    }

    void worker_loop(uint64_t seen) {
        for (;;) {
            // Spin a little for the next job, then sleep until run() or stop_workers() wakes us.
            const auto give_up = std::chrono::steady_clock::now() + kSpinMicroseconds;
            uint64_t gen = job_.load(std::memory_order_acquire) >> 32;
            for (int i = 0; gen == seen && !stopping_.load(std::memory_order_relaxed); ++i) {
                cpu_relax();
                if ((i & 63) == 63 && std::chrono::steady_clock::now() > give_up) break;
                gen = job_.load(std::memory_order_acquire) >> 32;
            }
            if (gen == seen) {
                std::unique_lock lock(mutex_);
                sleepers_.fetch_add(1, std::memory_order_seq_cst);
                wake_.wait(lock, [&] { return stopping_.load() || job_.load(std::memory_order_seq_cst) >> 32 != seen; });
                sleepers_.fetch_sub(1, std::memory_order_relaxed);
                gen = job_.load(std::memory_order_acquire) >> 32;
            }
            if (stopping_.load()) return;
            seen = gen;
            claim_and_run(gen);
        }
    }

    // Chunk c of the current job covers [begin + n*c/chunks, begin + n*(c+1)/chunks).
    void run_chunk(int c) {
        int64_t lo = begin_ + n_ * c / chunks_, hi = begin_ + n_ * (c + 1) / chunks_;
        BodyScope scope;
        try {
            (*body_)(lo, hi);
        } catch (...) {
            errors_[static_cast<size_t>(c)] = std::current_exception();  // each chunk owns its slot
        }
    }

    std::mutex busy_;
    std::mutex mutex_;  // pairs with wake_ for sleeping workers
    std::condition_variable wake_;
    std::atomic<int> sleepers_{0};
    std::atomic<bool> stopping_{false};
    std::vector<std::thread> workers_;
    std::atomic<uint64_t> job_{0};
    std::atomic<int> done_{0};
    // Written by run() alone (under busy_), read by anyone.
    std::atomic<uint64_t> jobs_{0}, wakes_{0}, job_ns_{0}, wait_ns_{0};
    static uint64_t nanoseconds(std::chrono::steady_clock::duration d) {
        return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
    }
    // The job, written by run() before it publishes job_, read by claimers after a claim.
    const ChunkBody* body_ = nullptr;
    int64_t begin_ = 0, n_ = 0;
    int chunks_ = 0;
    std::vector<std::exception_ptr> errors_;
};

Pool& pool() {
    static Pool p;
    return p;
}

}  // namespace

void set_num_threads(int n) {
    if (n < 1) throw ValueError("set_num_threads: n must be at least 1, got " + std::to_string(n));
    if (t_in_parallel_body) throw ValueError("set_num_threads: cannot be called inside a parallel_for body");
    std::lock_guard lock(pool().busy());
    configured_threads().store(n);
    pool().stop_workers();  // idle threads beyond the new count would only cost memory
}

// Reference mode (tensor/reference.hpp) reads the formulas on one thread, whatever is configured.
int num_threads() { return reference_mode() ? 1 : configured_threads().load(); }

PoolCounts pool_counts() { return pool().counts(); }

void parallel_for(int64_t begin, int64_t end, int64_t grain, ChunkBody body) {
    if (end <= begin) return;
    int64_t n = end - begin;
    int64_t chunks = std::min<int64_t>(num_threads(), n / std::max<int64_t>(grain, 1));
    if (chunks <= 1 || t_in_parallel_body) {
        body(begin, end);
        return;
    }
    std::unique_lock lock(pool().busy(), std::try_to_lock);
    if (!lock.owns_lock()) {  // another thread's job is running: do ours here rather than queue
        body(begin, end);
        return;
    }
    pool().run(begin, n, static_cast<int>(chunks), body);
}

}  // namespace attnlab
