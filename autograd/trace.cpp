// trace.cpp — the op trace's two printers and its switches (see trace.hpp).
#include "autograd/trace.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <sstream>

#include "autograd/node.hpp"

namespace attnlab {

namespace {

// ATTNLAB_TRACE set to anything but "" or "0" turns the trace on for the whole run.
std::ostream* sink_from_environment() {
    const char* v = std::getenv("ATTNLAB_TRACE");
    return v && *v && std::strcmp(v, "0") != 0 ? &std::cerr : nullptr;
}

thread_local bool t_in_backward_sweep = false;  // TraceBackwardSweep: the engine is running backward functions
std::int64_t op_count = 0;  // ops traced so far: the "#n" of the next one is op_count + 1
std::mutex trace_mutex;     // keeps each line whole

std::string shape_or_dash(const Tensor& t) { return t.defined() ? t.shape().str() : "-"; }

// Pads the op name so that the shapes line up in a column.
std::string padded(const std::string& s, std::size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

void write_line(const std::string& line) {
    std::lock_guard<std::mutex> lock(trace_mutex);
    *trace_sink << line << '\n';
}

}  // namespace

std::ostream* trace_sink = sink_from_environment();

void trace_forward(const char* name, std::span<const Tensor> inputs, const Tensor& out, Node* node) {
    if (t_in_backward_sweep) return;  // part of a backward function: its bwd line stands for it
    const std::int64_t id = ++op_count;
    if (node) node->trace_id = id;
    std::string line = padded("fwd #" + std::to_string(id), 10) + padded(name, 16);
    for (std::size_t i = 0; i < inputs.size(); ++i) line += (i ? " " : "") + shape_or_dash(inputs[i]);
    write_line(line + " -> " + out.shape().str() + (node ? "" : "  (no grad)"));
}

void trace_backward(std::size_t step, std::size_t steps, const Node& node, const Tensor& grad_out,
                    const std::vector<Tensor>& grads) {
    std::string line = padded("bwd " + std::to_string(step) + "/" + std::to_string(steps), 10) +
                       padded((node.trace_id ? "#" + std::to_string(node.trace_id) : std::string("#-")) + " " + node.name, 16) + "grad " +
                       grad_out.shape().str() + " ->";
    for (std::size_t i = 0; i < grads.size(); ++i) {
        const bool wanted = i < node.inputs.size() && node.inputs[i].defined() && node.inputs[i].requires_grad();
        line += " " + (wanted ? shape_or_dash(grads[i]) : std::string("-"));
    }
    write_line(line);
}

TraceBackwardSweep::TraceBackwardSweep() : prev_(t_in_backward_sweep) { t_in_backward_sweep = true; }
TraceBackwardSweep::~TraceBackwardSweep() { t_in_backward_sweep = prev_; }

TraceGuard::TraceGuard(std::ostream& out) : prev_sink_(trace_sink), prev_count_(op_count) {
    trace_sink = &out;
    op_count = 0;
}

TraceGuard::~TraceGuard() {
    trace_sink = prev_sink_;
    op_count = prev_count_;
}

}  // namespace attnlab
