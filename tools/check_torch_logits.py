#!/usr/bin/python3
"""Loads a trained attnlab checkpoint into the plain-PyTorch TinyGPT of
tools/make_tinygpt_fixture.py and compares its logits with `tinygpt eval --dump-logits`.

tests/nn/test_transformer_torch.cpp checks one direction (PyTorch's weights in attnlab);
this is the other: attnlab's trained weights, by name, in torch.nn. Run it by hand (the
build and the tests never need PyTorch; Debian's python3-torch and python3-numpy):

    make -j2 build train
    build/tinygpt eval --checkpoint out/checkpoints/causal_model.safetensors \\
        --prompt "the cat sat on the mat" --dump-logits /tmp/logits.npy
    /usr/bin/python3 tools/check_torch_logits.py out/checkpoints/causal_model.safetensors \\
        "the cat sat on the mat" /tmp/logits.npy

It prints the largest |difference| and exits 1 if it exceeds 1e-4 (float32 summed in a
different order differs in the last bits, not more).
"""
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_tinygpt_fixture as fx  # noqa: E402  (the module, written once)

NUMPY_DTYPE = {"F32": "<f4", "F64": "<f8", "I64": "<i8"}


def read_checkpoint(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        buffer = f.read()
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        if name.startswith(("optim.", "train.")):  # optimizer moments and loss curve, not parameters
            continue
        begin, end = info["data_offsets"]
        a = np.frombuffer(buffer[begin:end], dtype=NUMPY_DTYPE[info["dtype"]]).reshape(info["shape"])
        tensors[name] = torch.from_numpy(a.copy())
    return metadata, tensors


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check_torch_logits.py CHECKPOINT.safetensors PROMPT LOGITS.npy")
    ckpt, prompt, logits_path = sys.argv[1:]
    metadata, state = read_checkpoint(ckpt)
    if metadata.get("corpus"):
        sys.exit(f"{ckpt}: a corpus checkpoint; this script tokenizes grammar prompts (<bos> + words) only")
    for key, supported in (("positions", "learned"), ("normalizer", "softmax")):
        value = metadata.get(key, supported)  # absent: written before the choice existed, so learned / softmax
        if value != supported:
            sys.exit(f"{ckpt}: metadata '{key}' is '{value}'; the PyTorch TinyGPT of make_tinygpt_fixture.py "
                     f"has {supported} {key} only")
    vocab = json.loads(metadata["vocab"])
    # The module reads its sizes from these module-level names when it is built.
    fx.VOCAB, fx.CONTEXT = len(vocab), int(metadata["context"])
    fx.D_MODEL, fx.N_HEADS, fx.N_LAYERS = int(metadata["d_model"]), int(metadata["n_heads"]), int(metadata["n_layers"])
    model = fx.TinyGPT(causal=metadata["causal"] == "true")
    model.load_state_dict(state)  # strict: every name and shape must match
    model.eval()

    ids = [vocab.index("<bos>")]
    for word in prompt.split():
        if word not in vocab:
            sys.exit(f"prompt: '{word}' is not in the checkpoint's vocabulary")
        ids.append(vocab.index(word))
    with torch.no_grad():
        ours = model(torch.tensor([ids])).numpy()[0]  # [T, V]
    theirs = np.load(logits_path)
    if theirs.shape != ours.shape:
        sys.exit(f"{logits_path}: shape {theirs.shape}, but the prompt gives {ours.shape}")
    diff = float(np.abs(ours - theirs).max())
    print(f"{len(state)} tensors loaded; logits {list(ours.shape)}; max |torch - tinygpt eval| = {diff:.2e}")
    sys.exit(0 if diff <= 1e-4 else 1)


if __name__ == "__main__":
    main()
