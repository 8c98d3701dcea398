// Package bptt trains differentiable logic cellular automata by
// backpropagation through time, as in the paper: every iteration takes a
// fresh batch, rolls the soft automaton out for T steps keeping every
// activation, takes the sum of squared errors on the loss channels at the
// final step, backpropagates through all T steps, clips every gradient
// element to [-Clip, Clip] and steps AdamW.
//
// # Engines
//
// An Engine performs iterations: Iterate(batch) and Model(). Setup (the
// model and the fixed iteration shape) and Batch (plain float32 slices) are
// all an engine is given, so the GPU engine in package gpu implements the
// same interface as the CPU engine here (NewCPU, built on autograd and
// dlca's fused step op).
//
// # Training and observers
//
// Train drives an engine for Run.Iterations iterations. After each it
// computes the hard loss (the argmax circuit on bits, same batch, same fire
// masks) and the active gates of the model the iteration started from, and
// passes an Event to every Observer, synchronously. With Run.LayerStats it
// also records, every so many iterations, each layer's gradient norm and
// undecided gates (LayerStats; the engine must be a GradientEngine, as the
// CPU engine is). Progress is the
// terminal observer; the viewer subscribes the same way, so this package
// imports no UI.
//
// # Determinism
//
// Batches and fire masks come from rand.NewPCG(Run.Seed, 1); the kernels
// partition work independently of the number of goroutines and add partial
// sums in a fixed order. The same seeds give the same model bit for bit
// whatever GOMAXPROCS, Setup.Workers or the segment of recomputation is
// (TestIterationsMatchGolden pins four trainings to the code before the
// step ran in tiles).
//
// # Long runs
//
// Checkpoint and Checkpointer save a run between iterations (model,
// optimiser state, random source, metrics) and resume it bit for bit;
// Checkpointer.Request is the hook for a checkpoint on demand. The
// commands' flags, signals and messages for long runs live in
// cmd/internal/runctl, not here: this package prints nothing. Train stops with a
// *NonFiniteError before a NaN or an infinity reaches the model.
// Setup.Recompute sets gradient checkpointing over time (keep a state
// every k steps, recompute a segment's activations in the backward pass);
// by default the CPU engine recomputes step by step where a step's
// activations fit the cache (Setup.Segment). EstimateMemory says what a
// setup needs.
//
// # Speed
//
// The CPU engine's steps run on Setup.Workers goroutines; by default it
// times one against GOMAXPROCS over its first iterations (and every 250
// after) and keeps the faster (CPUEngine.Workers). Neither choice changes a bit
// of the results.
//
// # Errors
//
// Setup.Validate and Train return errors for bad settings (they come from
// the command line); a batch of the wrong size is a programmer error and
// panics with a message prefixed "bptt: ".
package bptt
