"""The PyTorch half of TestTorchOptimisers (torch_test.go); run as
/usr/bin/python3 torch_optim.py DIR.

DIR/spec.json lists optimiser cases (torch.optim class, keyword arguments),
the starting parameters, each step's gradients, and the step after which
the state is saved. For each case this runs the whole trajectory in
float64, saves torch's optimizer.state_dict() at that step
(DIR/torch_<name>.pt), and resumes from the state Go saved there
(DIR/go_<name>.pt, read with weights_only=True from PyTorch 2.0 on) on Go's parameters.
Results go to DIR/torch.json.
"""
import json
import sys

import torch

# PyTorch 1.13's weights_only unpickler has no opcode for floats (BINFLOAT),
# so it refuses every optimizer state_dict, its own included (lr, betas);
# 2.0 added it. Before 2.0 the files are read with the full unpickler.
WEIGHTS_ONLY = tuple(int(x) for x in torch.__version__.split(".")[:2]) >= (2, 0)


def tensors(values):
    return [torch.tensor(v, dtype=torch.float64) for v in values]


def kwargs_of(kw):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}


def run(case, params, grads, start, stop, opt=None):
    ps = [torch.nn.Parameter(p) for p in tensors(params)]
    if opt is None:
        opt = getattr(torch.optim, case["class"])(ps, **kwargs_of(case["kwargs"]))
    else:
        opt = opt(ps)
    out = []
    for k in range(start, stop):
        for p, g in zip(ps, grads[k]):
            p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        out.append([p.detach().tolist() for p in ps])
    return ps, opt, out


def main(d):
    with open(f"{d}/spec.json") as f:
        spec = json.load(f)
    grads, resume = spec["grads"], spec["resume"]
    results = {}
    for case in spec["cases"]:
        name = case["name"]
        # The whole trajectory, saving the state at the resume step.
        ps, opt, first = run(case, spec["params"], grads, 0, resume)
        torch.save(opt.state_dict(), f"{d}/torch_{name}.pt")
        params_at_resume = [p.detach().tolist() for p in ps]
        rest = []
        for k in range(resume, len(grads)):
            for p, g in zip(ps, grads[k]):
                p.grad = torch.tensor(g, dtype=torch.float64)
            opt.step()
            rest.append([p.detach().tolist() for p in ps])

        # Resuming from Go's state on Go's parameters.
        def from_go(new_ps):
            o = getattr(torch.optim, case["class"])(new_ps, **kwargs_of(case["kwargs"]))
            o.load_state_dict(torch.load(f"{d}/go_{name}.pt", weights_only=WEIGHTS_ONLY))
            return o
        _, _, resumed = run(case, case["go_params"], grads, resume, len(grads), opt=from_go)
        results[name] = {"trajectory": first + rest, "params_at_resume": params_at_resume, "resumed": resumed}
    with open(f"{d}/torch.json", "w") as f:
        json.dump(results, f)
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
