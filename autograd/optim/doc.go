// Package optim holds the optimisers that update autograd parameters from
// their accumulated gradients (SGD, Adam, AdamW), learning-rate schedules,
// and gradient clipping. Semantics follow torch.optim: the same update rules,
// defaults and parameter order, so hyper-parameters carry over.
//
// # Conventions
//
// An optimiser holds the parameter slice it was built with and updates the
// parameters' data in place in Step; parameters whose Grad is nil are
// skipped, as in PyTorch. Parameters may be float32 or float64; the update
// arithmetic runs in float64 and each kernel is written once over
// autograd.Float. State returns everything Step depends on besides the
// parameters (step count, moment buffers) in a form encoding/json can save,
// and LoadState restores it, returning an error when it does not fit the
// parameters.
//
// Schedules are pure functions from a step (or epoch) count to a learning
// rate; set it with SetLR before each Step.
//
// Constructors panic on invalid hyper-parameters (a programmer error).
package optim
