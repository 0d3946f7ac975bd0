// sparse_attention.cpp — see sparse_attention.hpp.
#include "nn/sparse_attention.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

Tensor sparsemax(const Tensor& scores) {
    if (scores.dim() == 0) throw ShapeError("sparsemax: expected scores [..., Tk], got a scalar");
    const Tensor z = contiguous(scores);
    const std::int64_t n = z.size(-1), rows = n ? z.numel() / n : 0;
    Tensor out = zeros(z.shape(), z.dtype());
    dispatch_float(z.dtype(), "sparsemax", [&]<typename F>(F) {
        std::vector<F> sorted(static_cast<std::size_t>(n));
        for (std::int64_t row = 0; row < rows; ++row) {
            const F* zr = z.const_data_ptr<F>() + row * n;
            F* pr = out.data_ptr<F>() + row * n;
            std::copy(zr, zr + n, sorted.begin());
            std::sort(sorted.begin(), sorted.end(), std::greater<F>());
            if (sorted[0] == -std::numeric_limits<F>::infinity()) continue;  // fully masked: zeros
            // Support size k: the largest k with 1 + k·z_(k) > Σ_{j≤k} z_(j). k = 1 always qualifies.
            double cumulative = 0, support_sum = 0;
            std::int64_t k = 0;
            for (std::int64_t j = 0; j < n; ++j) {
                cumulative += sorted[static_cast<std::size_t>(j)];
                if (1.0 + static_cast<double>(j + 1) * sorted[static_cast<std::size_t>(j)] > cumulative)
                    k = j + 1, support_sum = cumulative;
            }
            const double tau = (support_sum - 1.0) / static_cast<double>(k);  // threshold: Σ max(z − τ, 0) = 1
            for (std::int64_t j = 0; j < n; ++j) pr[j] = static_cast<F>(std::max(static_cast<double>(zr[j]) - tau, 0.0));
        }
    });
    record(out, "sparsemax", {scores}, [p = out.detach(), n, rows](const Tensor& g) -> Grads {
        // On the support S (p > 0): dz_i = g_i − mean_{j∈S} g_j; off the support dz_i = 0.
        // (The Jacobian is diag(s) − s sᵀ/|S| for the 0/1 support indicator s.)
        const Tensor gc = contiguous(g);
        Tensor dz = zeros(p.shape(), p.dtype());
        dispatch_float(p.dtype(), "sparsemax backward", [&]<typename F>(F) {
            for (std::int64_t row = 0; row < rows; ++row) {
                const F* pr = p.const_data_ptr<F>() + row * n;
                const F* gr = gc.const_data_ptr<F>() + row * n;
                F* dr = dz.data_ptr<F>() + row * n;
                double g_sum = 0;
                std::int64_t support = 0;
                for (std::int64_t j = 0; j < n; ++j)
                    if (pr[j] > 0) g_sum += gr[j], ++support;
                if (support == 0) continue;  // a fully masked row: no gradient
                const double g_mean = g_sum / static_cast<double>(support);
                for (std::int64_t j = 0; j < n; ++j)
                    if (pr[j] > 0) dr[j] = static_cast<F>(gr[j] - g_mean);
            }
        });
        return {dz};
    });
    return out;
}

// The k-th largest score of each row [..., 1] (no gradient: it only decides which keys stay).
static Tensor kth_largest(const Tensor& scores, std::int64_t k) {
    const Tensor z = contiguous(scores.detach());
    const std::int64_t n = z.size(-1), rows = n ? z.numel() / n : 0;
    Shape shape = z.shape();
    shape[shape.size() - 1] = 1;
    Tensor kth = empty(shape, z.dtype());
    dispatch_float(z.dtype(), "topk_softmax", [&]<typename F>(F) {
        std::vector<F> row(static_cast<std::size_t>(n));
        const auto kk = static_cast<std::size_t>(std::min(k, n) - 1);
        for (std::int64_t r = 0; r < rows; ++r) {
            std::copy(z.data_ptr<F>() + r * n, z.data_ptr<F>() + (r + 1) * n, row.begin());
            std::nth_element(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(kk), row.end(), std::greater<F>());
            kth.data_ptr<F>()[r] = row[kk];
        }
    });
    return kth;
}

Tensor topk_softmax(const Tensor& scores, std::int64_t k) {
    if (k < 1) throw ValueError("topk_softmax: k must be at least 1, got " + std::to_string(k));
    if (scores.dim() == 0) throw ShapeError("topk_softmax: expected scores [..., Tk], got a scalar");
    // Scores below the row's k-th largest become −∞, so softmax gives them exactly 0.
    const Tensor dropped = lt(scores.detach(), kth_largest(scores, k));  // [..., Tk] 0/1
    return softmax(masked_fill(scores, dropped, -std::numeric_limits<double>::infinity()), -1);
}

Tensor Normalizer::operator()(const Tensor& scores) const {
    switch (kind) {
        case Kind::softmax: return attnlab::softmax(scores, -1);
        case Kind::sparsemax: return nn::sparsemax(scores);
        case Kind::topk: return topk_softmax(scores, k);
    }
    throw ValueError("Normalizer: unknown kind");
}

std::string Normalizer::name() const {
    switch (kind) {
        case Kind::softmax: return "softmax";
        case Kind::sparsemax: return "sparsemax";
        case Kind::topk: return "top-" + std::to_string(k);
    }
    return "?";
}

std::string normalizer_flag(const Normalizer& n) {
    return n.kind == Normalizer::Kind::topk ? "topk:" + std::to_string(n.k) : n.name();
}

bool parse_normalizer(const std::string& s, Normalizer& out) {
    if (s == "softmax" || s == "sparsemax") return out = s == "softmax" ? Normalizer::softmax() : Normalizer::sparsemax(), true;
    if (!s.starts_with("topk:") || s.size() == 5 || s.size() > 9 || s.find_first_not_of("0123456789", 5) != std::string::npos)
        return false;
    out = Normalizer::topk(std::stoll(s.substr(5)));
    return true;
}

}  // namespace attnlab::nn
