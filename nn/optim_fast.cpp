// optim_fast.cpp — Adam's update and the gradient clip, vectorised and spread over threads:
// the fast paths of Adam::step and clip_grad_norm (nn/optim.cpp), whose plain loops
// (Adam::update, clip_grad_norm's reference branch) are the formulas they compute.
#include <cmath>

#include "nn/optim_fast.hpp"
#include "nn/float_row_sum.hpp"
#include "tensor/parallel.hpp"
#include "tensor/vec_math.hpp"

namespace attnlab::nn {

namespace {

// The unit of work both fast paths share out: elements [lo, hi) of parameter `param`.
// Parameters are cut at every kSegment elements, so the cut depends on their sizes alone,
// never on the thread count. 16K floats (64 KiB) is small enough that W7's 0.8 M
// parameters give the threads some fifty pieces to balance, large enough that a piece
// outweighs its bookkeeping.
constexpr std::int64_t kSegment = 16384;

struct Segment {
    std::size_t param;
    std::int64_t lo, hi;
};

std::vector<Segment> segments(std::span<const std::int64_t> sizes) {
    std::vector<Segment> out;
    for (std::size_t i = 0; i < sizes.size(); ++i)
        for (std::int64_t lo = 0; lo < sizes[i]; lo += kSegment) out.push_back({i, lo, std::min(sizes[i], lo + kSegment)});
    return out;
}

// body(segment) for every segment, the segments spread over threads once each thread's
// share holds kMinElementsPerChunk elements (tensor/parallel.hpp).
template <typename Body>
void for_each_segment(const std::vector<Segment>& segs, Body&& body) {
    parallel_for_elements(static_cast<std::int64_t>(segs.size()), kSegment, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t s = lo; s < hi; ++s) body(segs[static_cast<std::size_t>(s)]);
    });
}

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

// g *= coef, in the same float arithmetic as clip_grad_norm's reference loop.
void scale(float* __restrict g, std::int64_t n, float coef) {
    for (std::int64_t j = 0; j < n; ++j) g[j] *= coef;
}

}  // namespace

void adam_update_fast(const Adam& opt, std::span<const AdamSlot> slots) {
    const double bc1 = 1 - std::pow(opt.beta1, static_cast<double>(opt.steps()));
    const double bc2 = 1 - std::pow(opt.beta2, static_cast<double>(opt.steps()));
    const float step_size = static_cast<float>(opt.lr / bc1), inv_sqrt_bc2 = static_cast<float>(1 / std::sqrt(bc2));
    const float b1 = static_cast<float>(opt.beta1), b2 = static_cast<float>(opt.beta2), e = static_cast<float>(opt.eps);
    const float decay = static_cast<float>(opt.weight_decay), shrink = static_cast<float>(1 - opt.lr * opt.weight_decay);
    const AdamConstants c{step_size, inv_sqrt_bc2, b1, b2, e, decay, shrink};
    std::vector<std::int64_t> sizes;
    for (const AdamSlot& s : slots) sizes.push_back(s.n);
    for_each_segment(segments(sizes), [&](const Segment& seg) {
        const AdamSlot& s = slots[seg.param];
        const std::int64_t n = seg.hi - seg.lo;
        if (opt.decoupled) adam_update<true>(s.w + seg.lo, s.g + seg.lo, s.m + seg.lo, s.v + seg.lo, n, c);
        else adam_update<false>(s.w + seg.lo, s.g + seg.lo, s.m + seg.lo, s.v + seg.lo, n, c);
    });
}

double clip_grad_norm_fast(std::span<float* const> grads, std::span<const std::int64_t> sizes, double max_norm) {
    const std::vector<Segment> segs = segments(sizes);
    std::vector<double> partial(segs.size());
    for_each_segment(segs, [&](const Segment& seg) {
        const std::size_t s = static_cast<std::size_t>(&seg - segs.data());
        partial[s] = float_row_sum<true>(seg.hi - seg.lo, grads[seg.param] + seg.lo, 0.0);  // Σ g², eight lanes
    });
    double total = 0;
    for (const double p : partial) total += p;
    total = std::sqrt(total);
    const double coef = max_norm / (total + 1e-6);  // torch's epsilon, so a zero gradient is left alone
    if (coef < 1)
        for_each_segment(segs, [&](const Segment& seg) {
            scale(grads[seg.param] + seg.lo, seg.hi - seg.lo, static_cast<float>(coef));
        });
    return total;
}

}  // namespace attnlab::nn
