// hand_built.hpp — setting a transformer's weights by hand, for tests whose circuit is known
// (tests/analyses: an induction circuit, a head that carries one token's identity).
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "nn/transformer.hpp"
#include "tensor/ops.hpp"

namespace attnlab::test {

// Parameter `name`'s entry [r, c] := v.
inline void set(nn::Transformer& m, const std::string& name, std::int64_t r, std::int64_t c, double v) {
    for (auto& p : m.named_parameters())
        if (p.name == name) {
            Tensor t = p.tensor.detach();
            Tensor cell = t.narrow(0, r, 1).narrow(1, c, 1);
            fill_(cell, v);
            return;
        }
    FAIL("no parameter " << name);
}

// A LayerNorm that gives back its input for rows holding `ones` ones among d zeros and ones.
inline void identity_norm(nn::Transformer& m, const std::string& name, std::int64_t ones, std::int64_t d) {
    const double mu = double(ones) / double(d), sd = std::sqrt(mu - mu * mu + 1e-5);
    for (auto& p : m.named_parameters()) {
        if (p.name == name + ".weight") fill_(p.tensor.detach(), sd);
        if (p.name == name + ".bias") fill_(p.tensor.detach(), mu);
    }
}

// Every weight and bias 0, the LayerNorms left at identity: the blank a circuit is drawn on.
inline void zero_weights(nn::Transformer& m) {
    for (auto& p : m.named_parameters())
        if (p.name.find("ln") == std::string::npos) fill_(p.tensor.detach(), 0.0);
}

}  // namespace attnlab::test
