// Package smallest holds the smallest known circuit of two-input gates (any
// of the 16 ops of gates.Op) for every Boolean function of four inputs, for
// the cut rewriting of package circuit.
//
// The circuits were found once by an exhaustive search (gen/main.go, run by
// go generate) and are kept in table.go, one per NPN class: the 222 classes
// of functions equal up to permuting the inputs, negating some of them and
// negating the output. A gate reading a negated input, or whose output is
// negated, is another gate of the same count (gates.Op has every such
// variant), so one circuit serves the whole class; For instantiates it for
// any of the 65,536 functions.
//
// The search finds, for every function, a circuit whose size matches the
// exact costs Knuth tabulates for all functions of four variables (The Art
// of Computer Programming, volume 4A, section 7.1.2): the tests check the
// distribution of sizes against his, so every circuit in the table is a
// smallest one.
package smallest

//go:generate go run ./gen -o table.go
