"""Writes the optimiser state files that autograd/optim's tests read
without torch. Run with Debian's python3-torch (1.13) from this folder:
/usr/bin/python3 generate.py. The values are simple enough for the Go
test (torchstate_test.go) to state again by hand.

  adam_state.pt  torch.save(Adam([p], lr=0.1).state_dict()) after one step
                 on p = [1, 2] (float32) with gradient [0.5, -1]
  sgd_state.pt   the same for SGD(lr=0.1, momentum=0.9) after one step
"""
import torch


def one_step(make):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = make([p])
    p.grad = torch.tensor([0.5, -1.0])
    opt.step()
    return opt.state_dict()


torch.save(one_step(lambda ps: torch.optim.Adam(ps, lr=0.1)), "adam_state.pt")
torch.save(one_step(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)), "sgd_state.pt")
