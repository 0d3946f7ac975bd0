// phase4_model_graph.cpp — the bodies of phases/phase4_model_graph.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase4_model_graph.hpp"

#include <cstdio>
#include <filesystem>

#include "analyses/model_graph.hpp"

namespace attnlab::phase4 {

using namespace attnlab::phase;

void section11_whole_model_graph(Frame& f, nn::Transformer& model, const std::vector<std::int64_t>& ids,
                                 const std::string& checkpoint) {
    section("11. The graph backward() walks for the whole model");
    const std::string name = std::filesystem::path(checkpoint).stem().string();
    const lab::ModelGraphFigures g = lab::model_graph_figures(model, ids, name);
    const std::int64_t layers = model.config().n_layers;
    std::printf("%s on %zu tokens: %zu ops in %zu module boxes (1 embedding + 6 x %lld blocks + ln_f, head, loss); "
                "block 0's attention alone is %zu ops for all %lld heads; loss %.4f\n",
                name.c_str(), ids.size(), g.ops, g.module_boxes, static_cast<long long>(layers), g.attention_ops,
                static_cast<long long>(model.config().n_heads), g.loss);
    f.m["model_graph"] = Json::Object{{"ops", static_cast<std::int64_t>(g.ops)},
                                      {"module_boxes", static_cast<std::int64_t>(g.module_boxes)},
                                      {"attention_ops", static_cast<std::int64_t>(g.attention_ops)},
                                      {"loss", g.loss}};
    f.out.figure(g.modules, "model_graph",
                 "Phase 4, step 11: the autograd graph of the whole causal model's next-token loss on the sentence, one box "
                 "per module with its op count, the backward() steps it spans and its output shape, the forward pass running "
                 "down the page from the embeddings to the loss; parameters in green; red shading is |dL/d(output)|.");
    f.out.figure(g.attention, "model_graph_attention",
                 "Phase 4, step 11: the same graph with block 0's attention opened op by op (all heads at once, as a "
                 "batch axis), the modules around it folded.");
}

}  // namespace attnlab::phase4
