// Package nn builds models out of autograd ops: modules with parameters
// (Linear, Conv1d, Conv2d), parameter-free layers (activations, pooling,
// Flatten, Dropout), Sequential, PyTorch's standard initialisations, and the
// loss functions.
//
// # Conventions
//
// A Module maps one tensor to another and lists its parameters in a fixed
// order (weight before bias, layers in sequence order), so optimiser state
// saved for one model instance fits another built the same way. Layers are
// initialised as their torch.nn counterparts are, from an explicit
// *rand.Rand (math/rand/v2). Inputs are batch-first ([N, features] or
// [N, C, H, W]).
//
// Losses take a Reduction; its zero value, ReduceMean, is PyTorch's default.
// Class targets are []int, one per sample.
//
// Constructors and losses panic, naming the shapes, on inconsistent
// arguments (programmer errors).
package nn
