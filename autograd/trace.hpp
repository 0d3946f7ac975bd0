// trace.hpp — watch the ops run: each op printed as it records its node, then each
// backward step in the order the engine takes it, with the shapes that flow.
//
// Two switches: ATTNLAB_TRACE=1 in the environment (read once, at program start;
// the trace goes to stderr so stdout stays the program's own), or a TraceGuard in
// code, which sends the trace to any stream while it lives (a test captures it in
// a std::ostringstream). Forward lines come from record() (node.hpp), the one call
// every differentiable op makes below its forward kernel; backward lines come from
// the engine's sweep (engine.cpp). So there is nothing to add per op, and when the
// trace is off each op pays one pointer test.
//
//   fwd #3    matmul          [6, 64] [64, 64] -> [6, 64]
//   bwd 1/9   #9 sum          grad [] -> [6, 6]
//
// "#3" numbers the ops in the order they ran; a backward line names the forward op
// it undoes by that number, gives dL/d(output)'s shape, then one shape per input
// ("-" where an input needs no gradient). A forward op that records no node (none of
// its inputs requires grad, or recording is off: evaluation, generation under
// NoGradGuard) is marked "(no grad)"; so every op a program runs is listed, on every
// path (a fast kernel that skips the tape, like linear()'s fused bias, is not taken
// while tracing). Left out: the ops a backward function runs inside the engine's sweep,
// which its "bwd" line stands for. One thread at a time: lines from two threads
// tracing at once would interleave (each line is written whole).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <span>
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab {

struct Node;

// Where the trace goes; null when it is off (the one test every op pays).
extern std::ostream* trace_sink;

// Called by record() and by the engine only when trace_sink is set.
void trace_forward(const char* name, std::span<const Tensor> inputs, const Tensor& out, Node* node);
void trace_backward(std::size_t step, std::size_t steps, const Node& node, const Tensor& grad_out,
                    const std::vector<Tensor>& grads);

// RAII: while it lives (the engine's backward sweep, on this thread), ops print no
// forward line.
class TraceBackwardSweep {
public:
    TraceBackwardSweep();
    ~TraceBackwardSweep();
    TraceBackwardSweep(const TraceBackwardSweep&) = delete;
    TraceBackwardSweep& operator=(const TraceBackwardSweep&) = delete;

private:
    bool prev_;
};

// RAII: traces to `out` while it lives, numbering ops from 1; restores the previous
// sink (and its numbering) afterwards, so guards nest.
class TraceGuard {
public:
    explicit TraceGuard(std::ostream& out);
    ~TraceGuard();
    TraceGuard(const TraceGuard&) = delete;
    TraceGuard& operator=(const TraceGuard&) = delete;

private:
    std::ostream* prev_sink_;
    std::int64_t prev_count_;
};

}  // namespace attnlab
