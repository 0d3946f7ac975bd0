// rng.cpp — see rng.hpp.
#include "tensor/rng.hpp"

#include <cmath>
#include <numbers>

namespace attnlab {

static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void Generator::manual_seed(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);  // never all-zero, whatever the seed
    has_spare_ = false;
}

std::uint64_t Generator::next_u64() {  // xoshiro256** (Blackman & Vigna, 2018)
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

double Generator::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Generator::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    // Box–Muller: two uniforms -> two independent normals. 1 - u keeps log's argument in (0, 1].
    const double u1 = 1.0 - uniform(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), theta = 2.0 * std::numbers::pi * u2;
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
}

std::uint64_t Generator::below(std::uint64_t n) {
    if (n == 0) throw ValueError("Generator::below: n must be positive");
    // Rejection sampling: draw until the word falls in a whole number of copies of [0, n).
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x;
    do x = next_u64();
    while (x >= limit);
    return x % n;
}

Generator& default_generator() {
    static Generator gen(0);
    return gen;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

template <typename Draw>
static Tensor fill_with(const Shape& shape, DType dtype, const char* op, Draw draw) {
    Tensor t = empty(shape, dtype);
    dispatch_float(dtype, op, [&]<typename T>(T) {
        T* p = t.data_ptr<T>();
        for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(draw());
    });
    return t;
}

Tensor rand(const Shape& shape, DType dtype, Generator& gen) {
    return fill_with(shape, dtype, "rand", [&] { return gen.uniform(); });
}

Tensor randn(const Shape& shape, DType dtype, Generator& gen) {
    return fill_with(shape, dtype, "randn", [&] { return gen.normal(); });
}

Tensor uniform(const Shape& shape, double low, double high, DType dtype, Generator& gen) {
    if (!(low <= high)) throw ValueError("uniform: low " + std::to_string(low) + " > high " + std::to_string(high));
    return fill_with(shape, dtype, "uniform", [&] { return low + (high - low) * gen.uniform(); });
}

Tensor randint(std::int64_t low, std::int64_t high, const Shape& shape, Generator& gen) {
    if (low >= high) throw ValueError("randint: empty range [" + std::to_string(low) + ", " + std::to_string(high) + ")");
    Tensor t = empty(shape, kInt64);
    std::int64_t* p = t.data_ptr<std::int64_t>();
    for (std::int64_t i = 0; i < t.numel(); ++i)
        p[i] = low + static_cast<std::int64_t>(gen.below(static_cast<std::uint64_t>(high - low)));
    return t;
}

}  // namespace attnlab
