// positional.cpp — see positional.hpp.
#include "nn/positional.hpp"

#include <cmath>
#include <vector>

#include "tensor/ops.hpp"

namespace attnlab::nn {

// Pair i (dimensions 2i, 2i+1) turns at angle pos / 10000^(exponent_scale · 2i / d).
static Tensor sinusoids(std::int64_t T, std::int64_t d, double exponent_scale, const char* who) {
    if (T < 0 || d <= 0 || d % 2 != 0)
        throw ValueError(std::string(who) + ": need T ≥ 0 and an even d_model > 0, got T=" + std::to_string(T) +
                         " d_model=" + std::to_string(d));
    std::vector<double> pe(static_cast<std::size_t>(T * d));
    for (std::int64_t pos = 0; pos < T; ++pos)
        for (std::int64_t i = 0; 2 * i < d; ++i) {
            const double angle = static_cast<double>(pos) /
                                 std::pow(10000.0, exponent_scale * static_cast<double>(2 * i) / static_cast<double>(d));
            pe[static_cast<std::size_t>(pos * d + 2 * i)] = std::sin(angle);
            pe[static_cast<std::size_t>(pos * d + 2 * i + 1)] = std::cos(angle);
        }
    return from_vector(pe, {T, d}, kFloat32);
}

const char* position_scheme_name(PositionScheme p) {
    switch (p) {
        case PositionScheme::learned: return "learned";
        case PositionScheme::sinusoidal: return "sinusoidal";
        case PositionScheme::none: return "none";
    }
    return "?";
}

std::optional<PositionScheme> parse_position_scheme(std::string_view text) {
    for (PositionScheme p : {PositionScheme::learned, PositionScheme::sinusoidal, PositionScheme::none})
        if (text == position_scheme_name(p)) return p;
    return std::nullopt;
}

Tensor sinusoidal_positional_encoding(std::int64_t T, std::int64_t d_model) {
    return sinusoids(T, d_model, 1.0, "sinusoidal_positional_encoding");
}

Tensor squared_wavelength_positional_encoding(std::int64_t T, std::int64_t d_model) {
    return sinusoids(T, d_model, 2.0, "squared_wavelength_positional_encoding");  // 2·i with i already even
}

LearnedPositionalEmbedding::LearnedPositionalEmbedding(std::int64_t max_len, std::int64_t d_model, Generator& gen) {
    weight = register_parameter("weight", randn({max_len, d_model}, kFloat32, gen));
}

Tensor LearnedPositionalEmbedding::forward(std::int64_t T) const {
    if (T < 0 || T > weight.size(0))
        throw ValueError("LearnedPositionalEmbedding: T=" + std::to_string(T) + " exceeds max_len " +
                         std::to_string(weight.size(0)));
    return weight.narrow(0, 0, T);
}

}  // namespace attnlab::nn
