// Package nn builds models out of autograd ops: modules with parameters
// (Linear, Conv1d, Conv2d, LayerNorm, GroupNorm, BatchNorm1d/2d, Embedding),
// parameter-free layers (activations, pooling, Flatten, Dropout),
// Sequential, PyTorch's standard initialisations, and the loss functions.
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
// Modules with state that is not a parameter (BatchNorm's running
// statistics) list it through Buffers; no optimiser touches it.
//
// Losses take a Reduction; its zero value, ReduceMean, is PyTorch's default.
// The options PyTorch has beyond it (class weights, ignore_index, label
// smoothing, pos_weight) go in ClassOptions and BinaryOptions, used by the
// ...With variants. Class targets are []int, one per sample and position.
// The losses that need more (KLDivLoss, GaussianNLLLoss, PoissonNLLLoss,
// TripletMarginLoss) take an options struct of their own, with a Default...
// constructor where PyTorch's defaults are not the zero value; the margin
// and embedding losses take their ±1 labels as tensors, as PyTorch does.
// Every loss is a composition of autograd ops (BCELoss records a rule built
// from ops), so it runs on the tensors' device and differentiates again.
//
// GetStateDict and LoadStateDict name a module's parameters and buffers
// as PyTorch's state_dict() does ("0.weight", "2.running_mean"), and
// SaveTorch, LoadTorch, SaveSafetensors and LoadSafetensors keep them in
// torch.save's and safetensors' formats (package tensorfile), strictly:
// a missing or unexpected name, a shape or element type that differs, is
// an error naming the tensor.
//
// Constructors and losses panic, naming the shapes, on inconsistent
// arguments (programmer errors).
package nn
