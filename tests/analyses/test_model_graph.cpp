// test_model_graph.cpp — a whole TinyGPT's autograd graph folded one box per module
// (analyses/model_graph, analyses/graph_groups) and drawn (analyses/graph_view): the groups the config
// implies, no op lost or invented, and a picture in which no arrow runs through a box.
#include <catch2/catch.hpp>
#include <algorithm>
#include <set>
#include <sstream>

#include "autograd/node.hpp"
#include "analyses/graph_view.hpp"
#include "analyses/model_graph.hpp"
#include "nn/loss.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

namespace {

nn::TransformerConfig config(std::int64_t layers) {
    nn::TransformerConfig c;
    c.vocab_size = 11, c.d_model = 16, c.n_heads = 4, c.n_layers = layers, c.context = 8;
    return c;
}

const std::vector<std::int64_t> kIds{1, 4, 7, 2, 9, 3};

// Ops of the same forward + loss as the engine sees them: its own topological order.
std::size_t engine_ops(nn::Transformer& model) {
    model.eval();
    model.trace().enabled = true;  // the composed attention, as transformer_graph runs it
    std::ostringstream numbering;
    TraceGuard traced(numbering);  // and the composed MLP (MLP::forward fuses bias + GELU only untraced), as there
    const Tensor input = from_vector(std::vector<std::int64_t>(kIds.begin(), kIds.end() - 1), {1, 5});
    const Tensor targets = from_vector(std::vector<std::int64_t>(kIds.begin() + 1, kIds.end()), {1, 5});
    const Tensor loss = nn::cross_entropy(model.forward(input), targets);
    model.trace().enabled = false;
    return topological_order(loss.impl_ptr()).size();
}

}  // namespace

TEST_CASE("a TinyGPT's graph folds into the module groups its config implies", "[lab][graph]") {
    for (std::int64_t layers : {1, 2}) {
        INFO(layers << " block(s)");
        nn::Transformer model(config(layers), 3);
        const lab::ModelGraph mg = lab::transformer_graph(model, kIds);
        // ungrouped: every op the engine will visit, no more
        CHECK(mg.graph.op_count() == engine_ops(model));
        CHECK(lab::ungrouped(mg.graph).nodes.size() == mg.graph.nodes.size());
        const lab::GroupedGraph g = lab::group_graph(mg.graph, mg.group_of);
        // embedding + 6 per block (ln1, attn, x + attn, ln2, mlp, x + mlp) + ln_f, head, loss;
        // parameters: the two embeddings' + 4 per block (ln1, attn, ln2, mlp) + ln_f's, head's
        std::size_t op_groups = 0, parameter_groups = 0;
        for (std::size_t k = 0; k < g.nodes.size(); ++k) (g.op_count(k) ? op_groups : parameter_groups) += 1;
        CHECK(op_groups == static_cast<std::size_t>(1 + 6 * layers + 3));
        CHECK(parameter_groups == static_cast<std::size_t>(1 + 4 * layers + 2));
        CHECK(g.nodes.size() == op_groups + parameter_groups);  // every leaf is in a group (ids, targets need no grad)
        CHECK(mg.modules.size() == op_groups);
        // the n_heads heads are one batch axis of one attention group, not separate subgraphs
        CHECK(mg.modules[2] == "blocks.0.attn: 4 heads");
        // each op in exactly one group; the loss group ends the graph with |dL/dL| = 1
        std::size_t ops = 0;
        std::set<std::size_t> seen;
        for (std::size_t k = 0; k < g.nodes.size(); ++k) {
            ops += g.op_count(k);
            for (std::size_t i : g.nodes[k].members) CHECK(seen.insert(i).second);
        }
        CHECK(ops == mg.graph.op_count());
        CHECK(seen.size() == mg.graph.nodes.size());
        CHECK(g.nodes[0].label == "loss: cross-entropy");
        REQUIRE(g.outputs(0) == std::vector<std::size_t>{0});
        CHECK(mg.graph.nodes[0].grad_norm == 1.0);
        CHECK(mg.loss == Approx(std::log(11.0)).epsilon(0.05));  // an untrained model: about uniform over 11 tokens
        CHECK(model.tok_emb.weight.grad().defined() == false);  // the model's .grad are left as they were
    }
}

TEST_CASE("every grouped edge stands for an edge of the full graph, and every crossing edge is kept", "[lab][graph]") {
    nn::Transformer model(config(1), 3);
    const lab::ModelGraph mg = lab::transformer_graph(model, kIds);
    for (const std::vector<std::string>& group_of : {mg.group_of, lab::expanded(mg, {mg.modules[2]})}) {
        const lab::GroupedGraph g = lab::group_graph(mg.graph, group_of);
        std::vector<std::size_t> group(mg.graph.nodes.size());
        for (std::size_t k = 0; k < g.nodes.size(); ++k)
            for (std::size_t i : g.nodes[k].members) group[i] = k;
        std::set<std::pair<std::size_t, std::size_t>> crossing;
        for (const GraphEdge& e : mg.graph.edges)
            if (group[e.from] != group[e.to]) crossing.emplace(group[e.from], group[e.to]);
        CHECK(std::set<std::pair<std::size_t, std::size_t>>(g.edges.begin(), g.edges.end()) == crossing);
        CHECK(g.edges.size() == crossing.size());  // each pair once
        // consumers come first: the order draw_graph's columns rely on
        for (const auto& [from, to] : g.edges) CHECK(to < from);
    }
    // The residual stream: the embedding feeds ln1 and, skipping the attention, x + attn.
    const lab::GroupedGraph g = lab::group_graph(mg.graph, mg.group_of);
    auto index = [&](const std::string& label) {
        for (std::size_t k = 0; k < g.nodes.size(); ++k)
            if (g.nodes[k].label == label) return k;
        FAIL("no group " << label);
        return std::size_t(0);
    };
    const std::size_t emb = index("embedding: tok_emb + pos_emb");
    std::set<std::size_t> fed;
    for (const auto& [from, to] : g.edges)
        if (from == emb) fed.insert(to);
    CHECK(fed == std::set<std::size_t>{index("blocks.0.ln1: LayerNorm"), index("blocks.0: x + attn")});
    CHECK(g.op_count(index("blocks.0.attn: w_q, w_k, w_v, w_o")) == 0);  // its parameters' box
}

TEST_CASE("the expanded attention shows its ops one by one and folds the rest", "[lab][graph]") {
    nn::Transformer model(config(1), 3);
    const lab::ModelGraph mg = lab::transformer_graph(model, kIds);
    const lab::GroupedGraph folded = lab::group_graph(mg.graph, mg.group_of);
    const lab::GroupedGraph g = lab::group_graph(mg.graph, lab::expanded(mg, {mg.modules[2]}));
    std::size_t attention_ops = 0, attention_params = 0;
    for (std::size_t k = 0; k < folded.nodes.size(); ++k) {
        if (folded.nodes[k].label == mg.modules[2]) attention_ops = folded.op_count(k);
        if (folded.nodes[k].label == "blocks.0.attn: w_q, w_k, w_v, w_o") attention_params = folded.nodes[k].members.size();
    }
    CHECK(attention_params == 8);  // w_q, w_k, w_v, w_o: weight and bias each
    CHECK(attention_ops > 10);
    // one group and one parameter box opened: each member now a node, plus the constants they read
    CHECK(g.nodes.size() >= folded.nodes.size() - 2 + attention_ops + attention_params);
    CHECK_THROWS_WITH(lab::expanded(mg, {"blocks.7.attn"}), Catch::Contains("no module group 'blocks.7.attn'"));
}

TEST_CASE("the drawn module graph: no box overlaps another and no arrow runs through a box", "[lab][graph]") {
    // One layer's module graph fits across the page; three layers' do not, and are drawn top to bottom.
    const std::int64_t layers = GENERATE(1, 3);
    nn::Transformer model(config(layers), 3);
    const lab::ModelGraph mg = lab::transformer_graph(model, kIds);
    for (const std::vector<std::string>& group_of : {mg.group_of, lab::expanded(mg, {mg.modules[2]})}) {
        const plots::Figure fig = lab::draw_graph(lab::group_graph(mg.graph, group_of), {"TinyGPT", true});
        INFO(layers << " layers: " << fig.width << " x " << fig.height << " px");
        std::vector<plots::Box> boxes;
        std::vector<const plots::Arrow*> arrows;
        for (const plots::Primitive& p : fig.items) {
            if (const auto* r = std::get_if<plots::Rect>(&p.shape)) boxes.push_back(r->box);
            if (const auto* a = std::get_if<plots::Arrow>(&p.shape)) arrows.push_back(a);
        }
        REQUIRE(boxes.size() == lab::group_graph(mg.graph, group_of).nodes.size());
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            CHECK(boxes[i].x >= 0);
            CHECK(boxes[i].right() <= fig.width);
            CHECK(boxes[i].bottom() <= fig.height);
            for (std::size_t j = i + 1; j < boxes.size(); ++j)
                CHECK_FALSE((boxes[i].x < boxes[j].right() && boxes[j].x < boxes[i].right() && boxes[i].y < boxes[j].bottom() &&
                             boxes[j].y < boxes[i].bottom()));
        }
        // an arrow touches its own boxes only at their sides, so any segment inside a box crosses it
        for (const plots::Arrow* a : arrows)
            for (std::size_t s = 0; s + 1 < a->points.size(); ++s) {
                const plots::Point p = a->points[s], q = a->points[s + 1];
                for (const plots::Box& b : boxes)
                    CHECK_FALSE((std::max(p.x, q.x) > b.x && std::min(p.x, q.x) < b.right() &&
                                 std::max(p.y, q.y) > b.y && std::min(p.y, q.y) < b.bottom()));
            }
        // no two arrows share a stretch of line: where two segments lie on one line, their
        // extents along it meet at most in a point
        auto overlap = [](plots::Point p, plots::Point q, plots::Point r, plots::Point t) {
            if (p.x == q.x && r.x == t.x && p.x == r.x)
                return std::min(std::max(p.y, q.y), std::max(r.y, t.y)) - std::max(std::min(p.y, q.y), std::min(r.y, t.y)) > 0.5;
            if (p.y == q.y && r.y == t.y && p.y == r.y)
                return std::min(std::max(p.x, q.x), std::max(r.x, t.x)) - std::max(std::min(p.x, q.x), std::min(r.x, t.x)) > 0.5;
            return false;
        };
        for (std::size_t i = 0; i < arrows.size(); ++i)
            for (std::size_t j = i + 1; j < arrows.size(); ++j)
                for (std::size_t s = 0; s + 1 < arrows[i]->points.size(); ++s)
                    for (std::size_t u = 0; u + 1 < arrows[j]->points.size(); ++u)
                        CHECK_FALSE(overlap(arrows[i]->points[s], arrows[i]->points[s + 1], arrows[j]->points[u],
                                            arrows[j]->points[u + 1]));
    }
}

TEST_CASE("the figures of a two-layer model's graph fit a screen's width", "[lab][graph]") {
    nn::TransformerConfig c = config(2);
    nn::Transformer model(c, 3);
    const lab::ModelGraphFigures f = lab::model_graph_figures(model, kIds, "model");
    INFO("modules " << f.modules.width << " x " << f.modules.height << ", attention " << f.attention.width << " x "
                    << f.attention.height);
    CHECK(f.modules.width <= lab::kMaxGraphWidth);
    CHECK(f.attention.width <= lab::kMaxGraphWidth);
    CHECK(f.modules.height > f.modules.width);  // turned: the chain of modules runs down the page
}

TEST_CASE("group_graph: step ranges, and a grouping that would make a cycle is refused", "[lab][graph]") {
    CHECK(lab::step_ranges({9, 3, 4, 5, 7, 10}) == "3-5, 7, 9-10");
    CHECK(lab::step_ranges({2}) == "2");
    // a -> b = exp(a) -> c = b * a -> d = exp(c): grouping b with d around c is a cycle
    Tensor a = tensor({0.5, -1.0}, kFloat64).requires_grad_();
    const Tensor b = exp(a), c = b * a, d = exp(c);
    const Graph g = extract_graph(d, {{"a", a}});
    REQUIRE(g.nodes.size() == 4);  // d, c, b (backward()'s order), a
    CHECK(g.nodes[2].name == "exp");
    CHECK_THROWS_WITH(lab::group_graph(g, {"X", "", "X", ""}), Catch::Contains("cycle") && Catch::Contains("'X'"));
    CHECK_THROWS_WITH(lab::group_graph(g, {"X"}), Catch::Contains("1 group names for 4 nodes"));
    const lab::GroupedGraph ok = lab::group_graph(g, {"top", "top", "", ""});
    REQUIRE(ok.nodes.size() == 3);
    CHECK(ok.op_count(0) == 2);
    CHECK(ok.outputs(0) == std::vector<std::size_t>{0});
    CHECK(ok.edges == std::vector<std::pair<std::size_t, std::size_t>>{{1, 0}, {2, 0}, {2, 1}});  // exp -> top; a -> top, a -> exp
}
