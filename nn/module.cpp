// module.cpp — see module.hpp.
#include "nn/module.hpp"

#include "tensor/error.hpp"

namespace attnlab::nn {

Tensor Module::register_parameter(const std::string& name, Tensor t) {
    for (const auto& [n, p] : params_)
        if (n == name) throw ValueError("register_parameter: '" + name + "' is already registered");
    t.requires_grad_(true);
    params_.emplace_back(name, t);
    return t;
}

void Module::collect(const std::string& prefix, std::vector<NamedParameter>& out) const {
    for (const auto& [name, t] : params_) out.push_back({prefix + name, t});
    for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

std::vector<NamedParameter> Module::named_parameters() const {
    std::vector<NamedParameter> out;
    collect("", out);
    return out;
}

std::vector<Tensor> Module::parameters() const {
    std::vector<Tensor> out;
    for (auto& p : named_parameters()) out.push_back(p.tensor);
    return out;
}

std::int64_t Module::parameter_count() const {
    std::int64_t n = 0;
    for (const auto& p : named_parameters()) n += p.tensor.numel();
    return n;
}

void Module::zero_grad() {
    for (auto& p : named_parameters()) p.tensor.zero_grad();
}

void Module::to(DType dtype) {
    for (auto& p : named_parameters())
        if (p.tensor.dtype() != dtype) p.tensor.set_data(p.tensor.detach().to(dtype));
}

void Module::train(bool on) {
    training_ = on;
    for (auto& [name, child] : children_) child->train(on);
}

}  // namespace attnlab::nn
