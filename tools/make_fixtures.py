#!/usr/bin/python3
"""Writes PyTorch reference values for attnlab's tests into tests/fixtures/.

For each case: inputs (float32, fixed seed), the output of the op in PyTorch,
and the gradient of L = sum(out * R) for every input, R a fixed random tensor
(a plain sum would check nothing for softmax, whose rows always sum to 1).
Files: <case>.in<i>.npy, <case>.r.npy, <case>.out.npy, <case>.grad<i>.npy.

The C++ side (tests/tensor/test_fixtures.cpp) lists the same cases; CI never
needs PyTorch, only regenerating the fixtures does:

    /usr/bin/python3 tools/make_fixtures.py     # needs Debian's python3-torch, python3-numpy

(Debian's torch is importable only by Debian's own /usr/bin/python3.)
"""
import math
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
torch.manual_seed(20261121)


def rand(*shape, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, dtype=torch.float64) * (hi - lo) + lo).float()


def attention(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def causal_attention(q, k, v):
    t = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), 1), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def layer_norm(x, w, b):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)


CASES = {
    "softmax": (lambda x: torch.softmax(x, -1), [rand(4, 6, lo=-3, hi=3)]),
    "log_softmax": (lambda x: torch.log_softmax(x, 1), [rand(2, 5, 3, lo=-3, hi=3)]),
    "matmul_batched": (lambda a, b: a @ b, [rand(2, 1, 3, 4), rand(3, 4, 5)]),
    "gelu": (torch.nn.functional.gelu, [rand(3, 7, lo=-4, hi=4)]),
    "tanh_sigmoid": (lambda x: torch.tanh(x) * torch.sigmoid(x), [rand(10, lo=-3, hi=3)]),
    "var_mean": (lambda x: torch.var(x, 1) + x.mean(1), [rand(4, 8)]),
    "layer_norm": (layer_norm, [rand(2, 3, 8), rand(8, lo=0.5, hi=1.5), rand(8)]),
    "attention": (attention, [rand(2, 6, 16), rand(2, 6, 16), rand(2, 6, 16)]),
    "causal_attention": (causal_attention, [rand(1, 2, 5, 8), rand(1, 2, 5, 8), rand(1, 2, 5, 8)]),
}


class MHA(torch.nn.Module):
    """The course's multi-head attention module, with attnlab's parameter names."""

    def __init__(self, d_model, n_heads, kdim, vdim):
        super().__init__()
        self.h, self.d_k = n_heads, d_model // n_heads
        self.w_q = torch.nn.Linear(d_model, d_model)
        self.w_k = torch.nn.Linear(kdim, d_model)
        self.w_v = torch.nn.Linear(vdim, d_model)
        self.w_o = torch.nn.Linear(d_model, d_model)

    def forward(self, q_in, kv_in, causal):
        b, tq, tk = q_in.shape[0], q_in.shape[1], kv_in.shape[1]
        split = lambda t, n: t.view(b, n, self.h, self.d_k).transpose(1, 2)
        q, k, v = split(self.w_q(q_in), tq), split(self.w_k(kv_in), tk), split(self.w_v(kv_in), tk)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if causal:
            scores = scores.masked_fill(torch.triu(torch.ones(tq, tk, dtype=torch.bool), 1), float("-inf"))
        weights = torch.softmax(scores, -1)
        out = (weights @ v).transpose(1, 2).reshape(b, tq, -1)
        return self.w_o(out), weights


def save(name, array):
    np.save(os.path.join(OUT, name + ".npy"), np.ascontiguousarray(array))


def mha_fixture(name, d_model, n_heads, q_shape, kv_shape, causal):
    """Saves inputs, parameters, outputs and every gradient of sum(out*R) + sum(weights*S)."""
    mha = MHA(d_model, n_heads, kv_shape[-1], kv_shape[-1])
    xq = rand(*q_shape).requires_grad_(True)
    xkv = xq if causal else rand(*kv_shape).requires_grad_(True)
    out, weights = mha(xq, xkv, causal)
    r, s = torch.randn(out.shape), torch.randn(weights.shape)
    ((out * r).sum() + (weights * s).sum()).backward()
    save(f"{name}.x_q", xq.detach().numpy())
    save(f"{name}.x_q.grad", xq.grad.numpy())
    if not causal:
        save(f"{name}.x_kv", xkv.detach().numpy())
        save(f"{name}.x_kv.grad", xkv.grad.numpy())
    for pname, p in mha.named_parameters():
        save(f"{name}.param.{pname}", p.detach().numpy())
        save(f"{name}.grad.{pname}", p.grad.numpy())
    save(f"{name}.r", r.numpy())
    save(f"{name}.s", s.numpy())
    save(f"{name}.out", out.detach().numpy())
    save(f"{name}.weights", weights.detach().numpy())
    print(f"{name}: out {tuple(out.shape)}, weights {tuple(weights.shape)}")


def optimizer_fixture(name, make):
    """Three steps of an optimizer on fixed gradients; saves the start, the gradients and the result."""
    p = torch.nn.Parameter(rand(2, 3))
    grads = rand(3, 2, 3, lo=-2, hi=2)
    save(f"{name}.start", p.detach().numpy())
    save(f"{name}.grads", grads.numpy())
    opt = make([p])
    for g in grads:
        p.grad = g.clone()
        opt.step()
    save(f"{name}.end", p.detach().numpy())
    print(f"{name}: 3 steps")


def main():
    os.makedirs(OUT, exist_ok=True)
    mha_fixture("mha_causal", 64, 8, (2, 6, 64), (2, 6, 64), causal=True)
    mha_fixture("mha_cross", 16, 4, (2, 5, 16), (2, 7, 12), causal=False)
    optimizer_fixture("sgd_momentum", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01))
    optimizer_fixture("adam", lambda ps: torch.optim.Adam(ps, lr=0.01, weight_decay=0.1))
    optimizer_fixture("adamw", lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1))
    for name, (fn, inputs) in CASES.items():
        xs = [x.clone().requires_grad_(True) for x in inputs]
        out = fn(*xs)
        r = torch.randn(out.shape)
        (out * r).sum().backward()
        for i, x in enumerate(xs):
            np.save(os.path.join(OUT, f"{name}.in{i}.npy"), x.detach().numpy())
            np.save(os.path.join(OUT, f"{name}.grad{i}.npy"), x.grad.numpy())
        np.save(os.path.join(OUT, f"{name}.r.npy"), r.numpy())
        np.save(os.path.join(OUT, f"{name}.out.npy"), out.detach().numpy())
        print(f"{name}: out {tuple(out.shape)}, {len(xs)} inputs")


if __name__ == "__main__":
    main()
