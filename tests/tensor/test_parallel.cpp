// test_parallel.cpp — the thread pool behind parallel_for: coverage, fallbacks, exceptions.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tensor/error.hpp"
#include "tensor/parallel.hpp"

using namespace attnlab;

namespace {

// Saves and restores the thread count around a test.
struct ThreadCount {
    int saved = num_threads();
    explicit ThreadCount(int n) { set_num_threads(n); }
    ~ThreadCount() { set_num_threads(saved); }
};

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
    parallel_for(0, 1000, 1, [&](int64_t lo, int64_t hi) { rec.add(lo, hi); });
    CHECK(rec.chunks.size() == 2);
    CHECK(rec.threads.size() == 2);
    CHECK(rec.threads.count(std::this_thread::get_id()) == 1);  // the caller does a share
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
    parallel_for(0, 300, 1, [&](int64_t lo, int64_t hi) { rec.add(lo, hi); });
    CHECK(rec.threads.size() == 3);
}
