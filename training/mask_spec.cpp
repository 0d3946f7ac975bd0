// mask_spec.cpp — see mask_spec.hpp.
#include "training/mask_spec.hpp"

#include <tuple>

#include "nn/transformer_spec.hpp"
#include "tensor/error.hpp"
#include "training/run_config.hpp"

namespace attnlab::lab {

std::string MaskSpec::name() const {
    switch (kind) {
        case Kind::none: return "no mask";
        case Kind::causal: return "causal";
        case Kind::local: return "local +-" + std::to_string(width);
        case Kind::strided: return "strided " + std::to_string(width);
    }
    return "";
}

void MaskSpec::apply(TrainConfig& c, std::string_view flag) const {
    if (kind == Kind::causal && !info(c.task).next_token)
        throw ValueError(std::string(flag) + " causal: " + info(c.task).cli +
                         " predicts hidden words from both sides; the causal mask is for next-token models");
    if (kind == Kind::none) c.causal_mask = false;
    if (kind == Kind::causal) c.causal_mask = true;
    c.window = kind == Kind::local ? width : 0;
    c.stride = kind == Kind::strided ? width : 0;
}

MaskSpec parse_mask(std::string_view text, std::string_view flag) {
    const std::string given = std::string(flag) + " '" + std::string(text) + "'";
    if (text == "none") return {MaskSpec::Kind::none, 0};
    if (text == "causal") return {MaskSpec::Kind::causal, 0};
    for (const auto& [prefix, kind, letter] : {std::tuple{std::string_view("local:"), MaskSpec::Kind::local, "W"},
                                               std::tuple{std::string_view("strided:"), MaskSpec::Kind::strided, "S"}}) {
        if (!text.starts_with(prefix)) continue;
        const auto n = parse_int64(text.substr(prefix.size()));
        if (!n || *n < 1 || *n > nn::ModelLimits::max_context)
            throw ValueError(given + ": " + letter + " of " + std::string(prefix) + letter + " needs an integer in [1, " +
                             std::to_string(nn::ModelLimits::max_context) + "]");
        return {kind, *n};
    }
    throw ValueError(given + " is not a mask: none, causal, local:W or strided:S");
}

}  // namespace attnlab::lab
