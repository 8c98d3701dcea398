// Package dlca defines a differentiable logic cellular automaton (DiffLogic
// CA): a grid of cells, each holding C bits, updated by one learned logic
// circuit applied to every cell's 3x3 neighbourhood.
//
// # Conventions
//
// A state is a tensor [Batch, Height, Width, Channels], row-major, values in
// [0, 1] (soft) or {0, 1}; cell index = (b*Height + y)*Width + x. The 3x3
// neighbourhood is listed row-major, position n at offset (n/3-1, n%3-1), so
// n = 4 (Centre) is the cell itself. Beyond the edge a circuit.Zero boundary
// reads 0 and a circuit.Periodic one wraps around.
//
// Perception: K kernels, gate layers that share one wiring (gates.Layer with
// Groups = K), applied channel by channel, i.e. to the rows (cell, channel)
// of the neighbourhood values [cells*C, 9]. Layer 0 is Moore-wired (gate i
// reads a neighbour as a and the centre as b), later layers unique-wired. The
// last kernel layer gives S bits per (channel, kernel).
//
// Update: a stack of unique-wired gate layers over the input
//
//	[own bits c = 0..C-1 | perception bit (c, s, k) at C + (c*S + s)*K + k]
//
// (the paper's notebook order), whose C outputs replace the state. An
// asynchronous step keeps the old state of every cell that does not fire
// (FireMasks).
//
// # Executions
//
// Rollout runs the soft automaton as autograd ops: one coefficient op per
// layer per rollout (gates.SoftCoeffs: softmax of the logits through the gate
// table; its backward is gates.LogitGrads) and one fused op per step
// (neighbourhood gather, every layer, fire mask). The step keeps its
// activations feature-major ([feature][row]) in a reusable Workspace, so each
// gate streams contiguous vectors: the update network's input and outputs
// only, as the perception's are recomputed tile by tile in the backward
// pass (tiles.go); its gradient with respect to a layer's
// coefficients is the four per-gate sums. ReferenceRollout is the same
// computation written with autograd's general ops only, kept as the
// definition the fused path is tested against (and finite differences test
// both). Neighbourhood is the gather alone as an autograd op.
//
// The hard automaton (every gate its argmax op, on bits) is a
// circuit.Netlist (Model.Netlist), one cell's flat circuit; Circuit runs it
// on Bits (one circuit.Grid per board) with circuit.Sim.
// Model files are versioned JSON (Save, Load), described in
// docs/model-format.md.
//
// A step's layers form two phases over the same rows each (perception over
// cells*C rows, update over cells rows); each worker takes tiles of rows
// through every layer of a phase (tiles.go), one fork and join per phase.
// Work is split into blocks of rows fixed by the shapes alone, and partial
// sums are added in block order, so results are bit for bit the same for any
// GOMAXPROCS or RolloutOptions.Workers.
//
// # Errors
//
// Programmer errors (a state of the wrong shape or dtype) panic with a
// message prefixed "dlca: ". Configs and files come from outside: Validate
// and Load return errors that say what is wrong and what to do.
package dlca
