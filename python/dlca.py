"""Run a dlca model file (model.json) with NumPy alone.

A reader of docs/model-format.md written in Python, shipped with the project
and tested against `dlca eval` (cmd/dlca/python_test.go): it loads a model
file and runs the hard circuit (every gate its argmax op, on bits) and the
soft model (every gate the softmax mix of the 16 ops' relaxed forms) on a
NumPy state, one step or a rollout. docs/python.md shows how to use it.

    import numpy as np, dlca
    m = dlca.load("model.json")
    s = np.random.default_rng(1).integers(0, 2, (64, 64, m.channels), dtype=np.uint8)
    states = m.rollout(s, 80)              # [81, 64, 64, C] uint8, states[0] = s
    soft = m.rollout(s, 80, soft=True)     # float32

A state is [H, W, C] or a batch [B, H, W, C] (any B); a rollout of T steps
returns the T+1 states [T+1, H, W, C] or [T+1, B, H, W, C], as `dlca eval
-states` writes them. Only NumPy is needed.
"""

import json
import sys

import numpy as np

FORMAT = "dlca-model"
VERSION = 1
NUM_OPS = 16

# Op o on bits a, b is bit 3 - (2a + b) of o (docs/model-format.md); its
# relaxed form is c0 + c1 a + c2 b + c3 ab with these coefficients (the
# table's "relaxed (soft) form" column, the paper's notebook's
# bin_op_all_combinations).
RELAXED = np.array([
    [0, 0, 0, 0],    # FALSE
    [0, 0, 0, 1],    # AND: ab
    [0, 1, 0, -1],   # A AND NOT B: a - ab
    [0, 1, 0, 0],    # A
    [0, 0, 1, -1],   # NOT A AND B: b - ab
    [0, 0, 1, 0],    # B
    [0, 1, 1, -2],   # XOR: a + b - 2ab
    [0, 1, 1, -1],   # OR: a + b - ab
    [1, -1, -1, 1],  # NOR
    [1, -1, -1, 2],  # XNOR
    [1, 0, -1, 0],   # NOT B
    [1, 0, -1, 1],   # A OR NOT B
    [1, -1, 0, 0],   # NOT A
    [1, -1, 0, 1],   # NOT A OR B
    [1, 0, 0, -1],   # NAND
    [1, 0, 0, 0],    # TRUE
], dtype=np.float32)


class Layer:
    """One layer of gates: groups x out gates, each reading inputs a[j] and
    b[j] of its group's in_ inputs, with 16 float32 logits."""

    def __init__(self, d, in_, out, groups, where):
        if (d["in"], d["out"], d["groups"]) != (in_, out, groups):
            raise ValueError(f"{where}: in/out/groups {d['in']}/{d['out']}/{d['groups']}, the config needs {in_}/{out}/{groups}")
        self.in_, self.out, self.groups = in_, out, groups
        self.a = np.asarray(d["a"], dtype=np.int64)
        self.b = np.asarray(d["b"], dtype=np.int64)
        if self.a.shape != (out,) or self.b.shape != (out,):
            raise ValueError(f"{where}: wiring of {self.a.size} a and {self.b.size} b indices, want {out} each")
        if ((self.a < 0) | (self.a >= in_) | (self.b < 0) | (self.b >= in_)).any():
            raise ValueError(f"{where}: an input index out of [0, {in_})")
        logits = np.asarray(d["logits"], dtype=np.float32)  # read as float32, as the format says
        if logits.size != groups * out * NUM_OPS:
            raise ValueError(f"{where}: {logits.size} logits, want groups*out*16 = {groups * out * NUM_OPS}")
        if not np.isfinite(logits).all():
            raise ValueError(f"{where}: a logit is not finite")
        self.logits = logits.reshape(groups, out, NUM_OPS)
        # The hard op: the argmax of the float32 logits, the lowest op on a tie.
        self.ops = np.argmax(self.logits, axis=-1)
        # The soft gate's coefficients of 1, a, b, ab: softmax(logits) @ RELAXED.
        z = self.logits - self.logits.max(axis=-1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=-1, keepdims=True)
        self.coeffs = (p @ RELAXED).astype(np.float32)  # [groups, out, 4]

    def hard(self, x):
        """Bits x [..., groups, in] -> [..., groups, out]."""
        a = np.take(x, self.a, axis=-1)
        b = np.take(x, self.b, axis=-1)
        return (self.ops >> (3 - (2 * a + b))) & 1

    def soft(self, x):
        """Values x [..., groups, in] in [0, 1] -> [..., groups, out]."""
        a = np.take(x, self.a, axis=-1)
        b = np.take(x, self.b, axis=-1)
        c = self.coeffs
        return c[..., 0] + c[..., 1] * a + c[..., 2] * b + c[..., 3] * (a * b)


class Model:
    """A model file's automaton: perception kernels, then the update network."""

    def __init__(self, doc):
        if doc.get("format") != FORMAT:
            raise ValueError(f"not a model file: format is {doc.get('format')!r}, want {FORMAT!r}")
        if not isinstance(doc.get("version"), int) or not 1 <= doc["version"] <= VERSION:
            raise ValueError(f"model file version {doc.get('version')!r}: this reader understands 1 to {VERSION}")
        c = doc["config"]
        self.config = c
        self.channels, self.kernels = c["channels"], c["kernels"]
        self.periodic = c["boundary"] == "periodic"
        if c["boundary"] not in ("zero", "periodic"):
            raise ValueError(f"boundary {c['boundary']!r}: want zero or periodic")
        kl, ul = c["kernel_layers"], c["update_layers"]
        if len(doc["perception"]) != len(kl) - 1 or len(doc["update"]) != len(ul):
            raise ValueError(f"{len(doc['perception'])} perception and {len(doc['update'])} update layers; the config needs {len(kl) - 1} and {len(ul)}")
        self.perception = [Layer(d, kl[i], kl[i + 1], self.kernels, f"perception layer {i}") for i, d in enumerate(doc["perception"])]
        inputs = self.channels + self.channels * self.kernels * kl[-1]
        self.update = []
        for i, d in enumerate(doc["update"]):
            self.update.append(Layer(d, inputs, ul[i], 1, f"update layer {i}"))
            inputs = ul[i]
        if ul[-1] != self.channels:
            raise ValueError(f"the last update layer has {ul[-1]} gates, want channels = {self.channels}")

    def _neighbourhood(self, s):
        """[B, H, W, C] -> [B, H, W, C, 9]: position n = 3*dy + dx of the
        3x3 neighbourhood, row-major, 4 the cell itself; beyond the edge 0
        (zero boundary) or the other side (periodic)."""
        mode = "wrap" if self.periodic else "constant"
        p = np.pad(s, ((0, 0), (1, 1), (1, 1), (0, 0)), mode=mode)
        h, w = s.shape[1], s.shape[2]
        return np.stack([p[:, dy:dy + h, dx:dx + w, :] for dy in range(3) for dx in range(3)], axis=-1)

    def step(self, state, soft=False, fire=None):
        """One step of the whole grid: state [H, W, C] or [B, H, W, C], 0/1
        for the circuit (soft=False), values in [0, 1] for the soft model.
        fire, if given, is a boolean [H, W] or [B, H, W] mask: the cells
        that update (an asynchronous step; the others keep their state)."""
        s, single = self._batch(state, soft)
        new = self._step(s, soft)
        if fire is not None:
            f = np.asarray(fire, dtype=bool)
            if single:
                f = f[None]
            new = np.where(f[..., None], new, s)
        return new[0] if single else new

    def rollout(self, state, steps, soft=False):
        """steps synchronous steps from state: the steps+1 states, the
        first the initial one, stacked on a new first axis."""
        s, single = self._batch(state, soft)
        out = [s]
        for _ in range(steps):
            s = self._step(s, soft)
            out.append(s)
        out = np.stack(out)
        return out[:, 0] if single else out

    def _batch(self, state, soft):
        s = np.asarray(state)
        if s.ndim not in (3, 4) or s.shape[-1] != self.channels:
            raise ValueError(f"state of shape {s.shape}: want [H, W, {self.channels}] or [B, H, W, {self.channels}]")
        single = s.ndim == 3
        if single:
            s = s[None]
        if soft:
            return s.astype(np.float32), single
        if ((s != 0) & (s != 1)).any():
            raise ValueError("a hard state holds 0s and 1s only")
        return s.astype(np.uint8), single

    def _step(self, s, soft):
        gate = (lambda l, x: l.soft(x)) if soft else (lambda l, x: l.hard(x))
        nb = self._neighbourhood(s)                        # [B, H, W, C, 9]
        x = np.broadcast_to(nb[..., None, :], nb.shape[:-1] + (self.kernels, 9))  # [B, H, W, C, K, 9]
        for layer in self.perception:
            x = gate(layer, x)                              # [B, H, W, C, K, out]
        # The update input: the cell's own C values, then (channel, bit, kernel).
        b, h, w, c = s.shape
        p = np.swapaxes(x, -1, -2).reshape(b, h, w, -1)     # [B, H, W, C*S*K]
        u = np.concatenate([s.astype(p.dtype), p], axis=-1)[..., None, :]  # one group
        for layer in self.update:
            u = gate(layer, u)
        u = u[..., 0, :]
        return u.astype(np.float32) if soft else u.astype(np.uint8)


def load(path):
    """Reads the model file at path."""
    with open(path, encoding="utf-8") as f:
        return Model(json.load(f))


def main(argv):
    """python3 dlca.py MODEL.json INIT.npy STEPS OUT.npy [--soft]: the
    rollout of STEPS steps from INIT, as dlca eval -init INIT -steps STEPS
    -states OUT writes it."""
    args = [a for a in argv if a != "--soft"]
    if len(args) != 4:
        print(main.__doc__, file=sys.stderr)
        return 2
    model, init, steps, out = args
    m = load(model)
    np.save(out, m.rollout(np.load(init), int(steps), soft="--soft" in argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
