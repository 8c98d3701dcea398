package circuit

import (
	"fmt"

	"github.com/dlca/dlca/gates"
)

// applyOp sets dst[i] = o.Word(a[i], b[i]) for every i; a and b must be
// at least as long as dst. It is gates.Op.Word with the loop inside the
// switch: one dispatch per gate per block instead of per word, so each word
// costs one bitwise instruction plus its loads and store. This second
// spelling of the ops is the simulator's hot path; TestKernelsMatchTruth
// ties it to gates.Op.Truth on every corner. On amd64 with AVX2 the
// two-operand ops run as vector loops instead (kernel_amd64.s), four words
// per instruction; the same test checks both.
func applyOp(o gates.Op, dst, a, b []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
	if applyVector(o, dst, a, b) {
		return
	}
	switch o {
	case gates.False:
		clear(dst)
	case gates.And:
		for i := range dst {
			dst[i] = a[i] & b[i]
		}
	case gates.AAndNotB:
		for i := range dst {
			dst[i] = a[i] &^ b[i]
		}
	case gates.A:
		copy(dst, a)
	case gates.NotAAndB:
		for i := range dst {
			dst[i] = b[i] &^ a[i]
		}
	case gates.B:
		copy(dst, b)
	case gates.Xor:
		for i := range dst {
			dst[i] = a[i] ^ b[i]
		}
	case gates.Or:
		for i := range dst {
			dst[i] = a[i] | b[i]
		}
	case gates.Nor:
		for i := range dst {
			dst[i] = ^(a[i] | b[i])
		}
	case gates.Xnor:
		for i := range dst {
			dst[i] = ^(a[i] ^ b[i])
		}
	case gates.NotB:
		for i := range dst {
			dst[i] = ^b[i]
		}
	case gates.AOrNotB:
		for i := range dst {
			dst[i] = a[i] | ^b[i]
		}
	case gates.NotA:
		for i := range dst {
			dst[i] = ^a[i]
		}
	case gates.NotAOrB:
		for i := range dst {
			dst[i] = ^a[i] | b[i]
		}
	case gates.Nand:
		for i := range dst {
			dst[i] = ^(a[i] & b[i])
		}
	default:
		for i := range dst {
			dst[i] = ^uint64(0)
		}
	}
}

// EvalWords evaluates the netlist on 64 samples at once: in[i] holds input
// i of every sample (sample s in bit s), and out[j] receives output j. It
// panics if the slices do not have len(Outputs) and NumInputs words.
func (nl *Netlist) EvalWords(out, in []uint64) {
	if len(in) != nl.NumInputs || len(out) != len(nl.Outputs) {
		panic(fmt.Sprintf("circuit: EvalWords got %d output and %d input words, want %d and %d", len(out), len(in), len(nl.Outputs), nl.NumInputs))
	}
	vals := make([]uint64, nl.NumValues())
	copy(vals, in)
	for k, g := range nl.Gates {
		a, b := vals[g.A], vals[g.B]
		m := &truthMasks[g.Op&(gates.NumOps-1)]
		vals[nl.NumInputs+k] = m[0]&^a&^b | m[1]&^a&b | m[2]&a&^b | m[3]&a&b
	}
	for j, o := range nl.Outputs {
		out[j] = vals[o]
	}
}

// truthMasks[o][2a+b] is all ones where op o outputs 1 for inputs a, b: the
// truth table (gates.Op.Truth) as word masks, so that EvalWords evaluates
// any op without a branch. Gate after gate the ops are random, and a switch
// over them (gates.Op.Word) mispredicts on most gates; the simulator's
// kernels avoid that differently, by applying one op to many words at once.
var truthMasks = func() (t [gates.NumOps][4]uint64) {
	for o := range gates.Op(gates.NumOps) {
		for k := range 4 {
			if o.Truth(uint8(k>>1), uint8(k&1)) == 1 {
				t[o][k] = ^uint64(0)
			}
		}
	}
	return t
}()
