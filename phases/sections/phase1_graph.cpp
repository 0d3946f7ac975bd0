// phase1_graph.cpp — the bodies of phases/phase1_graph.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase1_graph.hpp"

#include <cstdlib>
#include <sstream>

#include "autograd/graph.hpp"
#include "autograd/node.hpp"
#include "autograd/trace.hpp"
#include "analyses/graph_view.hpp"

namespace attnlab::phase1 {

using namespace attnlab::phase;

void section9_graph_backward_walks(Frame& f, const nn::MultiHeadAttention& attn, const Tensor& X) {
    section("9. The graph backward() walks, and the ops as they run");
    const bool was_recording = GradMode::enabled();
    GradMode::set_enabled(true);  // phase 1 reads under NoGradGuard; this step records on purpose
    const std::int64_t T = X.size(0);
    Generator gen(f.seed);
    // The layer's projections taken as one head: for a single-head layer that is the head
    // itself (d_k = d_model); a multi-head layer's heads would be slices of these columns.
    const std::int64_t width = attn.w_v.weight.size(0);
    const Tensor R = randn({T, width}, X.dtype(), gen);  // (T, width)
    std::ostringstream trace;
    Graph graph;
    {
        TraceGuard tracing(trace);
        const Tensor q = attn.w_q.forward(X), k = attn.w_k.forward(X), v = attn.w_v.forward(X);  // (T, width) each
        const nn::AttentionResult head = nn::scaled_dot_product_attention(q, k, v, nn::Mask::causal(T));  // (T, width)
        const Tensor L = sum(head.output * R);  // []
        std::vector<std::pair<std::string, Tensor>> names{{"X (input)", X}, {"R (fixed)", R}};
        for (const nn::NamedParameter& np : attn.named_parameters()) names.emplace_back(np.name, np.tensor);
        graph = extract_graph(L, names, /*retain=*/true);
        L.backward();
    }
    graph.read_grad_norms();
    for (nn::NamedParameter np : attn.named_parameters()) np.tensor.zero_grad();  // the model stays as loaded
    GradMode::set_enabled(was_recording);

    const std::string lines = trace.str();
    write_file_atomic(f.out.dir() + "/one_head_trace.txt", lines);
    // Print the attention core both ways: ops #11..#15 (scores, scale, mask, softmax, weighted
    // sum) as they run forward, then as backward reaches them.
    std::istringstream in(lines);
    std::size_t fwd = 0, bwd = 0;
    std::string core;
    for (std::string line; std::getline(in, line);) {
        (line.rfind("fwd", 0) == 0 ? fwd : bwd) += 1;
        const std::size_t hash = line.find('#');
        const long op = hash == std::string::npos ? 0 : std::strtol(line.c_str() + hash + 1, nullptr, 10);
        if (op >= 11 && op <= 15) core += line + "\n";
    }
    std::printf("op trace (as ATTNLAB_TRACE=1 prints it): %zu forward ops, %zu backward steps, all in "
                "%s/one_head_trace.txt; the attention core (#11..#15):\n%s",
                fwd, bwd, f.out.dir().c_str(), core.c_str());
    std::printf("graph: %zu ops and %zu leaves; backward() visits them in the order step 1..%zu\n", graph.op_count(),
                graph.nodes.size() - graph.op_count(), graph.op_count());
    f.m["graph"] = Json::Object{{"ops", static_cast<std::int64_t>(graph.op_count())},
                                {"leaves", static_cast<std::int64_t>(graph.nodes.size() - graph.op_count())},
                                {"trace_forward_ops", static_cast<std::int64_t>(fwd)},
                                {"trace_backward_steps", static_cast<std::int64_t>(bwd)}};
    lab::GraphViewOptions go;
    go.title = "The graph backward() walks: one head, L = sum(output * R)";
    go.shade_by_grad = true;
    f.out.figure(lab::draw_graph(graph, go), "autograd_graph",
                 "Phase 1, step 9: the autograd graph of one attention head (causal mask) reduced to L = sum(output * R); "
                 "step n is the op's place in backward()'s order (step 1 runs first), below it the output shape; leaves are "
                 "parameters (green) and constants (grey); red shading is |dL/d(output)| on a log scale.");
}

}  // namespace attnlab::phase1
