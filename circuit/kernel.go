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
// panics if the slices do not have NumInputs and len(Outputs) words.
func (nl *Netlist) EvalWords(in, out []uint64) {
	if len(in) != nl.NumInputs || len(out) != len(nl.Outputs) {
		panic(fmt.Sprintf("circuit: EvalWords got %d input and %d output words, want %d and %d", len(in), len(out), nl.NumInputs, len(nl.Outputs)))
	}
	v := make([]uint64, nl.NumValues())
	copy(v, in)
	for k, g := range nl.Gates {
		v[nl.NumInputs+k] = g.Op.Word(v[g.A], v[g.B])
	}
	for j, o := range nl.Outputs {
		out[j] = v[o]
	}
}
