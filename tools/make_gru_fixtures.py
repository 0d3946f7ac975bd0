"""Writes tests/fixtures/gru/*.npy: torch.nn.GRUCell and torch.nn.GRU outputs and gradients,
read by tests/nn/test_gru.cpp. Run with Debian's interpreter (it has torch and numpy):

    /usr/bin/python3 tools/make_gru_fixtures.py

Every array is float64. The loss is sum(out * r) for a fixed random r (a plain sum would
hide errors that cancel), backpropagated to the inputs and every parameter.
"""
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "gru")


def save(name, t):
    np.save(os.path.join(OUT, name + ".npy"), t.detach().double().numpy())


def params(prefix, module, suffix=""):
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        p = getattr(module, name + suffix)
        save(f"{prefix}.{name}", p)
        save(f"{prefix}.{name}.grad", p.grad)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    # GRUCell: B 3, in 5, hidden 4
    cell = torch.nn.GRUCell(5, 4).double()
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    h = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    out = cell(x, h)
    r = torch.randn_like(out)
    (out * r).sum().backward()
    for name, t in (("x", x), ("h", h), ("out", out), ("r", r), ("x.grad", x.grad), ("h.grad", h.grad)):
        save("cell." + name, t)
    params("cell", cell)

    # GRU over a sequence: B 2, T 6, in 5, hidden 4, batch_first, initial state given
    gru = torch.nn.GRU(5, 4, batch_first=True).double()
    xs = torch.randn(2, 6, 5, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(1, 2, 4, dtype=torch.float64, requires_grad=True)
    outs, hn = gru(xs, h0)
    r = torch.randn_like(outs)
    (outs * r).sum().backward()
    for name, t in (("x", xs), ("h0", h0[0]), ("out", outs), ("h_n", hn[0]), ("r", r), ("x.grad", xs.grad),
                    ("h0.grad", h0.grad[0])):
        save("seq." + name, t)
    params("seq", gru, "_l0")


if __name__ == "__main__":
    main()
