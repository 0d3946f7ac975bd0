#!/usr/bin/python3
"""Prints what a .safetensors file holds, with struct, json and numpy alone:

    /usr/bin/python3 tools/read_safetensors.py model.safetensors

That is the whole format: an 8-byte little-endian header length, a JSON header
naming each tensor's dtype, shape and [begin, end) in the buffer, then the buffer.
"""
import json
import struct
import sys

import numpy as np

NUMPY_DTYPE = {"F32": "<f4", "F64": "<f8", "I64": "<i8"}  # attnlab's three dtypes

with open(sys.argv[1], "rb") as f:
    (header_len,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(header_len))
    buffer = f.read()

print("metadata:", header.pop("__metadata__", {}))
for name, info in header.items():
    begin, end = info["data_offsets"]
    a = np.frombuffer(buffer[begin:end], dtype=NUMPY_DTYPE[info["dtype"]]).reshape(info["shape"])
    print(f"{name}: {info['dtype']} shape={list(a.shape)} first values={a.ravel()[:6].tolist()}")
