// Package circuit treats a trained logic-gate cellular automaton as what it
// is once discretised: a plain Boolean circuit. It simplifies the circuit,
// checks two circuits for equivalence, runs it on a grid at the speed of
// bitwise instructions, and exports it to Verilog (with a self-checking
// testbench), C (with a header), DigitalJS and Graphviz DOT. The Verilog and
// C exports carry the grid and boundary the rule was trained on (Options).
//
// # Conventions
//
// A Netlist is one cell's update rule. Its NumInputs inputs are, for a
// cellular automaton with C channels, the 9*C bits of the cell's 3x3
// neighbourhood: input n*C + c is channel c of neighbour n, where n numbers
// the neighbourhood row-major (0 = north-west, 4 = the cell itself,
// 8 = south-east). Gates are listed in topological order; a gate operand
// below NumInputs names an input and NumInputs+k names gate k, which must
// come earlier. Outputs names the values that become the C channels of the
// cell's next state (any input or gate).
//
// Every op's bitwise form, its syntax in the exports and its simplification
// rules derive from gates.Op.Truth or the gates package's helpers (Word,
// Expr; see ops.go); tests tie each derived form back to Truth. The one
// hand-written spelling of the ops is the simulator's gate loops
// (kernel.go, and their AVX2 form in kernel_amd64.s, which the purego
// build tag turns off), checked against Truth on every bit.
//
// A Grid stores one bit plane per channel, each row packed into
// ceil(W/64) uint64 words, cell x of a row in bit x%64 of word x/64. Bits
// past W in a row's last word are always zero.
//
// Programmer errors (a malformed netlist, grids of different shapes) panic
// with a message starting "circuit:"; problems with outside input (a file,
// a command-line value) are returned as errors. Results never depend on the
// number of worker goroutines: the simulator partitions rows into fixed
// ranges, and asynchronous fire masks are drawn per (seed, step, row).
package circuit
