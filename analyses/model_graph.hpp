// model_graph.hpp — the graph backward() walks for a whole TinyGPT: one forward and its
// next-token loss, each op labelled with the module that ran it, so that draw_graph
// (analyses/graph_view.hpp) can show it one box per module and stay readable.
//
// The engine records ops, not modules, so the forward is run here module by module
// under the op trace (autograd/trace.hpp), noting the "#n" of each module's last op;
// an op belongs to the first module whose last op is at or after it. That forward is
// Transformer::forward spelled out (embedding, then per block ln1 -> attn -> x + attn
// -> ln2 -> mlp -> x + mlp, then ln_f -> head), and transformer_graph refuses to answer
// if its logits differ from the model's own by a single bit.
//
// The n_heads heads are not separate subgraphs: the layer computes them at once, as a
// batch axis ([1, H, T, T] scores), so one attention box stands for all of them.
// Groups: 1 embedding + 6 per block + ln_f, head, loss, each with its parameters in a
// box of their own (1 + 4 per block + 2), and the ids and targets.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "autograd/graph.hpp"
#include "analyses/graph_groups.hpp"
#include "nn/transformer.hpp"
#include "plots/scene.hpp"

namespace attnlab::lab {

struct ModelGraph {
    Graph graph;                        // every op and leaf; grad_norm filled after backward
    std::vector<std::string> group_of;  // per node of graph: its module's group, or "" (ids, targets)
    std::vector<std::string> modules;   // the op groups, in the order the forward ran them
    double loss = 0;                    // mean next-token cross-entropy
};

// ids: T >= 2 tokens; positions 0..T-2 predict 1..T-1 (ValueError otherwise, or past the
// context). Runs backward (the model's .grad are zeroed again after), in eval mode.
ModelGraph transformer_graph(nn::Transformer& model, const std::vector<std::int64_t>& ids);

// group_of with the groups in `expand` (labels from modules) and their parameters
// left op by op: one module in full, the rest folded.
std::vector<std::string> expanded(const ModelGraph& mg, const std::vector<std::string>& expand);

// The two figures of a model's graph: one box per module (shaded by |dL/d(output)|), and
// block 0's attention op by op with the modules around it; titles start with "the graph
// backward() walks for `name`...". What tinygpt show --graph and phase 4 step 11 draw.
struct ModelGraphFigures {
    plots::Figure modules, attention;
    std::size_t ops = 0, module_boxes = 0, attention_ops = 0;  // attention_ops: block 0's attention
    double loss = 0;
};
ModelGraphFigures model_graph_figures(nn::Transformer& model, const std::vector<std::int64_t>& ids, const std::string& name);

// `tinygpt show --graph`: dir/autograd_graph (one box per module, shaded by |dL/d(output)|)
// and dir/autograd_graph_attention (block 0's attention op by op, the rest folded), for
// transformer_graph(model, ids); titles start with `name`. Returns the stems written.
std::vector<std::string> write_model_graph(nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                           const std::string& name, const std::string& dir);

}  // namespace attnlab::lab
