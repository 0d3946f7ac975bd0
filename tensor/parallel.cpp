// parallel.cpp — see parallel.hpp.
//
// One job runs at a time. The caller publishes it under the mutex (body, range,
// chunk count), bumps `generation_` and wakes the workers; worker w runs chunk
// w+1, the caller runs chunk 0, and the last one to finish signals `done_`.
// Workers compare generations rather than waiting on a flag, so a worker that
// oversleeps a job it had no chunk in simply notices the newer generation.
#include "tensor/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tensor/error.hpp"

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
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

std::atomic<int>& configured_threads() {
    static std::atomic<int> n{default_num_threads()};
    return n;
}

class Pool {
public:
    ~Pool() { stop_workers(); }

    // Runs one job on `chunks` threads (caller included); returns when all chunks are done.
    void run(int64_t begin, int64_t n, int chunks, const std::function<void(int64_t, int64_t)>& body) {
        start_workers(chunks - 1);
        {
            std::lock_guard lock(mutex_);
            body_ = &body;
            begin_ = begin;
            n_ = n;
            chunks_ = chunks;
            pending_ = chunks - 1;
            errors_.assign(static_cast<size_t>(chunks), nullptr);
            ++generation_;
        }
        wake_.notify_all();
        run_chunk(0);
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return pending_ == 0; });
        body_ = nullptr;
        for (std::exception_ptr& e : errors_)
            if (e) std::rethrow_exception(e);
    }

    // Joins every worker; the next run() starts as many as it needs.
    void stop_workers() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : workers_) t.join();
        workers_.clear();
        stopping_ = false;
    }

    // Held by whoever is using the pool (a job, or a resize).
    std::mutex& busy() { return busy_; }

private:
    void start_workers(int count) {
        while (static_cast<int>(workers_.size()) < count) {
            // Only run() bumps generation_, and it is the caller here, so this read is
            // stable: the new worker waits for the job about to be published.
            int index = static_cast<int>(workers_.size());
            workers_.emplace_back([this, index, seen = generation_] { worker_loop(index, seen); });
        }
    }

    void worker_loop(int index, uint64_t seen) {
        for (;;) {
            int chunk = index + 1;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
                if (stopping_) return;
                seen = generation_;
                if (chunk >= chunks_) continue;  // this job has fewer chunks than workers
            }
            run_chunk(chunk);
            std::lock_guard lock(mutex_);
            if (--pending_ == 0) done_.notify_one();
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
    std::mutex mutex_;  // guards everything below
    std::condition_variable wake_, done_;
    std::vector<std::thread> workers_;
    uint64_t generation_ = 0;
    bool stopping_ = false;
    const std::function<void(int64_t, int64_t)>* body_ = nullptr;
    int64_t begin_ = 0, n_ = 0;
    int chunks_ = 0, pending_ = 0;
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

int num_threads() { return configured_threads().load(); }

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
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
