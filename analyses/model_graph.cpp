// model_graph.cpp — see model_graph.hpp.
#include "analyses/model_graph.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "autograd/node.hpp"
#include "autograd/trace.hpp"
#include "analyses/graph_view.hpp"
#include "nn/loss.hpp"
#include "plots/save.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

namespace {

// Recording on and eval mode while it lives (the phases and tools read models under
// NoGradGuard); both restored after, also when the forward throws.
struct GraphSession {
    nn::Transformer& model;
    bool recording = GradMode::enabled(), training = model.is_training();
    explicit GraphSession(nn::Transformer& m) : model(m) { GradMode::set_enabled(true), model.eval(); }
    ~GraphSession() { GradMode::set_enabled(recording), model.train(training); }
};

// "blocks.0.attn: w_q, w_k, w_v, w_o" from the parameters' names: their common dotted
// prefix, then the distinct next components.
std::string parameters_label(const std::vector<std::string>& names) {
    auto parts = [](const std::string& s) {
        std::vector<std::string> p;
        std::istringstream in(s);
        for (std::string part; std::getline(in, part, '.');) p.push_back(part);
        return p;
    };
    std::vector<std::string> common = parts(names.front());
    common.pop_back();  // at least the last component stays, to be listed
    for (const std::string& n : names) {
        const std::vector<std::string> p = parts(n);
        std::size_t k = 0;
        while (k < common.size() && k + 1 < p.size() && p[k] == common[k]) ++k;
        common.resize(k);
    }
    std::string prefix, list;
    for (const std::string& c : common) prefix += (prefix.empty() ? "" : ".") + c;
    std::vector<std::string> seen;
    for (const std::string& n : names) {
        const std::string next = parts(n)[common.size()];
        if (std::find(seen.begin(), seen.end(), next) == seen.end()) seen.push_back(next), list += (list.empty() ? "" : ", ") + next;
    }
    return prefix.empty() ? list : prefix + ": " + list;
}

}  // namespace

ModelGraph transformer_graph(nn::Transformer& model, const std::vector<std::int64_t>& ids) {
    const std::int64_t T = static_cast<std::int64_t>(ids.size()) - 1;  // positions that predict a next token
    if (T < 1 || T > model.config().context)
        throw ValueError("transformer_graph: a next-token loss over " + std::to_string(ids.size()) +
                         " tokens; needs 2 to " + std::to_string(model.config().context + 1) + " (the context + 1)");
    const Tensor input = from_vector(std::vector<std::int64_t>(ids.begin(), ids.end() - 1), {1, T});
    const Tensor targets = from_vector(std::vector<std::int64_t>(ids.begin() + 1, ids.end()), {1, T});
    GraphSession session(model);
    ModelGraph mg;
    std::vector<std::int64_t> last_op;  // per module: the trace's "#n" of its last op
    auto ran = [&](const std::string& module, const Tensor& out) {
        mg.modules.push_back(module);
        last_op.push_back(out.impl()->grad_fn->trace_id);
        return out;
    };
    std::ostringstream trace;  // only the numbering is wanted
    Tensor logits, loss;
    {
        TraceGuard numbering(trace);
        // Transformer::forward and Block::forward, one module at a time (eval: no dropout)
        const nn::PositionScheme scheme = model.config().positions;
        const char* positions = scheme == nn::PositionScheme::learned ? " + pos_emb" : scheme == nn::PositionScheme::sinusoidal ? " + sinusoids" : "";
        Tensor x = ran(std::string("embedding: tok_emb") + positions, model.embed(input));
        const nn::Mask mask = model.attention_mask(T, T);
        for (std::size_t i = 0; i < model.blocks.size(); ++i) {
            nn::Block& b = *model.blocks[i];
            const std::string p = "blocks." + std::to_string(i);
            const Tensor h = ran(p + ".ln1: LayerNorm", b.ln1.forward(x));
            // forward() (not forward_output()) asks for the weights: the composed path, its ops in view
            const Tensor a = ran(p + ".attn: " + std::to_string(b.attn.n_heads) + " heads", b.attn.forward(h, mask).output);
            x = ran(p + ": x + attn", x + a);
            const Tensor m = ran(p + ".mlp: fc2(gelu(fc1))", b.mlp.forward(ran(p + ".ln2: LayerNorm", b.ln2.forward(x))));
            x = ran(p + ": x + mlp", x + m);
        }
        logits = ran("head: logits", model.head.forward(ran("ln_f: LayerNorm", model.ln_f.forward(x))));  // [1, T, V]
        loss = ran("loss: cross-entropy", nn::cross_entropy(logits, targets));
    }
    {
        NoGradGuard no_grad;
        nn::AttentionTrace& weights = model.trace();
        const bool was = weights.enabled;
        weights.enabled = true;  // the composed path, as above: the same kernels, so the same bits
        const Tensor own = model.forward(input);
        weights.enabled = was;
        if (max(abs(own.to(kFloat64) - logits.detach().to(kFloat64))).item() != 0)
            throw ValueError("transformer_graph: the module-by-module forward differs from Transformer::forward; "
                             "nn/transformer.cpp changed how it composes its modules");
    }
    std::vector<std::pair<std::string, Tensor>> names{{"ids", input}, {"targets", targets}};
    for (const nn::NamedParameter& np : model.named_parameters()) names.emplace_back(np.name, np.tensor);
    mg.graph = extract_graph(loss, names, /*retain=*/true);
    loss.backward();
    mg.graph.read_grad_norms();
    model.zero_grad();
    mg.loss = loss.item();

    // Each op to its module; each parameter to its module's parameter box; other leaves
    // (scalars such as the attention scale) into the one module that reads them.
    const Graph& g = mg.graph;
    mg.group_of.assign(g.nodes.size(), "");
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (g.nodes[i].kind == GraphNodeKind::op) {
            if (g.nodes[i].forward_id < 1 || g.nodes[i].forward_id > last_op.back())
                throw ValueError("transformer_graph: op '" + g.nodes[i].name + "' (step " + std::to_string(g.nodes[i].step) +
                                 ") was not recorded by the module-by-module forward");
            mg.group_of[i] = mg.modules[std::lower_bound(last_op.begin(), last_op.end(), g.nodes[i].forward_id) - last_op.begin()];
        }
    std::vector<std::set<std::string>> readers(g.nodes.size());
    for (const GraphEdge& e : g.edges) readers[e.from].insert(mg.group_of[e.to]);
    std::map<std::string, std::vector<std::size_t>> params_of;  // module -> its parameter leaves
    for (std::size_t i = g.op_count(); i < g.nodes.size(); ++i) {
        const GraphNode& n = g.nodes[i];
        if (readers[i].size() != 1 || n.name == "ids" || n.name == "targets") continue;
        if (n.kind == GraphNodeKind::parameter) params_of[*readers[i].begin()].push_back(i);
        else mg.group_of[i] = *readers[i].begin();
    }
    auto rank = [&](std::size_t leaf) {  // the parameter's place in named_parameters()
        return std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == g.nodes[leaf].name; }) - names.begin();
    };
    for (auto& [module, leaves] : params_of) {
        std::sort(leaves.begin(), leaves.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
        std::vector<std::string> leaf_names;
        for (std::size_t i : leaves) leaf_names.push_back(g.nodes[i].name);
        for (std::size_t i : leaves) mg.group_of[i] = parameters_label(leaf_names);
    }
    return mg;
}

std::vector<std::string> expanded(const ModelGraph& mg, const std::vector<std::string>& expand) {
    auto unfolded = [&](const std::string& group) { return std::find(expand.begin(), expand.end(), group) != expand.end(); };
    for (const std::string& e : expand)
        if (!std::count(mg.modules.begin(), mg.modules.end(), e))
            throw ValueError("expanded: no module group '" + e + "' in this graph");
    std::vector<std::string> group_of = mg.group_of;
    for (std::size_t i = 0; i < group_of.size(); ++i)
        if (unfolded(mg.group_of[i])) group_of[i] = "";
    for (const GraphEdge& e : mg.graph.edges)  // a leaf read by an unfolded module: on its own too
        if (mg.graph.nodes[e.from].kind != GraphNodeKind::op && unfolded(mg.group_of[e.to])) group_of[e.from] = "";
    return group_of;
}

ModelGraphFigures model_graph_figures(nn::Transformer& model, const std::vector<std::int64_t>& ids, const std::string& name) {
    const ModelGraph mg = transformer_graph(model, ids);
    ModelGraphFigures f;
    f.ops = mg.graph.op_count(), f.module_boxes = mg.modules.size(), f.loss = mg.loss;
    const std::string what = "the graph backward() walks for " + name + "'s next-token loss (" + std::to_string(f.ops) +
                             " ops, steps 1-" + std::to_string(f.ops) + ")";
    f.modules = draw_graph(group_graph(mg.graph, mg.group_of), GraphViewOptions{what + ", one box per module", true});
    // modules: embedding, blocks.0.ln1, blocks.0.attn, ...
    const std::string& attn = mg.modules.at(2);
    f.attention_ops = static_cast<std::size_t>(std::count(mg.group_of.begin(), mg.group_of.end(), attn));
    const GroupedGraph opened = group_graph(mg.graph, expanded(mg, {attn}));
    std::vector<std::size_t> attention_nodes;  // the opened ones: all that has no group label now
    for (std::size_t k = 0; k < opened.nodes.size(); ++k)
        if (opened.nodes[k].label.empty()) attention_nodes.push_back(k);
    f.attention = draw_graph(neighbourhood(opened, attention_nodes),
                             GraphViewOptions{what + ": block 0's attention op by op, with the modules around it", true});
    return f;
}

std::vector<std::string> write_model_graph(nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                           const std::string& name, const std::string& dir) {
    const ModelGraphFigures f = model_graph_figures(model, ids, name);
    plots::save(f.modules, dir + "/autograd_graph");
    plots::save(f.attention, dir + "/autograd_graph_attention");
    return {dir + "/autograd_graph", dir + "/autograd_graph_attention"};
}

}  // namespace attnlab::lab
