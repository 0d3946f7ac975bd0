#!/usr/bin/python3
"""Writes tests/fixtures/safetensors/reference.safetensors with Python's standard
library and numpy only: a safetensors writer that shares no code with attnlab's,
for tests/io/test_safetensors.cpp to read.

    /usr/bin/python3 tools/make_safetensors_fixture.py

The file differs on purpose from what attnlab writes, to exercise the reader:
the header has json.dumps' default spacing and escapes non-ASCII as \\uXXXX
(a surrogate pair for the emoji), "__metadata__" comes last rather than first,
and the buffer holds the tensors in another order than the header lists them.
"""
import json
import os
import struct

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "safetensors",
                   "reference.safetensors")
LITTLE_ENDIAN = {"F32": "<f4", "F64": "<f8", "I64": "<i8"}

# In header order: name -> (dtype, values). test_safetensors.cpp spells out the same values.
TENSORS = {
    "embedding": ("F32", np.arange(12).reshape(3, 4) / 8 - 0.75),
    "stats": ("F64", np.array([0.1, -0.0, 1e300, 5e-324, np.inf, -np.inf, np.nan])),
    "positions": ("I64", np.array([0, -1, 2**40, -2**63, 2**63 - 1], dtype=np.int64)),
    "scale": ("F32", np.array(2.5)),
    "empty": ("F32", np.zeros((0, 3))),
}
BUFFER_ORDER = ["positions", "stats", "empty", "scale", "embedding"]
METADATA = {"format": "pt", "step": "1000", "note": "caf\u00e9 \u2713 \U0001F600 \"quoted\"\n"}

header, chunks, offset = {}, {}, 0
for name in BUFFER_ORDER:
    dtype, values = TENSORS[name]
    chunks[name] = np.asarray(values).astype(LITTLE_ENDIAN[dtype]).tobytes()
    header[name] = {"dtype": dtype, "shape": list(np.shape(values)),
                    "data_offsets": [offset, offset + len(chunks[name])]}
    offset += len(chunks[name])
header = {name: header[name] for name in TENSORS}  # back to header order
header["__metadata__"] = METADATA
text = json.dumps(header).encode("utf-8")
text += b" " * (-len(text) % 8)

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks[name] for name in BUFFER_ORDER))
print("wrote", os.path.normpath(OUT))
