// loss.cpp — see loss.hpp.
#include "nn/loss.hpp"

#include <cmath>

#include "autograd/node.hpp"
#include "tensor/ops.hpp"

namespace attnlab::nn {

// logits as [N, V] (contiguous) and targets as a flat list, after checking them.
static std::pair<Tensor, std::vector<std::int64_t>> rows_and_targets(const Tensor& logits, const Tensor& targets,
                                                                     std::int64_t ignore_index) {
    if (logits.dim() < 1 || targets.dtype() != kInt64 || targets.dim() != logits.dim() - 1 ||
        [&] { for (std::int64_t i = 0; i < targets.dim(); ++i) if (targets.size(i) != logits.size(i)) return true; return false; }())
        throw ShapeError("cross_entropy: expected logits [..., V] and int64 targets [...]; got logits " + logits.shape().str() +
                         " and targets " + targets.shape().str() + " " + dtype_name(targets.dtype()));
    const std::int64_t V = logits.size(-1);
    std::vector<std::int64_t> t = targets.to_vector<std::int64_t>();
    for (std::int64_t y : t)
        if (y != ignore_index && (y < 0 || y >= V))
            throw ValueError("cross_entropy: target " + std::to_string(y) + " is outside [0, " + std::to_string(V) +
                             ") and is not ignore_index " + std::to_string(ignore_index));
    return {contiguous(logits.reshape({-1, V})), std::move(t)};
}

Tensor cross_entropy(const Tensor& logits, const Tensor& targets, std::int64_t ignore_index) {
    // Named variables, not a structured binding: the lambdas below capture them, and
    // clang before 16 does not implement C++20's capture of structured bindings.
    auto rows = rows_and_targets(logits, targets, ignore_index);
    const Tensor x = std::move(rows.first);
    const std::vector<std::int64_t> t = std::move(rows.second);
    const std::int64_t N = x.size(0), V = x.size(1);
    Tensor probs = empty({N, V}, x.dtype());  // saved for backward: softmax of every row
    double total = 0;
    std::int64_t count = 0;
    dispatch_float(x.dtype(), "cross_entropy", [&]<typename T>(T) {
        const T* px = x.const_data_ptr<T>();
        T* pp = probs.data_ptr<T>();
        for (std::int64_t n = 0; n < N; ++n) {
            const T* row = px + n * V;
            T* prow = pp + n * V;
            if (t[static_cast<std::size_t>(n)] == ignore_index) {
                std::fill(prow, prow + V, T(0));
                continue;
            }
            T m = row[0];  // stable log-sum-exp: subtract the row max
            for (std::int64_t j = 1; j < V; ++j) m = std::max(m, row[j]);
            double s = 0;
            for (std::int64_t j = 0; j < V; ++j) s += (prow[j] = std::exp(row[j] - m));
            for (std::int64_t j = 0; j < V; ++j) prow[j] = static_cast<T>(prow[j] / s);
            total += std::log(s) + m - row[t[static_cast<std::size_t>(n)]];  // −log p(target)
            ++count;
        }
    });
    Tensor loss = scalar(count ? total / static_cast<double>(count) : 0.0, x.dtype());
    record(loss, "cross_entropy", {logits}, [probs, t, count, shape = logits.shape()](const Tensor& g) -> Grads {
        // d loss / d logits = (softmax − one_hot(target)) / count on kept rows, 0 on ignored ones
        Tensor grad = clone(probs);
        const std::int64_t n_classes = probs.size(1);
        dispatch_float(grad.dtype(), "cross_entropy", [&]<typename T>(T) {
            T* pg = grad.data_ptr<T>();
            const T scale = static_cast<T>(count ? g.item() / static_cast<double>(count) : 0.0);
            for (std::size_t n = 0; n < t.size(); ++n) {
                T* row = pg + static_cast<std::int64_t>(n) * n_classes;
                if (t[n] >= 0 && t[n] < n_classes) row[t[n]] -= T(1);  // ignored rows are all zero already
                for (std::int64_t j = 0; j < n_classes; ++j) row[j] *= scale;
            }
        });
        return {grad.reshape(shape)};
    });
    return loss;
}

Tensor cross_entropy_reference(const Tensor& logits, const Tensor& targets, std::int64_t ignore_index) {
    auto [x, t] = rows_and_targets(logits, targets, ignore_index);
    std::vector<std::int64_t> safe(t), keep_v;  // ignored rows: any valid class, weighted 0
    for (auto& y : safe) {
        keep_v.push_back(y != ignore_index);
        if (y == ignore_index) y = 0;
    }
    Tensor keep = from_vector<std::int64_t>(keep_v, {static_cast<std::int64_t>(keep_v.size())}).to(x.dtype());
    Tensor picked = sum(log_softmax(logits.reshape({-1, x.size(1)}), 1) *
                        one_hot(from_vector<std::int64_t>(safe, {keep.numel()}), x.size(1), x.dtype()), 1);
    const double count = keep.sum().item();
    return -sum(picked * keep) / (count > 0 ? count : 1.0);
}

Tensor mse_loss(const Tensor& a, const Tensor& b) {
    Tensor d = a - b;
    return mean(d * d);
}

}  // namespace attnlab::nn
