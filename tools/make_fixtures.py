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


def main():
    os.makedirs(OUT, exist_ok=True)
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
