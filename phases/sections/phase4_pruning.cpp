// phase4_pruning.cpp — the bodies of phases/phase4_pruning.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase4_pruning.hpp"

#include "training/train.hpp"

namespace attnlab::phase4 {

double grammar_val_loss(nn::Transformer& model) { return lab::evaluate(model, lab::Task::causal).loss; }

void section8b_pruning_to_minimum(phase::Frame& p, nn::Transformer& model, double tolerance) {
    phase::section("8b. Pruning to the minimum: heads off one after another, least important first");
    const lab::PruningToMinimum r = lab::prune_to_minimum(model, tolerance, grammar_val_loss);
    const lab::Table t = lab::pruning_table(r, lab::head_names(model));
    std::printf("=> %lld of %zu heads keep the validation loss within %.2f nats of the full model's %.4f\n",
                static_cast<long long>(r.fewest_heads), r.order.size(), tolerance, r.base);
    p.m["pruning_to_minimum"] = Json::Object{{"tolerance", tolerance}, {"base_val_loss", r.base},
                                             {"fewest_heads", r.fewest_heads}, {"steps", t.json()}};
    p.out.figure(lab::pruning_figure(r, t, tolerance, "the causal model"), "pruning_to_minimum",
                 "Phase 4: validation-loss increase as heads are switched off cumulatively, least important first; "
                 "the fewest heads within the tolerance.");
}

}  // namespace attnlab::phase4
