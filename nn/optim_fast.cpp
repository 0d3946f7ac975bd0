// optim_fast.cpp — Adam's update vectorised: the fast path of Adam::step (nn/optim.cpp),
// whose Adam::update is the same formula as one plain loop.
#include <cmath>

#include "nn/optim_fast.hpp"
#include "tensor/vec_math.hpp"

namespace attnlab::nn {

namespace {

struct AdamConstants {
    float step_size, inv_sqrt_bc2, b1, b2, e, decay, shrink;
};

// One parameter's update: a separate function with restrict pointers, the length
// read once and the Adam/AdamW choice a template argument. The body is written once,
// for a float or a whole vector of them (detail::vec::VF), so the vector loop and the
// scalar tail do the same arithmetic in the same order: the same bits in every lane
// (tests/nn/test_loss_optim.cpp checks a tail element against a vector lane). The
// square root is spelled out: vec::sqrt, since GCC vectorises no std::sqrt. And AdamW's
// decayed weight is vec::unfused: called from a lambda, GCC fuses w·shrink − step into one
// multiply-subtract in the vector loop and not in the tail, which breaks that equality.
template <bool kDecoupled, typename V>
inline void adam_element(V& w, V g, V& m, V& v, const AdamConstants& c, V (*root)(V)) {
    if constexpr (kDecoupled) w = detail::vec::unfused(w * c.shrink);  // AdamW: decay the weight itself
    else g += c.decay * w;                    // Adam: L2 penalty in the gradient
    m = c.b1 * m + (1 - c.b1) * g;
    v = c.b2 * v + (1 - c.b2) * g * g;
    w -= c.step_size * m / (root(v) * c.inv_sqrt_bc2 + c.e);
}

template <bool kDecoupled>
void adam_update(float* __restrict w, const float* __restrict g, float* __restrict m, float* __restrict v,
                 std::int64_t n, const AdamConstants& c) {
    namespace vec = detail::vec;
    std::int64_t j = 0;
    for (; j + vec::kLanes <= n; j += vec::kLanes) {
        vec::VF wj = vec::load(w + j), mj = vec::load(m + j), vj = vec::load(v + j);
        adam_element<kDecoupled, vec::VF>(wj, vec::load(g + j), mj, vj, c, vec::sqrt);
        vec::store(w + j, wj), vec::store(m + j, mj), vec::store(v + j, vj);
    }
    for (; j < n; ++j) adam_element<kDecoupled, float>(w[j], g[j], m[j], v[j], c, [](float x) { return std::sqrt(x); });
}

}  // namespace

void adam_update_fast(const Adam& opt, float* w, const float* g, float* m, float* v, std::int64_t n) {
    const double bc1 = 1 - std::pow(opt.beta1, static_cast<double>(opt.steps()));
    const double bc2 = 1 - std::pow(opt.beta2, static_cast<double>(opt.steps()));
    const float step_size = static_cast<float>(opt.lr / bc1), inv_sqrt_bc2 = static_cast<float>(1 / std::sqrt(bc2));
    const float b1 = static_cast<float>(opt.beta1), b2 = static_cast<float>(opt.beta2), e = static_cast<float>(opt.eps);
    const float decay = static_cast<float>(opt.weight_decay), shrink = static_cast<float>(1 - opt.lr * opt.weight_decay);
    const AdamConstants c{step_size, inv_sqrt_bc2, b1, b2, e, decay, shrink};
    if (opt.decoupled) adam_update<true>(w, g, m, v, n, c);
    else adam_update<false>(w, g, m, v, n, c);
}

}  // namespace attnlab::nn
