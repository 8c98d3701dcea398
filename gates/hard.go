package gates

import (
	"fmt"
	"math"

	"github.com/dlca/dlca/autograd"
)

// opExprs are the ops as bitwise expressions over the operands a and b in C
// syntax (& | ^ ~), valid in C, Go (with ~ spelt ^), Verilog and WGSL. They
// apply bit by bit, so "~0" is the all-ones word.
var opExprs = [NumOps]string{
	"0", "a & b", "a & ~b", "a", "~a & b", "b", "a ^ b", "a | b",
	"~(a | b)", "~(a ^ b)", "~b", "a | ~b", "~a", "~a | b", "~(a & b)", "~0",
}

// Expr returns the op as a bitwise expression over a and b in C syntax, such
// as "a & ~b" or "~(a | b)", for exporters and code generators.
func (o Op) Expr() string { return opExprs[o] }

// Eval returns the op's output on one pair of bits.
func (o Op) Eval(a, b bool) bool {
	return o.Truth(bit(a), bit(b)) == 1
}

func bit(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}

// Word applies the op to 64 samples at once: bit i of the result is the op
// applied to bit i of a and bit i of b.
func (o Op) Word(a, b uint64) uint64 {
	switch o {
	case False:
		return 0
	case And:
		return a & b
	case AAndNotB:
		return a &^ b
	case A:
		return a
	case NotAAndB:
		return b &^ a
	case B:
		return b
	case Xor:
		return a ^ b
	case Or:
		return a | b
	case Nor:
		return ^(a | b)
	case Xnor:
		return ^(a ^ b)
	case NotB:
		return ^b
	case AOrNotB:
		return a | ^b
	case NotA:
		return ^a
	case NotAOrB:
		return ^a | b
	case Nand:
		return ^(a & b)
	case True:
		return ^uint64(0)
	}
	panic(fmt.Sprintf("gates: Word of invalid %v", o))
}

// EvalWords evaluates one group of a hard layer on 64 samples per word:
// out[k] = ops[k].Word(in[w.A[k]], in[w.B[k]]). It panics if ops, w and out
// differ in length or w reads outside in.
func EvalWords(out, in []uint64, ops []Op, w Wiring) {
	checkHard("EvalWords", ops, w, len(out))
	for k, o := range ops {
		out[k] = o.Word(in[w.A[k]], in[w.B[k]])
	}
}

// EvalBools is EvalWords on one sample: out[k] = ops[k].Eval(in[w.A[k]],
// in[w.B[k]]).
func EvalBools(out, in []bool, ops []Op, w Wiring) {
	checkHard("EvalBools", ops, w, len(out))
	for k, o := range ops {
		out[k] = o.Eval(in[w.A[k]], in[w.B[k]])
	}
}

func checkHard(fn string, ops []Op, w Wiring, out int) {
	if len(ops) != w.Len() || out != w.Len() || len(w.B) != w.Len() {
		panic(fmt.Sprintf("gates: %s: %d ops, wiring of %d/%d gates, %d outputs", fn, len(ops), len(w.A), len(w.B), out))
	}
}

// HardOps returns the most probable op of every gate, group-major
// ([Groups, Out] flattened): the argmax of its logits, the lowest op on a
// tie. These are the gates a trained layer discretises to.
func (l *Layer) HardOps() []Op {
	if err := l.checkLogitsShape(); err != nil {
		panic(err.Error())
	}
	ops := make([]Op, l.Groups*l.Out)
	for k := range ops {
		ops[k] = argmax(l.Logits, k*NumOps)
	}
	return ops
}

// Confidences returns, for every gate (group-major, as HardOps), the
// probability its relaxation gives its most probable op: 1 for a gate that
// has decided, 1/16 for one whose logits are all equal. Where gates are
// unsure, the soft model computes with mixtures the circuit does not have.
func (l *Layer) Confidences() []float64 {
	if err := l.checkLogitsShape(); err != nil {
		panic(err.Error())
	}
	conf := make([]float64, l.Groups*l.Out)
	for k := range conf {
		off := k * NumOps
		top := l.Logits.At(off + int(argmax(l.Logits, off)))
		sum := 0.0
		for o := range NumOps {
			sum += math.Exp(l.Logits.At(off+o) - top)
		}
		conf[k] = 1 / sum
	}
	return conf
}

func argmax(t *autograd.Tensor, off int) Op {
	best := Op(0)
	for o := Op(1); o < NumOps; o++ {
		if t.At(off+int(o)) > t.At(off+int(best)) {
			best = o
		}
	}
	return best
}

// ActiveGates returns the number of the layer's gates (over all groups)
// whose most probable op is neither pass-through A nor B.
func (l *Layer) ActiveGates() int { return CountActive(l.HardOps()) }

// CountActive returns how many of ops are neither A nor B: the gates that do
// something beyond routing a signal.
func CountActive(ops []Op) int {
	n := 0
	for _, o := range ops {
		if o != A && o != B {
			n++
		}
	}
	return n
}

// Histogram returns how many times each op occurs in ops.
func Histogram(ops []Op) [NumOps]int {
	var h [NumOps]int
	for _, o := range ops {
		h[o]++
	}
	return h
}
