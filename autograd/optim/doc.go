// Package optim holds the optimisers that update autograd parameters from
// their accumulated gradients (SGD, Adam, AdamW, RMSprop, Adagrad, Adamax,
// NAdam, RAdam), learning-rate schedules (and ReduceLROnPlateau), and
// gradient clipping. Semantics follow torch.optim: the same update rules,
// defaults and parameter order, so hyper-parameters carry over.
//
// # Conventions
//
// An optimiser holds the parameters it was built with, in one or more
// parameter groups (PyTorch's param_groups), each with a whole config of its
// own, and updates the parameters' data in place in Step; parameters whose
// Grad is nil are skipped entirely, as in PyTorch (Adam's step count is per
// parameter and advances only with a gradient). Parameters may be float32
// or float64; the update arithmetic runs in float64 and each kernel is
// written once over autograd.Float. State returns everything Step depends
// on besides the parameters and the configs (step counts, learning rates,
// moment buffers) in a form encoding/json can save, and LoadState restores
// it, returning an error when it does not fit the parameters.
//
// Config fields are used exactly as given: zero is zero (Adam's beta1 = 0,
// beta2 = 0 and eps = 0 are legal). DefaultAdam, DefaultAdamW and
// NewOneCycleLR return PyTorch's defaults to start from.
//
// Schedules are pure functions from a group's initial learning rate and a
// step (or epoch) count to its learning rate; SetLR applies one to every
// group before each Step, as a PyTorch scheduler's step().
//
// Parameters on a device other than the CPU are updated there, by the
// device's DeviceKernels, with their state (moments, momentum) on the same
// device; a Step ends with the device's Sync and returns its error. State
// reads the buffers back; LoadState puts each on its parameter's device.
//
// RMSprop, Adagrad, Adamax, NAdam and RAdam share one implementation
// (elementwise.go): on a device their update is composed of autograd ops
// there, and the parameter is changed in place by the device's SGD kernel.
//
// SaveTorch and LoadTorch keep an optimiser's state in PyTorch's
// optimizer.state_dict() layout (torch.save's format), which
// optimizer.load_state_dict takes.
//
// Constructors panic on invalid hyper-parameters (a programmer error).
package optim
