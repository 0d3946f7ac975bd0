// test_parallel.cpp — the thread pool behind parallel_for: coverage, fallbacks, exceptions;
// the kernels that split over it give the same bits at any thread count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tensor/error.hpp"
#include "tensor/iter.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"
#include "tensor/parallel.hpp"
#include "tensor/thread_count.hpp"
#include "tests/support/tensor_matchers.hpp"
#include "tests/support/thread_count.hpp"

using namespace attnlab;
using attnlab::testing::ThreadCount;

namespace {

// Records every chunk parallel_for hands out, and the threads that ran them.
struct Recorder {
    std::mutex mutex;
    std::vector<std::pair<int64_t, int64_t>> chunks;
    std::set<std::thread::id> threads;
    void add(int64_t lo, int64_t hi) {
        std::lock_guard lock(mutex);
        chunks.emplace_back(lo, hi);
        threads.insert(std::this_thread::get_id());
    }
};

// Holds a chunk until `n` chunks have started (or 5 s pass). Without it, on a
// loaded machine, the caller may finish its chunk and claim the others before
// the workers wake: correct, but then a test of "the workers are used" fails.
void wait_until_started(std::atomic<int>& started, int n) {
    ++started;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (started.load() < n && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
}

}  // namespace

TEST_CASE("parallel_for visits every index exactly once, in chunks of at least grain", "[tensor][parallel]") {
    for (int threads : {1, 2, 3, 5}) {
        ThreadCount tc(threads);
        for (int64_t begin : {0, -7, 100})
            for (int64_t n : {1, 2, 5, 64, 1000})
                for (int64_t grain : {0, 1, 3, 100}) {
                    std::vector<std::atomic<int>> visits(static_cast<size_t>(n));
                    Recorder rec;
                    parallel_for(begin, begin + n, grain, [&](int64_t lo, int64_t hi) {
                        rec.add(lo, hi);
                        for (int64_t i = lo; i < hi; ++i) visits[static_cast<size_t>(i - begin)]++;
                    });
                    INFO("threads=" << threads << " begin=" << begin << " n=" << n << " grain=" << grain);
                    int64_t wrong = 0;
                    for (auto& v : visits) wrong += v.load() != 1;
                    CHECK(wrong == 0);
                    CHECK(rec.chunks.size() <= static_cast<size_t>(threads));
                    if (rec.chunks.size() > 1)
                        for (auto [lo, hi] : rec.chunks) CHECK(hi - lo >= std::max<int64_t>(grain, 1));
                }
    }
}

TEST_CASE("parallel_for really uses the worker threads for a big enough range", "[tensor][parallel]") {
    ThreadCount tc(2);
    Recorder rec;
    std::atomic<int> started{0};
    parallel_for(0, 1000, 1, [&](int64_t lo, int64_t hi) {
        wait_until_started(started, 2);
        rec.add(lo, hi);
    });
    CHECK(rec.chunks.size() == 2);
    CHECK(rec.threads.size() == 2);
    CHECK(rec.threads.count(std::this_thread::get_id()) == 1);  // the caller does a share
}

TEST_CASE("pool_counts counts the jobs handed to the pool, and the wakes of a sleeping worker", "[tensor][parallel]") {
    ThreadCount tc(2);  // set_num_threads stops the workers: the next job starts one afresh
    auto job = [] {     // two chunks, one on each thread
        std::atomic<int> started{0};
        parallel_for(0, 2, 1, [&](int64_t, int64_t) { wait_until_started(started, 2); });
    };
    const PoolCounts start = pool_counts();
    parallel_for(0, 10, 10, [](int64_t, int64_t) {});  // too short to split: runs here, not a job
    CHECK(pool_counts().jobs == start.jobs);
    job();
    CHECK(pool_counts().jobs == start.jobs + 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // far past the worker's 1 ms spin: it sleeps
    const PoolCounts before = pool_counts();
    job();
    CHECK(pool_counts().jobs == before.jobs + 1);
    CHECK(pool_counts().wakes == before.wakes + 1);
}

TEST_CASE("pool_counts times the caller inside jobs, and its wait for a worker's chunk", "[tensor][parallel]") {
    ThreadCount tc(2);
    const std::thread::id caller = std::this_thread::get_id();
    const PoolCounts start = pool_counts();
    parallel_for(0, 10, 10, [](int64_t, int64_t) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); });
    CHECK(pool_counts().job_ns == start.job_ns);  // too short to split: not a job, not timed
    std::atomic<int> started{0};
    parallel_for(0, 2, 1, [&](int64_t, int64_t) {  // one chunk on each thread; the worker's takes 30 ms longer
        wait_until_started(started, 2);
        if (std::this_thread::get_id() != caller) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    });
    const PoolCounts end = pool_counts();
    CHECK(end.wait_ns - start.wait_ns >= 20'000'000);  // the caller's chunk ended at once; it waited for the worker's
    CHECK(end.job_ns - start.job_ns >= end.wait_ns - start.wait_ns);
    CHECK(end.job_ns - start.job_ns < 5'000'000'000);
}

TEST_CASE("parallel_for: a chunk no worker has started is run by the caller", "[tensor][parallel]") {
    // 40 threads on a 2-core machine: most workers are asleep or waiting for a core
    // when the job is published, so the caller ends up claiming their chunks.
    // Every chunk still runs exactly once, each is the fixed range of its index,
    // and the call returns without waiting for the workers that never started.
    ThreadCount tc(40);
    for (int rep = 0; rep < 200; ++rep) {
        std::vector<std::atomic<int>> runs(40);
        std::vector<std::pair<int64_t, int64_t>> seen(40);
        parallel_for(0, 400, 10, [&](int64_t lo, int64_t hi) {
            const size_t c = static_cast<size_t>(lo / 10);
            runs[c]++;
            seen[c] = {lo, hi};
        });
        int64_t wrong = 0;
        for (size_t c = 0; c < runs.size(); ++c)
            wrong += runs[c].load() != 1 || seen[c] != std::make_pair(int64_t(c) * 10, int64_t(c) * 10 + 10);
        INFO("rep " << rep);
        REQUIRE(wrong == 0);
    }
}

TEST_CASE("parallel_for: back-to-back jobs never mix their chunks", "[tensor][parallel]") {
    // Many short jobs in a row: a worker that wakes late for job j must not run a
    // chunk of job j+1 with job j's body, or one of job j+1's chunks twice.
    ThreadCount tc(3);
    for (int job = 0; job < 3000; ++job) {
        std::vector<std::atomic<int>> visits(30);
        parallel_for(0, 30, 1, [&](int64_t lo, int64_t hi) {
            for (int64_t i = lo; i < hi; ++i) visits[static_cast<size_t>(i)] += job + 1;
        });
        int64_t wrong = 0;
        for (auto& v : visits) wrong += v.load() != job + 1;
        INFO("job " << job);
        REQUIRE(wrong == 0);
    }
}

TEST_CASE("parallel_for: a result that depends on the chunk ranges repeats bit for bit", "[tensor][parallel]") {
    // Chunks are fixed by index and thread count, never by which thread runs them,
    // so a running float sum that restarts at each chunk is the same whoever
    // computes it: each thread count's result is compared with its own repeats
    // (the chunk ranges, and so the bits, differ between thread counts on purpose).
    std::vector<float> x(10000);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0f / static_cast<float>(i + 1);
    auto run = [&](int threads) {
        ThreadCount tc(threads);
        std::vector<float> y(x.size());
        parallel_for(0, static_cast<int64_t>(x.size()), 16, [&](int64_t lo, int64_t hi) {
            float acc = 0;
            for (int64_t i = lo; i < hi; ++i) y[static_cast<size_t>(i)] = acc += x[static_cast<size_t>(i)] * 3.0f;
            for (int64_t i = lo; i < hi; ++i) y[static_cast<size_t>(i)] -= acc;  // depends on the chunk's range
        });
        return y;
    };
    for (int threads : {1, 2, 3}) {
        const std::vector<float> first = run(threads);
        for (int rep = 0; rep < 20; ++rep) {
            INFO("threads " << threads << " rep " << rep);
            REQUIRE(std::memcmp(first.data(), run(threads).data(), first.size() * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("parallel_for runs serially on the caller when it should", "[tensor][parallel]") {
    auto expect_one_call_here = [](int64_t begin, int64_t end, int64_t grain) {
        Recorder rec;
        parallel_for(begin, end, grain, [&](int64_t lo, int64_t hi) { rec.add(lo, hi); });
        REQUIRE(rec.chunks.size() == 1);
        CHECK(rec.chunks[0] == std::make_pair(begin, end));
        CHECK(*rec.threads.begin() == std::this_thread::get_id());
    };
    SECTION("one thread configured") {
        ThreadCount tc(1);
        expect_one_call_here(0, 1000, 1);
    }
    SECTION("range shorter than two grains") {
        ThreadCount tc(2);
        expect_one_call_here(0, 10, 10);
        expect_one_call_here(0, 19, 10);
    }
    SECTION("empty and reversed ranges call nothing") {
        ThreadCount tc(2);
        int calls = 0;
        parallel_for(5, 5, 1, [&](int64_t, int64_t) { ++calls; });
        parallel_for(5, 2, 1, [&](int64_t, int64_t) { ++calls; });
        CHECK(calls == 0);
    }
}

TEST_CASE("nested parallel_for runs the inner loop serially inside each chunk", "[tensor][parallel]") {
    ThreadCount tc(2);
    std::vector<std::atomic<int>> visits(100 * 50);
    std::atomic<int> inner_calls{0}, inner_on_other_thread{0};
    parallel_for(0, 100, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
            const auto outer_thread = std::this_thread::get_id();
            parallel_for(0, 50, 1, [&](int64_t jlo, int64_t jhi) {
                ++inner_calls;
                if (std::this_thread::get_id() != outer_thread) ++inner_on_other_thread;
                for (int64_t j = jlo; j < jhi; ++j) visits[static_cast<size_t>(i * 50 + j)]++;
            });
        }
    });
    int64_t wrong = 0;
    for (auto& v : visits) wrong += v.load() != 1;
    CHECK(wrong == 0);
    CHECK(inner_calls == 100);  // one serial call per outer index
    CHECK(inner_on_other_thread == 0);
}

TEST_CASE("an exception in any chunk reaches the caller, and the pool keeps working", "[tensor][parallel]") {
    ThreadCount tc(2);
    using Catch::Matchers::Contains;
    SECTION("thrown in a worker's chunk") {
        CHECK_THROWS_WITH(parallel_for(0, 100, 1,
                                       [](int64_t lo, int64_t) {
                                           if (lo > 0) throw std::runtime_error("worker failed");
                                       }),
                          Contains("worker failed"));
    }
    SECTION("thrown in both chunks: the first chunk's exception wins") {
        CHECK_THROWS_WITH(parallel_for(0, 100, 1,
                                       [](int64_t lo, int64_t) {
                                           throw std::runtime_error(lo == 0 ? "chunk 0" : "chunk 1");
                                       }),
                          Contains("chunk 0"));
    }
    std::atomic<int64_t> sum{0};
    parallel_for(0, 100, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) sum += i;
    });
    CHECK(sum == 4950);
}

TEST_CASE("parallel_for called from two threads at once finishes both", "[tensor][parallel]") {
    ThreadCount tc(2);
    std::vector<std::atomic<int>> a(5000), b(5000);
    auto fill = [](std::vector<std::atomic<int>>& v) {
        for (int rep = 0; rep < 50; ++rep)
            parallel_for(0, static_cast<int64_t>(v.size()), 1, [&](int64_t lo, int64_t hi) {
                for (int64_t i = lo; i < hi; ++i) v[static_cast<size_t>(i)]++;
            });
    };
    std::thread other([&] { fill(a); });
    fill(b);
    other.join();
    int64_t wrong = 0;
    for (size_t i = 0; i < a.size(); ++i) wrong += (a[i].load() != 50) + (b[i].load() != 50);
    CHECK(wrong == 0);
}

TEST_CASE("set_num_threads validates its argument and where it is called", "[tensor][parallel]") {
    ThreadCount tc(2);
    CHECK(num_threads() == 2);
    CHECK_THROWS_AS(set_num_threads(0), ValueError);
    CHECK(num_threads() == 2);
    CHECK_THROWS_AS(parallel_for(0, 100, 1, [](int64_t, int64_t) { set_num_threads(3); }), ValueError);
    CHECK(num_threads() == 2);
    set_num_threads(3);  // growing and shrinking the pool between jobs
    Recorder rec;
    std::atomic<int> started{0};
    parallel_for(0, 300, 1, [&](int64_t lo, int64_t hi) {
        wait_until_started(started, 3);
        rec.add(lo, hi);
    });
    CHECK(rec.threads.size() == 3);
}

TEST_CASE("the parallel kernels give the same bits at 1 and 2 threads", "[tensor][parallel][threads]") {
    // A W2-sized attention block: projections (one big gemm), a batched QKᵀ over
    // B·H small gemms, softmax over rows; forward and backward. The kernels split
    // rows, tiles or batch elements over threads, never a reduction.
    auto run = [](int threads) {
        ThreadCount tc(threads);
        manual_seed(3);
        Tensor x = randn({8, 128, 128}).requires_grad_(), w = randn({128, 384}).requires_grad_();
        Tensor qkv = matmul(x, w).view({8, 128, 3, 8, 16});
        Tensor q = qkv.select(2, 0).transpose(1, 2), k = qkv.select(2, 1).transpose(1, 2);  // [8, 8, 128, 16]
        Tensor a = softmax(matmul(q, k.mT()) * 0.25, -1);                                  // [8, 8, 128, 128]
        Tensor out = matmul(a, qkv.select(2, 2).transpose(1, 2));
        (out * out).sum().backward();
        return std::vector<Tensor>{out.detach(), x.grad(), w.grad()};
    };
    const std::vector<Tensor> one = run(1), two = run(2);
    for (size_t i = 0; i < one.size(); ++i) {
        INFO("tensor " << i);
        REQUIRE(one[i].numel() == two[i].numel());
#ifdef ATTNLAB_OPENBLAS
        // With BLAS=openblas the products are OpenBLAS's, and its threading is its own: with
        // its default kernels on this CPU, a 1024x384x128 sgemm differs in the last bits at 1
        // and 2 threads, and the near-saturated softmax here amplifies that. The promise of
        // same bits is the built-in kernels'; here only closeness, relative to the largest value.
        float largest = 0;
        for (int64_t j = 0; j < one[i].numel(); ++j) largest = std::max(largest, std::abs(one[i].data_ptr<float>()[j]));
        CHECK_THAT(two[i], attnlab::testing::IsCloseTo(one[i], 1e-3 * largest));
#else
        CHECK(std::memcmp(one[i].data_ptr<float>(), two[i].data_ptr<float>(), one[i].numel() * sizeof(float)) == 0);
#endif
    }
}

TEST_CASE("a row walk started at any row visits what the whole walk visits there", "[tensor][parallel][iter]") {
    // The offsets of a walk over [3, 4, 5, 6] with two operands: a transposed one and a broadcast one.
    const Shape shape{3, 4, 5, 6};
    const std::array<Shape, 2> strides{Shape{1, 3, 12, 60}, Shape{0, 6, 0, 1}};
    const std::array<std::int64_t, 2> base{7, 2};
    using Visit = std::array<std::int64_t, 5>;  // offsets, row length, steps
    auto walk = [&](std::int64_t first, std::int64_t last) {
        std::vector<Visit> visits;
        for_each_row_in<2>(shape, strides, base, first, last,
                           [&](const std::array<std::int64_t, 2>& o, std::int64_t n, const std::array<std::int64_t, 2>& st) {
                               visits.push_back({o[0], o[1], n, st[0], st[1]});
                           });
        return visits;
    };
    const std::vector<Visit> all = walk(0, row_count(shape));
    REQUIRE(all.size() == 60);
    CHECK(all[0] == Visit{7, 2, 6, 60, 1});
    CHECK(all[59] == Visit{7 + 2 * 1 + 3 * 3 + 4 * 12, 2 + 3 * 6, 6, 60, 1});  // row (2, 3, 4)
    for (auto [first, last] : std::initializer_list<std::pair<int, int>>{{0, 1}, {1, 60}, {13, 14}, {19, 41}, {59, 60}}) {
        INFO("rows " << first << ".." << last);
        CHECK(walk(first, last) == std::vector<Visit>(all.begin() + first, all.begin() + last));
    }
    CHECK(walk(5, 5).empty());
    CHECK(row_count(Shape{}) == 1);
    CHECK(row_count(Shape{4, 0}) == 0);
}

TEST_CASE("elementwise kernels split over threads without changing a bit", "[tensor][parallel][threads]") {
    // Large enough to split (kMinElementsPerChunk elements per chunk) at a row that is
    // not a multiple of any dim: [71, 8, 300] transposed from [8, 71, 300] has 568 rows.
    auto run = [](int threads) {
        ThreadCount tc(threads);
        manual_seed(5);
        const Tensor x = randn({8, 71, 300}).transpose(0, 1);  // row walks, not flat loops
        const Tensor bias = randn({300}), flat = randn({600, 300});
        return std::vector<Tensor>{exp(x),
                                   x + bias,                      // broadcast rows
                                   flat * flat,                   // flat loop
                                   gelu(flat),                    // vectorised runs
                                   where(gt(x, bias), x, bias),  // three operands
                                   contiguous(x),                 // a strided copy
                                   softmax_backward(softmax(flat, -1), flat, 1),
                                   sum(flat, 0),                  // columns, split by blocks of 32
                                   sum(x, -1),                    // rows
                                   sum(x, 0)};                    // [8 blocks of 71 x 300] columns
    };
    const std::vector<Tensor> one = run(1), two = run(2);
    for (size_t i = 0; i < one.size(); ++i) {
        INFO("result " << i);
        REQUIRE(one[i].numel() == two[i].numel());
        CHECK(std::memcmp(one[i].data_ptr<float>(), two[i].data_ptr<float>(), one[i].numel() * sizeof(float)) == 0);
    }
    // And the split walk is the right one, not only the same: element (70, 7, 299) of x + bias.
    manual_seed(5);
    const Tensor x = randn({8, 71, 300}), bias = randn({300});
    CHECK(two[1].data_ptr<float>()[two[1].numel() - 1] == x.data_ptr<float>()[x.numel() - 1] + bias.data_ptr<float>()[299]);
}

TEST_CASE("default_thread_count: one thread per physical core the process may use, at most 8", "[tensor][parallel][threads]") {
    using Cores = std::vector<CpuCore>;
    CHECK(default_thread_count(Cores{}) == 1);                                  // nothing readable: still one thread
    CHECK(default_thread_count(Cores{{0, 0}}) == 1);
    CHECK(default_thread_count(Cores{{0, 0}, {0, 1}}) == 2);                    // the 2-vCPU VM
    CHECK(default_thread_count(Cores{{0, 0}, {0, 0}, {0, 1}, {0, 1}}) == 2);    // two cores, two hardware threads each
    CHECK(default_thread_count(Cores{{0, 3}, {1, 3}}) == 2);                    // the same core id in two packages: two cores
    Cores xeon;  // 16 cores with 2 hardware threads each: capped where scaling stops paying
    for (int t = 0; t < 2; ++t)
        for (int c = 0; c < 16; ++c) xeon.push_back({0, c});
    CHECK(default_thread_count(xeon) == kDefaultThreadCap);
    CHECK(kDefaultThreadCap == 8);
    Cores six{{0, 0}, {0, 1}, {0, 2}, {0, 4}, {0, 5}, {0, 6}};  // taskset -c to six cores of it
    CHECK(default_thread_count(six) == 6);
}

TEST_CASE("usable_cpus lists at least one CPU, and the default thread count follows from it", "[tensor][parallel][threads]") {
    const std::vector<CpuCore> cpus = usable_cpus();
    REQUIRE_FALSE(cpus.empty());
    const int n = default_thread_count(cpus);
    CHECK(n >= 1);
    CHECK(n <= std::min<int>(kDefaultThreadCap, static_cast<int>(cpus.size())));
}
