// rng.hpp — attnlab's own random numbers: same seed, same numbers, on every machine.
//
// The standard library's engines are specified bit for bit, but its distributions
// (std::normal_distribution, ...) are not: libstdc++ and libc++ give different
// numbers for one seed. So attnlab draws raw 64-bit words from xoshiro256**
// (seeded through splitmix64, as its authors recommend) and does the transforms
// itself: uniform floats from the top mantissa bits, normals by Box–Muller in
// double precision.
//
// A global Generator (manual_seed) serves rand/randn/randint by default; pass a
// Generator to keep a stream of its own (dropout, data sampling).
#pragma once
#include <array>
#include <cstdint>

#include "tensor/tensor.hpp"

namespace attnlab {

class Generator {
public:
    explicit Generator(std::uint64_t seed = 0) { manual_seed(seed); }
    void manual_seed(std::uint64_t seed);
    std::uint64_t next_u64();           // uniform over all 64-bit words
    double uniform();                   // [0, 1) with 53 random bits
    double normal();                    // standard normal N(0, 1)
    std::uint64_t below(std::uint64_t n);  // uniform integer in [0, n), unbiased; n > 0

    std::array<std::uint64_t, 4> state() const { return s_; }  // for checkpointing a data stream
    void set_state(const std::array<std::uint64_t, 4>& s) { s_ = s; has_spare_ = false; }

private:
    std::array<std::uint64_t, 4> s_{};
    double spare_ = 0;  // Box–Muller yields normals in pairs
    bool has_spare_ = false;
};

Generator& default_generator();
void manual_seed(std::uint64_t seed);  // reseeds the default generator

Tensor rand(const Shape& shape, DType dtype = kFloat32, Generator& gen = default_generator());   // U[0, 1)
Tensor randn(const Shape& shape, DType dtype = kFloat32, Generator& gen = default_generator());  // N(0, 1)
Tensor uniform(const Shape& shape, double low, double high, DType dtype = kFloat32,
               Generator& gen = default_generator());
Tensor randint(std::int64_t low, std::int64_t high, const Shape& shape, Generator& gen = default_generator());  // int64

}  // namespace attnlab
