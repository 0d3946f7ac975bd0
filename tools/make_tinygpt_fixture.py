#!/usr/bin/python3
"""Writes tests/fixtures/tinygpt/: TinyGPT written in plain PyTorch, its weights as a
.safetensors file, and its logits, loss and every gradient on a fixed batch.

tests/nn/test_transformer_torch.cpp loads these weights by name into attnlab's
nn::Transformer and checks it computes the same numbers. That is what makes the
claim "an attnlab checkpoint loads into the equivalent torch.nn.Module" true: the
names, the shapes ([out, in] weights) and the arithmetic (pre-LayerNorm blocks, erf
GELU, 1/sqrt(d_k) scaling, untied head without bias) all have to agree.

    /usr/bin/python3 tools/make_tinygpt_fixture.py    # Debian's python3-torch, python3-numpy

Files, per variant (causal, bidirectional):
  <variant>.safetensors        the parameters, in state_dict order, as PyTorch names them
  <variant>.grads.safetensors  d loss / d parameter, same names
  <variant>.ids.npy, .targets.npy (int64 [B, T]); .logits.npy (float32 [B, T, V]); .loss.npy (scalar)
"""
import json
import math
import os
import struct

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "tinygpt")
VOCAB, CONTEXT, D_MODEL, N_HEADS, N_LAYERS = 13, 8, 16, 4, 2


class Attention(nn.Module):
    def __init__(self, d_model, n_heads, causal):
        super().__init__()
        self.n_heads, self.causal = n_heads, causal
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d_model, d_model) for _ in range(4))

    def forward(self, h):
        b, t, d = h.shape
        split = lambda x: x.view(b, t, self.n_heads, d // self.n_heads).transpose(1, 2)  # [B, H, T, d_k]
        q, k, v = split(self.w_q(h)), split(self.w_k(h)), split(self.w_v(h))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.n_heads)
        if self.causal:
            scores = scores.masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), 1), float("-inf"))
        return self.w_o((torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, t, d))


class MLP(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d_model, 4 * d_model), nn.Linear(4 * d_model, d_model)

    def forward(self, h):
        return self.fc2(F.gelu(self.fc1(h)))  # erf GELU, PyTorch's default


class Block(nn.Module):
    def __init__(self, d_model, n_heads, causal):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(d_model), Attention(d_model, n_heads, causal)
        self.ln2, self.mlp = nn.LayerNorm(d_model), MLP(d_model)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, causal):
        super().__init__()
        self.tok_emb, self.pos_emb = nn.Embedding(VOCAB, D_MODEL), nn.Embedding(CONTEXT, D_MODEL)
        self.blocks = nn.ModuleList(Block(D_MODEL, N_HEADS, causal) for _ in range(N_LAYERS))
        self.ln_f = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB, bias=False)

    def forward(self, ids):
        x = self.tok_emb(ids) + self.pos_emb(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def write_safetensors(path, named):
    """The format, from its specification: u64 header length, JSON header, raw buffer."""
    header, chunks, offset = {"__metadata__": {"source": "tools/make_tinygpt_fixture.py"}}, [], 0
    for name, t in named:
        data = t.detach().contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def fixture(variant, causal, seed):
    torch.manual_seed(seed)
    model = TinyGPT(causal)
    with torch.no_grad():  # LayerNorm starts at 1 and 0; perturb it so its parameters matter
        for name, p in model.named_parameters():
            if ".ln" in name or name.startswith("ln_f"):
                p.add_(0.2 * torch.randn_like(p))
    # T = 6 < CONTEXT: only the first rows of pos_emb are used, and get a gradient.
    ids = torch.randint(0, VOCAB, (2, 6))
    targets = torch.randint(0, VOCAB, (2, 6))
    logits = model(ids)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
    loss.backward()

    prefix = os.path.join(OUT, variant)
    write_safetensors(prefix + ".safetensors", list(model.named_parameters()))
    write_safetensors(prefix + ".grads.safetensors", [(n, p.grad) for n, p in model.named_parameters()])
    np.save(prefix + ".ids.npy", ids.numpy())
    np.save(prefix + ".targets.npy", targets.numpy())
    np.save(prefix + ".logits.npy", logits.detach().numpy())
    np.save(prefix + ".loss.npy", loss.detach().numpy())
    print(f"{variant}: {sum(p.numel() for p in model.parameters())} parameters, loss {loss.item():.6f}")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    fixture("causal", causal=True, seed=1)
    fixture("bidirectional", causal=False, seed=2)
