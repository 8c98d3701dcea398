"""Writes the weights files that autograd/nn's format tests read without torch.

Run with Debian's python3-torch (1.13):  /usr/bin/python3 generate.py
from this folder. The values are simple formulas that the Go tests state
again on their own (see statedict_test.go), so the files need no other copy
of the numbers.

  sequential.pt           torch.save(state_dict) of
                          Sequential(Linear(3, 2), ReLU(), BatchNorm1d(2))
  sequential.safetensors  the same state dict in the safetensors format,
                          written by write_safetensors below (the reference
                          safetensors package is not installed here)
  views.pt                a dict of tensors that are views into shared
                          storages: a transpose, a row at an offset, plus a
                          float64 and an int64 tensor
"""
import collections
import json
import struct

import torch

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64"}


def write_safetensors(path, tensors, metadata=None):
    """The safetensors layout: an 8-byte little-endian header length, the
    JSON header padded with spaces to a multiple of 8, then the data."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        data = t.contiguous().numpy().tobytes()  # little-endian on this machine
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    js = json.dumps(header).encode()
    js += b" " * (-len(js) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(js)) + js + b"".join(blobs))


def sequential():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.BatchNorm1d(2))
    with torch.no_grad():
        # weight[i] = i/4 - 1/2 (row-major), the rest as listed.
        m[0].weight.copy_(torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4 - 0.5)
        m[0].bias.copy_(torch.tensor([0.125, -0.375]))
        m[2].weight.copy_(torch.tensor([1.5, -2.0]))
        m[2].bias.copy_(torch.tensor([0.25, 0.5]))
        m[2].running_mean.copy_(torch.tensor([0.5, -0.25]))
        m[2].running_var.copy_(torch.tensor([2.0, 0.75]))
        m[2].num_batches_tracked.fill_(7)
    return m.state_dict()


def main():
    sd = sequential()
    torch.save(sd, "sequential.pt")
    write_safetensors("sequential.safetensors", sd, {"format": "pt"})

    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)  # base[i, j] = 4i + j
    views = {
        "transposed": base.t(),       # [4, 3], stride (1, 4)
        "row": base[2],               # [4] at storage offset 8
        "double": torch.arange(5, dtype=torch.float64) / 8 - 0.25,
        "count": torch.tensor(-3, dtype=torch.int64),
    }
    torch.save(views, "views.pt")


if __name__ == "__main__":
    main()
