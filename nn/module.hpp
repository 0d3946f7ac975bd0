// module.hpp — Module: a layer or model that owns parameters and sub-modules.
//
// As in PyTorch, a module registers its parameters and children by name in its
// constructor; named_parameters() then walks them recursively in registration
// order, giving dotted names ("blocks.0.attn.w_q.weight") in a stable order —
// the order checkpoints, optimizers and gradcheck tests rely on.
//
// Modules are held by value as members of their parent (or in a vector of
// unique_ptr) and registered by address, so they are neither copyable nor
// movable: a copy would leave the parent's registry pointing at the original.
//
// Shape legend for nn/: B batch, T sequence length, d_model model width,
// H heads (n_heads), d_k head width, V vocabulary.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.hpp"

namespace attnlab::nn {

struct NamedParameter {
    std::string name;
    Tensor tensor;
};

class Module {
public:
    Module() = default;
    virtual ~Module() = default;
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    std::vector<NamedParameter> named_parameters() const;  // recursive, dotted names, stable order
    std::vector<Tensor> parameters() const;
    std::int64_t parameter_count() const;
    void zero_grad();
    // Converts every parameter in place (module.double() in PyTorch); gradcheck runs layers in float64.
    void to(DType dtype);

    // Train mode turns dropout on; eval mode turns it off. Applies to every child.
    void train(bool on = true);
    void eval() { train(false); }
    bool is_training() const { return training_; }

protected:
    // Marks t as a parameter (requires_grad) and returns it, for `weight = register_parameter("weight", ...)`.
    Tensor register_parameter(const std::string& name, Tensor t);
    template <typename M>
    M& register_module(const std::string& name, M& child) {
        children_.emplace_back(name, &child);
        return child;
    }

private:
    void collect(const std::string& prefix, std::vector<NamedParameter>& out) const;
    std::vector<std::pair<std::string, Tensor>> params_;
    std::vector<std::pair<std::string, Module*>> children_;
    bool training_ = true;
};

}  // namespace attnlab::nn
