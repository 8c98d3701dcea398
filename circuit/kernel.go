package circuit

import (
	"fmt"

	"github.com/dlca/dlca/gates"
)

// wordOp applies the op bitwise to 64 samples at once. It is the one
// hand-written form of the ops in this package, kept because it is the
// simulator's hot path; TestKernelsMatchTruth ties it (and applyOp) to
// gates.Op.Truth on every corner.
func wordOp(o gates.Op, a, b uint64) uint64 {
	switch o {
	case gates.False:
		return 0
	case gates.And:
		return a & b
	case gates.AAndNotB:
		return a &^ b
	case gates.A:
		return a
	case gates.NotAAndB:
		return b &^ a
	case gates.B:
		return b
	case gates.Xor:
		return a ^ b
	case gates.Or:
		return a | b
	case gates.Nor:
		return ^(a | b)
	case gates.Xnor:
		return ^(a ^ b)
	case gates.NotB:
		return ^b
	case gates.AOrNotB:
		return a | ^b
	case gates.NotA:
		return ^a
	case gates.NotAOrB:
		return ^a | b
	case gates.Nand:
		return ^(a & b)
	default:
		return ^uint64(0)
	}
}

// applyOp sets dst[i] = o(a[i], b[i]) for every i; a and b must be at
// least as long as dst. One loop per op keeps the dispatch out of the
// inner loop, so each word costs one bitwise instruction plus its loads
// and store.
func applyOp(o gates.Op, dst, a, b []uint64) {
	a, b = a[:len(dst)], b[:len(dst)]
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
		v[nl.NumInputs+k] = wordOp(g.Op, v[g.A], v[g.B])
	}
	for j, o := range nl.Outputs {
		out[j] = v[o]
	}
}
