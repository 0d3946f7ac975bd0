#!/usr/bin/env python3
"""tests/fuzz/make_seeds.py — writes the seed corpora in tests/fuzz/corpus/ (but for
seq2seq_checkpoint's, which `seq2seq train` writes: see README.md) and the regression
inputs in tests/fuzz/regressions/ (standard library only).

Seeds are small valid files of each format, so the fuzzer starts inside the parser
rather than at its first check. Run it from the repository root; the output is
deterministic, and the files are committed.
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def put(kind, target, name, data):
    d = os.path.join(HERE, kind, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def npy(descr, shape, payload):
    tup = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, tup)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload


def safetensors(tensors, metadata=None):
    """tensors: list of (name, dtype, shape, bytes), laid out back to back."""
    header, buf = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(buf), len(buf) + len(data)]}
        buf += data
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text.encode() + buf


def f32(values):
    return struct.pack("<%df" % len(values), *values)


def checkpoint(d_model=4, n_heads=2, n_layers=1, vocab=("<pad>", "a", "b"), context=2, step=None, positions=None,
               normalizer=None):
    """A tiny attnlab checkpoint (nn/checkpoint.cpp's names and metadata). positions and normalizer
    absent: a file from before they could be chosen (learned, softmax)."""
    V, d, h = len(vocab), d_model, 4 * d_model
    shapes = [("tok_emb.weight", [V, d])]
    if positions in (None, "learned"):  # sinusoidal and none have no table
        shapes.append(("pos_emb.weight", [context, d]))
    for b in range(n_layers):
        p = "blocks.%d." % b
        shapes += [(p + "ln1.weight", [d]), (p + "ln1.bias", [d])]
        for w in ("w_q", "w_k", "w_v", "w_o"):
            shapes += [(p + "attn.%s.weight" % w, [d, d]), (p + "attn.%s.bias" % w, [d])]
        shapes += [(p + "ln2.weight", [d]), (p + "ln2.bias", [d]),
                   (p + "mlp.fc1.weight", [h, d]), (p + "mlp.fc1.bias", [h]),
                   (p + "mlp.fc2.weight", [d, h]), (p + "mlp.fc2.bias", [d])]
    shapes += [("ln_f.weight", [d]), ("ln_f.bias", [d]), ("head.weight", [V, d])]
    tensors = []
    for i, (name, shape) in enumerate(shapes):
        n = 1
        for s in shape:
            n *= s
        values = [1.0 if name.endswith("ln1.weight") or name.endswith("ln2.weight") or name == "ln_f.weight"
                  else ((i * 7 + k * 3) % 11 - 5) / 20.0 for k in range(n)]
        tensors.append((name, "F32", shape, f32(values)))
    meta = {"format": "attnlab-checkpoint", "format_version": "1", "kind": "causal",
            "vocab_size": str(V), "d_model": str(d), "n_heads": str(n_heads), "n_layers": str(n_layers),
            "context": str(context), "causal": "true", "window": "0", "stride": "0",
            "vocab": json.dumps(list(vocab), separators=(",", ":"))}
    if positions is not None:
        meta["positions"] = positions
    if normalizer is not None:
        meta["normalizer"] = normalizer
    if step is not None:
        meta["step"] = str(step)
        for i in range(4):
            meta["data_rng_%d" % i] = "%016x" % (0x9E3779B97F4A7C15 * (i + 1) % 2**64)
    return safetensors(tensors, meta)


# ---- seeds -------------------------------------------------------------------------
put("corpus", "npy", "f4_2x3.npy", npy("<f4", [2, 3], f32([1, 2, 3, 4, 5, 6])))
put("corpus", "npy", "f8_3.npy", npy("<f8", [3], struct.pack("<3d", 0.5, -1e300, 2.0)))
put("corpus", "npy", "i8_scalar.npy", npy("<i8", [], struct.pack("<q", -7)))
put("corpus", "npy", "f4_0x3.npy", npy("<f4", [0, 3], b""))

put("corpus", "safetensors", "two.safetensors",
    safetensors([("w", "F32", [2, 2], f32([1, 2, 3, 4])), ("ids", "I64", [3], struct.pack("<3q", 1, 2, 3))],
                {"step": "10"}))
put("corpus", "safetensors", "f64.safetensors", safetensors([("x", "F64", [], struct.pack("<d", 3.25))]))
put("corpus", "safetensors", "empty.safetensors", safetensors([]))

put("corpus", "checkpoint", "tiny.safetensors", checkpoint())
put("corpus", "checkpoint", "tiny_step.safetensors", checkpoint(n_heads=1, vocab=("<pad>", "x"), context=3, step=5))
put("corpus", "checkpoint", "tiny_sinusoidal_sparsemax.safetensors", checkpoint(positions="sinusoidal", normalizer="sparsemax"))

put("corpus", "json", "metrics.json", '{\n  "phase": 1,\n  "loss": 0.125,\n  "seeds": [1, 2, 3],\n  "ok": true\n}\n')
put("corpus", "json", "strings.json", '["caf\\u00e9", "\\ud83d\\ude00", "tab\\t", "", null, false]')
put("corpus", "json", "numbers.json", "[0, -0, 1e-300, 9007199254740993, -1.5E+10, 123456789012345678901]")
put("corpus", "json", "nested.json", '{"a": {"b": {"c": [[], {}]}}}')

put("corpus", "utf8", "grammar.txt", "the cat sat on the mat\nthe dog ran\n")
put("corpus", "utf8", "accents.txt", "\u00e9t\u00e9 \u2713 \U0001F600 na\u00efve")
put("corpus", "utf8", "mixed.txt", "<pad> [MASK] a\u00a0b\tc")

put("corpus", "corpus", "words.txt", "the cat sat on the mat.\nthe dog ran to the cat.\n" * 3)
put("corpus", "corpus", "unicode.txt", "\u00e9t\u00e9 caf\u00e9 \u2713 na\u00efve caf\u00e9\n")
put("corpus", "corpus", "one_word.txt", "cat cat cat\n")

# fuzz_options: argv[1:] separated by NUL bytes.
put("corpus", "options", "values.txt", "\0".join(["--steps", "5", "--lr=0.1", "--verbose", "--out", "a.bin"]))
put("corpus", "options", "lists.txt", "\0".join(["--d-k", "8,16,4096", "--heads=a,b,c", "--mode", "slow", "--seed=42"]))
put("corpus", "options", "help.txt", "\0".join(["--steps=3", "--help"]))

# fuzz_npy_write: dtype byte (f32, f64, i64; +3 = transposed), rank, dims, then value bytes.
put("corpus", "npy_write", "f32_2x3.bin", bytes([0, 2, 2, 3]) + f32([1, -0.0, float("nan"), 4, 5, 6]))
put("corpus", "npy_write", "f64_t_3x2x4.bin", bytes([4, 3, 3, 2, 4]) + struct.pack("<3d", 0.5, -1e300, float("inf")))
put("corpus", "npy_write", "i64_scalar.bin", bytes([2, 0]) + struct.pack("<q", -7))
put("corpus", "npy_write", "f32_0x5.bin", bytes([3, 2, 0, 5]))

# ---- regressions: .npy headers whose byte counts overflow ----------------------------
# (2^31, 2^31) of <f4: 2^64 bytes wrapped to 0, loaded as 2^62 elements over no storage.
put("regressions", "npy", "issue11_wrap_79_bytes.npy",
    b"\x93NUMPY\x01\x00\x45\x00{'descr':'<f4','fortran_order':False,'shape':(2147483648,2147483648)}")
# (8192, 2, 2^48) of <f4: the same wrap; build/gallery died of SIGSEGV on it.
put("regressions", "npy", "issue11_wrap_80_bytes.npy",
    b"\x93NUMPY\x01\x00\x46\x00{'descr':'<f4','fortran_order':False,'shape':(8192,2,281474976710656)}")

# Word corpora that read_word_corpus once accepted: Latin-1 bytes (training ran, then writing
# the vocabulary as JSON failed) and a NUL byte (a binary file taken for text).
put("regressions", "corpus", "latin1_word.txt", b"the cat sat on the mat\ncaf\xe9 au lait\n")
put("regressions", "corpus", "nul_byte.txt", b"the cat sat\x00on the mat\n")
