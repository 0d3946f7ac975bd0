// test_trace_graph.cpp — the op trace (autograd/trace.hpp) and the extracted graph
// (autograd/graph.hpp) of small graphs whose ops and order are known by hand.
#include <catch2/catch.hpp>
#include <algorithm>
#include <sstream>

#include "autograd/graph.hpp"
#include "autograd/node.hpp"
#include "autograd/trace.hpp"
#include "analyses/graph_view.hpp"
#include "nn/attention.hpp"
#include "nn/transformer.hpp"
#include "tensor/ops.hpp"
#include "tensor/rng.hpp"

using namespace attnlab;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The op name of a trace line: "fwd #3   matmul ..." -> "matmul"; "bwd 2/9  #7 softmax ..." -> "softmax".
std::string op_of(const std::string& line) {
    std::istringstream in(line);
    std::string kind, number, name;
    in >> kind >> number >> name;
    if (kind == "bwd") in >> name;
    return name;
}

}  // namespace

TEST_CASE("a TraceGuard captures one attention head's forward, then backward in the engine's order",
          "[autograd][trace]") {
    Generator gen(7);
    const Tensor X = randn({3, 4}, kFloat64, gen);  // (T, d_model), a constant
    Tensor W_q = randn({4, 4}, kFloat64, gen).requires_grad_(), W_k = randn({4, 4}, kFloat64, gen).requires_grad_(),
           W_v = randn({4, 4}, kFloat64, gen).requires_grad_();
    std::ostringstream captured;
    {
        TraceGuard trace(captured);
        const Tensor q = matmul(X, W_q), k = matmul(X, W_k), v = matmul(X, W_v);
        const nn::AttentionResult head = nn::scaled_dot_product_attention(q, k, v, nn::Mask::causal(3));
        sum(head.output * 1.0).backward();
    }
    const std::vector<std::string> lines = lines_of(captured.str());
    std::vector<std::string> fwd, bwd;
    for (const std::string& l : lines) (l.rfind("fwd", 0) == 0 ? fwd : bwd).push_back(op_of(l));
    // q, k, v projections -> k^T -> scores -> scale -> mask -> softmax -> weighted sum -> loss
    // (to_dtype: the mask's fill value made a tensor; it involves no parameter, so it records no node)
    CHECK(fwd == std::vector<std::string>{"matmul", "matmul", "matmul", "transpose", "matmul", "mul", "to_dtype",
                                          "where", "softmax", "matmul", "mul", "view", "sum", "view"});
    CHECK_THAT(lines[6], Catch::EndsWith("(no grad)"));
    REQUIRE(bwd.size() == fwd.size() - 1);
    // The engine starts at the loss and reaches the value projection (#3) before the softmax's branch.
    CHECK(bwd.front() == "view");
    CHECK(bwd == std::vector<std::string>{"view", "sum", "view", "mul", "matmul", "matmul", "softmax", "where", "mul",
                                          "matmul", "transpose", "matmul", "matmul"});
    // Each line carries its shapes: the scores [3, 3]; the projection's gradient only for W (X needs none).
    CHECK_THAT(lines[8], Catch::Contains("softmax") && Catch::Contains("[3, 3] -> [3, 3]"));
    const auto wv_line = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
        return l.rfind("bwd", 0) == 0 && l.find("#3 matmul") != std::string::npos;
    });
    REQUIRE(wv_line != lines.end());
    CHECK_THAT(*wv_line, Catch::EndsWith("grad [3, 4] -> - [4, 4]"));
}

TEST_CASE("the trace lists ops under NoGradGuard, marked (no grad), and is silent outside its guard",
          "[autograd][trace]") {
    std::ostringstream captured;
    Tensor a = tensor({1.0, 2.0}, kFloat64).requires_grad_();
    {
        TraceGuard trace(captured);
        NoGradGuard no_grad;
        (void)exp(a);  // evaluation: no graph sees it, but the program ran it
    }
    (void)exp(a);  // the guard is gone
    const std::vector<std::string> lines = lines_of(captured.str());
    REQUIRE(lines.size() == 1);
    CHECK(op_of(lines[0]) == "exp");
    CHECK_THAT(lines[0], Catch::EndsWith("(no grad)"));
}

TEST_CASE("a transformer's forward traces the same ops with and without a graph; backward adds no fwd line",
          "[autograd][trace][transformer]") {
    nn::TransformerConfig c;
    c.vocab_size = 11, c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.context = 8;
    nn::Transformer model(c, 3);
    Generator gen(4);
    const Tensor ids = randint(0, 11, {2, 8}, gen);
    auto fwd_ops = [](const std::string& trace) {
        std::vector<std::string> fwd;
        for (const std::string& l : lines_of(trace))
            if (l.rfind("fwd", 0) == 0) fwd.push_back(op_of(l));
        return fwd;
    };
    std::ostringstream recorded_trace, backward_trace, inference_trace;
    Tensor logits;
    {
        TraceGuard trace(recorded_trace);
        logits = model.forward(ids);  // training: every op records its node
    }
    const Tensor loss = sum(logits);
    {
        TraceGuard trace(backward_trace);
        loss.backward();
    }
    {
        TraceGuard trace(inference_trace);
        NoGradGuard no_grad;  // evaluation, generation: the inference path
        (void)model.forward(ids);
    }
    const std::vector<std::string> recorded = fwd_ops(recorded_trace.str()), inference = fwd_ops(inference_trace.str());
    CHECK(inference == recorded);
    CHECK_THAT(inference_trace.str(), Catch::Contains("(no grad)"));
    CHECK(fwd_ops(backward_trace.str()).empty());  // the ops inside backward functions: their bwd lines stand for them
    CHECK_THAT(backward_trace.str(), Catch::Contains("bwd"));
    // every layer's projections (Linear: matmul, then + bias), attention and LayerNorms are there
    CHECK(std::count(inference.begin(), inference.end(), "matmul") == 2 * 6 + 1);
    CHECK(std::count(inference.begin(), inference.end(), "layer_norm") == 2 * 2 + 1);
    CHECK(std::count(inference.begin(), inference.end(), "flash_attention") == 2);
}

TEST_CASE("extract_graph numbers a known graph's ops in backward()'s order", "[autograd][graph]") {
    // a -> b = a*a -> c = exp(b) -> d = b + c -> L = sum(d, 0)
    Tensor a = tensor({0.5, -1.0}, kFloat64).requires_grad_();
    const Tensor b = a * a, c = exp(b), d = b + c, L = sum(d, 0);
    const Graph g = extract_graph(L, {{"a", a}}, /*retain=*/true);
    REQUIRE(g.op_count() + 1 == g.nodes.size());  // one leaf, a
    std::vector<std::string> order;
    for (std::size_t i = 0; i < g.op_count(); ++i) {
        CHECK(g.nodes[i].step == i + 1);
        order.push_back(g.nodes[i].name);
    }
    // depth-first from L: d, then b's branch first (b is d's first input), so c comes before b
    CHECK(order == std::vector<std::string>{"sum", "add", "exp", "mul"});
    CHECK(g.nodes.back().name == "a");
    CHECK(g.nodes.back().kind == GraphNodeKind::parameter);
    CHECK(g.edges.size() == 6);  // a->b twice, b->c, b->d, c->d, d->L

    L.backward();
    Graph shaded = g;
    shaded.read_grad_norms();
    // dL/db = 1 + exp(b), per element; its norm is on the "mul" node
    const double e1 = 1 + std::exp(0.25), e2 = 1 + std::exp(1.0);
    CHECK(shaded.nodes[3].grad_norm == Approx(std::sqrt(e1 * e1 + e2 * e2)).epsilon(1e-12));
    const plots::Figure fig = lab::draw_graph(shaded, {"known graph", true});
    CHECK(fig.width > 0);
}

TEST_CASE("extract_graph refuses a tensor without a graph", "[autograd][graph]") {
    const Tensor leaf = tensor({1.0}, kFloat64);
    CHECK_THROWS_WITH(extract_graph(leaf), Catch::Contains("extract_graph") && Catch::Contains("no grad_fn"));
}
