// Package gates implements differentiable logic gates: the 16 two-input
// Boolean ops, their relaxation to real inputs, layers of gates with fixed
// wiring and learned logits, and evaluation on bits.
//
// The table in table.go is the single source of truth: an Op's number is its
// truth table, and the relaxed coefficients, derivatives and bit forms are
// derived from it.
package gates
