// thread_count.hpp — a test's thread count (tensor/parallel.hpp), restored on exit.
#pragma once
#include "tensor/parallel.hpp"

namespace attnlab::testing {

class ThreadCount {
public:
    explicit ThreadCount(int n) : prev_(num_threads()) { set_num_threads(n); }
    ~ThreadCount() { set_num_threads(prev_); }
    ThreadCount(const ThreadCount&) = delete;
    ThreadCount& operator=(const ThreadCount&) = delete;

private:
    int prev_;
};

}  // namespace attnlab::testing
