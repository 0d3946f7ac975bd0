// gru.cpp — see gru.hpp.
#include "nn/gru.hpp"

#include <cmath>
#include <string>

#include "tensor/ops.hpp"

namespace attnlab::nn {

GRUCell::GRUCell(std::int64_t input_size_, std::int64_t hidden_size_, Generator& gen)
    : input_size(input_size_), hidden_size(hidden_size_) {
    if (input_size <= 0 || hidden_size <= 0)
        throw ValueError("GRUCell: sizes must be positive, got input_size=" + std::to_string(input_size) +
                         " hidden_size=" + std::to_string(hidden_size));
    const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
    const std::int64_t h3 = 3 * hidden_size;
    weight_ih = register_parameter("weight_ih", uniform({h3, input_size}, -bound, bound, kFloat32, gen));
    weight_hh = register_parameter("weight_hh", uniform({h3, hidden_size}, -bound, bound, kFloat32, gen));
    bias_ih = register_parameter("bias_ih", uniform({h3}, -bound, bound, kFloat32, gen));
    bias_hh = register_parameter("bias_hh", uniform({h3}, -bound, bound, kFloat32, gen));
}

Tensor GRUCell::input_gates(const Tensor& x) const {
    if (x.dim() == 0 || x.size(-1) != input_size)
        throw ShapeError("GRUCell: input " + x.shape().str() + " does not end in input_size = " + std::to_string(input_size));
    return matmul(x, weight_ih.mT()) + bias_ih;  // [..., 3h]: (W_ir x + b_ir, W_iz x + b_iz, W_in x + b_in)
}

static void check_step(const Tensor& gates_x, const Tensor& h, std::int64_t H) {
    if (h.dim() != 2 || h.size(1) != H || gates_x.dim() != 2 || gates_x.size(0) != h.size(0) || gates_x.size(1) != 3 * H)
        throw ShapeError("GRUCell: expected gates_x [B, " + std::to_string(3 * H) + "] and h [B, " + std::to_string(H) +
                         "], got " + gates_x.shape().str() + " and " + h.shape().str());
}

Tensor GRUCell::step_composed(const Tensor& gates_x, const Tensor& h) const {
    const std::int64_t H = hidden_size;
    check_step(gates_x, h, H);
    Tensor gates_h = matmul(h, weight_hh.mT()) + bias_hh;                        // [B, 3h]
    Tensor rz = sigmoid(gates_x.narrow(1, 0, 2 * H) + gates_h.narrow(1, 0, 2 * H));  // [B, 2h]: r and z together
    Tensor r = rz.narrow(1, 0, H), z = rz.narrow(1, H, H);                       // [B, h] each
    Tensor n = tanh(gates_x.narrow(1, 2 * H, H) + r * gates_h.narrow(1, 2 * H, H));  // candidate [B, h]
    return n + z * (h - n);  // (1 − z) ⊙ n + z ⊙ h, one op fewer
}

Tensor GRUCell::step(const Tensor& gates_x, const Tensor& h) const {
    check_step(gates_x, h, hidden_size);
    return gru_fused(gates_x.unsqueeze(1), h, weight_hh, bias_hh).squeeze(1);  // a run of one step
}

Tensor GRUCell::forward(const Tensor& x, const Tensor& h) const { return step(input_gates(x), h); }

GRU::GRU(std::int64_t input_size, std::int64_t hidden_size, Generator& gen) : cell(input_size, hidden_size, gen) {
    register_module("cell", cell);
}

static void check_sequence(const Tensor& x, const std::vector<std::int64_t>& lengths) {
    if (x.dim() != 3) throw ShapeError("GRU: expected x [B, T, input_size], got " + x.shape().str());
    if (!lengths.empty() && static_cast<std::int64_t>(lengths.size()) != x.size(0))
        throw ShapeError("GRU: " + std::to_string(lengths.size()) + " lengths for a batch of " + std::to_string(x.size(0)));
    for (std::int64_t len : lengths)
        if (len < 1 || len > x.size(1))
            throw ValueError("GRU: length " + std::to_string(len) + " outside [1, " + std::to_string(x.size(1)) + "]");
}

GRUOutput GRU::forward(const Tensor& x, const Tensor& h0, const std::vector<std::int64_t>& lengths) const {
    check_sequence(x, lengths);
    const std::int64_t B = x.size(0), T = x.size(1), H = cell.hidden_size;
    Tensor h = h0.defined() ? h0 : zeros({B, H}, x.dtype());
    Tensor outputs = gru_fused(cell.input_gates(x), h, cell.weight_hh, cell.bias_hh, lengths);  // [B, T, H]
    if (lengths.empty()) return {outputs, outputs.select(1, T - 1)};
    // last[b] = outputs[b, lengths[b] − 1]: pick those rows out of the [B·T, H] view
    std::vector<std::int64_t> rows;
    for (std::int64_t b = 0; b < B; ++b) rows.push_back(b * T + lengths[static_cast<std::size_t>(b)] - 1);
    return {outputs, index_select(outputs.reshape({B * T, H}), 0, from_vector(rows, {B}))};
}

GRUOutput GRU::forward_composed(const Tensor& x, const Tensor& h0, const std::vector<std::int64_t>& lengths) const {
    check_sequence(x, lengths);
    const std::int64_t B = x.size(0), T = x.size(1);
    Tensor h = h0.defined() ? h0 : zeros({B, cell.hidden_size}, x.dtype());
    Tensor gates_x = cell.input_gates(x);  // [B, T, 3h]: one matmul for every step's input half
    std::vector<Tensor> outputs;
    outputs.reserve(static_cast<std::size_t>(T));
    for (std::int64_t t = 0; t < T; ++t) {
        Tensor h_new = cell.step_composed(gates_x.select(1, t), h);  // [B, h]
        if (lengths.empty()) {
            h = h_new;
            outputs.push_back(h);
            continue;
        }
        // valid[b] = 1 while step t is inside sequence b, else 0: finished sequences keep their state
        std::vector<double> valid(static_cast<std::size_t>(B));
        for (std::int64_t b = 0; b < B; ++b) valid[static_cast<std::size_t>(b)] = t < lengths[static_cast<std::size_t>(b)];
        Tensor m = from_vector(valid, {B, 1}, x.dtype());
        h = where(m, h_new, h);
        outputs.push_back(h * m);
    }
    return {stack(outputs, 1), h};  // outputs [B, T, h], last [B, h]
}

}  // namespace attnlab::nn
