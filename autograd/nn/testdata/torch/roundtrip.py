"""The PyTorch half of TestTorchRoundTrip (torch_test.go); run as
/usr/bin/python3 roundtrip.py DIR.

Go to PyTorch: reads DIR/go_a.pt with torch.load(weights_only=True) and
DIR/go_b.safetensors with the reader below into the same architectures,
runs them in eval mode on the inputs of DIR/io.pt and compares with Go's
outputs there (to 1e-6). PyTorch to Go: builds the models afresh from a
seed, runs one training batch (so BatchNorm's running statistics move),
and writes their state dicts with torch.save (DIR/torch_a.pt,
DIR/torch_b.pt) and their eval outputs on the same inputs (DIR/torch_io.pt)
for Go to compare.
"""
import json
import struct
import sys

import torch

TOL = 1e-6
DTYPES = {"F32": torch.float32, "F64": torch.float64, "I64": torch.int64}


def model_a():
    # Go: Sequential(Linear(4, 8), BatchNorm1d(8), ReLU, Linear(8, 6), LayerNorm([6]), Linear(6, 3)), float32
    n = torch.nn
    return n.Sequential(n.Linear(4, 8), n.BatchNorm1d(8), n.ReLU(), n.Linear(8, 6), n.LayerNorm(6), n.Linear(6, 3))


def model_b():
    # Go: Sequential(Conv2d(2, 3, 3, padding 1), BatchNorm2d(3), Tanh, Flatten, Linear(48, 2)), float64
    n = torch.nn
    return n.Sequential(n.Conv2d(2, 3, 3, padding=1), n.BatchNorm2d(3), n.Tanh(), n.Flatten(), n.Linear(48, 2)).double()


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    data = raw[8 + n:]
    out = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[b:e]), dtype=DTYPES[info["dtype"]])
        out[name] = t.reshape(info["shape"])
    return out


def check(name, got, want):
    err = (got - want).abs().max().item()
    if not err <= TOL:
        sys.exit(f"{name}: PyTorch's output differs from Go's by {err} (> {TOL})\n{got}\n{want}")


def main(d):
    io = torch.load(f"{d}/io.pt", weights_only=True)

    # Go to PyTorch.
    a, b = model_a(), model_b()
    a.load_state_dict(torch.load(f"{d}/go_a.pt", weights_only=True), strict=True)
    b.load_state_dict(read_safetensors(f"{d}/go_b.safetensors"), strict=True)
    a.eval(), b.eval()
    with torch.no_grad():
        check("model a", a(io["x_a"]), io["y_a"])
        check("model b", b(io["x_b"]), io["y_b"])

    # PyTorch to Go.
    torch.manual_seed(7)
    a, b = model_a(), model_b()
    with torch.no_grad():
        a(torch.randn(5, 4))
        b(torch.randn(3, 2, 4, 4, dtype=torch.float64))
        a.eval(), b.eval()
        torch.save(a.state_dict(), f"{d}/torch_a.pt")
        torch.save(b.state_dict(), f"{d}/torch_b.pt")
        torch.save({"y_a": a(io["x_a"]), "y_b": b(io["x_b"])}, f"{d}/torch_io.pt")
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
