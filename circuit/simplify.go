package circuit

import (
	"fmt"

	"github.com/dlca/dlca/gates"
)

// A pass rewrites a netlist into one that computes the same outputs on
// every input. Each pass is tested on its own for that (simplify_test.go).
type pass struct {
	name string
	run  func(*Netlist) *Netlist
}

// passes are applied in this order, round after round, until a round
// changes nothing (or maxRounds, a guard that real circuits never reach).
var passes = []pass{
	{"wires", Rewire},
	{"constants", PropagateConstants},
	{"inverters", FoldInverters},
	{"merge", MergeIdentical},
	{"functions", MergeEquivalent},
	{"resubstitute", Resubstitute},
	{"rewrite", Rewrite},
	{"symmetric", Symmetrize},
	{"dead", RemoveDead},
}

const maxRounds = 64

// Simplify applies every simplification pass until none changes anything
// and returns the simplified netlist and a report of gate counts by op and by
// section, before and after. The input is not modified. It panics if the
// netlist is malformed.
func Simplify(nl *Netlist) (*Netlist, Report) {
	nl.mustValidate("Simplify")
	r := Report{Before: CountGates(nl)}
	cur := nl
	for range maxRounds {
		prev := cur
		for _, p := range passes {
			cur = p.run(cur)
			r.Passes = append(r.Passes, PassResult{Pass: p.name, Gates: len(cur.Gates)})
		}
		if cur.Equal(prev) {
			break
		}
	}
	r.After = CountGates(cur)
	return cur, r
}

// builder accumulates a rewritten netlist. Each pass walks the old gates in
// order, maps their operands to new values, and either adds a gate or
// aliases the old gate to an existing value.
type builder struct {
	nl     *Netlist
	labels bool
}

func newBuilder(old *Netlist) *builder {
	b := &builder{nl: &Netlist{NumInputs: old.NumInputs}, labels: old.Labels != nil}
	if b.labels {
		b.nl.Labels = []string{}
	}
	return b
}

// add appends a gate and returns its value index.
func (b *builder) add(g Gate, label string) int32 {
	b.nl.Gates = append(b.nl.Gates, g)
	if b.labels {
		b.nl.Labels = append(b.nl.Labels, label)
	}
	return int32(b.nl.NumValues() - 1)
}

// gate returns the gate computing value v, or false for an input.
func (b *builder) gate(v int32) (Gate, bool) {
	if int(v) < b.nl.NumInputs {
		return Gate{}, false
	}
	return b.nl.Gates[int(v)-b.nl.NumInputs], true
}

// constant reports the value of v if a constant gate computes it.
func (b *builder) constant(v int32) (uint8, bool) {
	if g, ok := b.gate(v); ok {
		return constValue(g.Op)
	}
	return 0, false
}

// addConst adds a constant gate. Its operands are value 0, which always
// exists because a netlist has at least one input.
func (b *builder) addConst(v uint8, label string) int32 {
	op := gates.False
	if v == 1 {
		op = gates.True
	}
	return b.add(Gate{Op: op}, label)
}

// unary returns the value f(x) where f(0) = f0 and f(1) = f1: a constant,
// x itself (a wire) or a NOT gate.
func (b *builder) unary(x int32, f0, f1 uint8, label string) int32 {
	if v, ok := b.constant(x); ok {
		return b.addConst([2]uint8{f0, f1}[v], label)
	}
	switch {
	case f0 == f1:
		return b.addConst(f0, label)
	case f0 == 0:
		return x
	default:
		return b.add(Gate{Op: gates.NotA, A: x, B: x}, label)
	}
}

// rebuild runs one pass: f sees each old gate with operands already mapped
// to the new netlist and returns the new value standing for it (or -1 for
// a gate that must not be referenced, such as a dead one).
func rebuild(old *Netlist, f func(b *builder, k int, g Gate, label string) int32) *Netlist {
	b := newBuilder(old)
	m := make([]int32, old.NumValues())
	for i := 0; i < old.NumInputs; i++ {
		m[i] = int32(i)
	}
	for k, g := range old.Gates {
		a, bb := m[g.A], m[g.B]
		// A removed operand the op ignores is replaced by value 0; one it
		// reads makes this gate unreachable too.
		if a < 0 && !dependsOnA(g.Op) {
			a = 0
		}
		if bb < 0 && !dependsOnB(g.Op) {
			bb = 0
		}
		if a < 0 || bb < 0 {
			m[old.NumInputs+k] = -1
			continue
		}
		g.A, g.B = a, bb
		m[old.NumInputs+k] = f(b, k, g, old.label(k))
	}
	b.nl.Outputs = make([]int32, len(old.Outputs))
	for i, o := range old.Outputs {
		if m[o] < 0 {
			panic(fmt.Sprintf("circuit: a pass removed value %d, which output %d needs", o, i))
		}
		b.nl.Outputs[i] = m[o]
	}
	return b.nl
}

// Rewire turns gates that pass one operand through (A, B) into wires, gates
// that invert one operand (NOT_A, NOT_B) into NOT gates reading it as a
// (NOT_A with both operands equal), and gates reading the same value twice
// into the function of one value they are (a wire, a NOT or a constant).
func Rewire(nl *Netlist) *Netlist {
	return rebuild(nl, func(b *builder, _ int, g Gate, label string) int32 {
		o := g.Op
		switch {
		case g.A == g.B:
			return b.unary(g.A, o.Truth(0, 0), o.Truth(1, 1), label)
		case !dependsOnB(o):
			return b.unary(g.A, o.Truth(0, 0), o.Truth(1, 0), label)
		case !dependsOnA(o):
			return b.unary(g.B, o.Truth(0, 0), o.Truth(0, 1), label)
		}
		return b.add(g, label)
	})
}

// PropagateConstants replaces TRUE and FALSE gates, and every gate an
// operand of which is constant, by what they reduce to: AND with 0 is 0,
// OR with 1 is 1, XOR with 1 is NOT, AND with 1 is a wire, and so on, each
// read off the op's truth table.
func PropagateConstants(nl *Netlist) *Netlist {
	return rebuild(nl, func(b *builder, _ int, g Gate, label string) int32 {
		o := g.Op
		if v, ok := constValue(o); ok {
			return b.addConst(v, label)
		}
		if va, ok := b.constant(g.A); ok {
			return b.unary(g.B, o.Truth(va, 0), o.Truth(va, 1), label)
		}
		if vb, ok := b.constant(g.B); ok {
			return b.unary(g.A, o.Truth(0, vb), o.Truth(1, vb), label)
		}
		return b.add(g, label)
	})
}

// FoldInverters makes a gate that reads a NOT gate read the NOT's operand
// instead, with the inversion folded into its op (AND of NOT x and y
// becomes NOT_A_AND_B of x and y; NOT of NOT x becomes the wire x). The
// NOT gate itself is left for RemoveDead if nothing else reads it.
func FoldInverters(nl *Netlist) *Netlist {
	isNot := func(b *builder, v int32) (int32, bool) {
		g, ok := b.gate(v)
		if ok && g.Op == gates.NotA && g.A == g.B {
			return g.A, true
		}
		return 0, false
	}
	return rebuild(nl, func(b *builder, _ int, g Gate, label string) int32 {
		if g.A == g.B {
			if x, ok := isNot(b, g.A); ok {
				// o(NOT x, NOT x): a function of x alone.
				return b.unary(x, g.Op.Truth(1, 1), g.Op.Truth(0, 0), label)
			}
			return b.add(g, label)
		}
		if x, ok := isNot(b, g.A); ok {
			g.Op, g.A = invertA(g.Op), x
		}
		if x, ok := isNot(b, g.B); ok {
			g.Op, g.B = invertB(g.Op), x
		}
		if g.A == g.B {
			return b.unary(g.A, g.Op.Truth(0, 0), g.Op.Truth(1, 1), label)
		}
		return b.add(g, label)
	})
}

// canonical returns a gate computing the same function with a fixed
// choice of operand order and of ignored operands, so that equal gates
// compare equal: constants read value 0, a gate of one operand reads it as
// both a and b, and otherwise a <= b, swapping the op's operands if needed.
func canonical(g Gate) Gate {
	switch {
	case !dependsOnA(g.Op) && !dependsOnB(g.Op):
		g.A, g.B = 0, 0
	case !dependsOnA(g.Op):
		g = Gate{Op: transpose(g.Op), A: g.B, B: g.B}
	case !dependsOnB(g.Op):
		g.B = g.A
	case g.A > g.B:
		g = Gate{Op: transpose(g.Op), A: g.B, B: g.A}
	}
	return g
}

// MergeIdentical replaces every gate that computes the same op of the same
// operands as an earlier gate (in either order, for ops whose operands can
// be swapped by transposing the op) by that earlier gate.
func MergeIdentical(nl *Netlist) *Netlist {
	seen := make(map[Gate]int32) // looked up only, never iterated
	return rebuild(nl, func(b *builder, _ int, g Gate, label string) int32 {
		g = canonical(g)
		if v, ok := seen[g]; ok {
			return v
		}
		v := b.add(g, label)
		seen[g] = v
		return v
	})
}

// RemoveDead removes every gate whose value reaches no output. An operand
// that a gate's op ignores (b of an A gate, both of a constant) does not
// count as reaching it.
func RemoveDead(nl *Netlist) *Netlist {
	live := make([]bool, nl.NumValues())
	for _, o := range nl.Outputs {
		live[o] = true
	}
	for k := len(nl.Gates) - 1; k >= 0; k-- {
		g := nl.Gates[k]
		if live[nl.NumInputs+k] {
			live[g.A] = live[g.A] || dependsOnA(g.Op)
			live[g.B] = live[g.B] || dependsOnB(g.Op)
		}
	}
	return rebuild(nl, func(b *builder, k int, g Gate, label string) int32 {
		if !live[nl.NumInputs+k] {
			return -1
		}
		return b.add(g, label)
	})
}
