package circuit

import (
	"testing"

	"github.com/dlca/dlca/gates"
)

// chain returns a netlist builder's value for op applied along xs in
// order, and tree the same as a balanced tree: equal for associative ops,
// but with no gate in common.
func chain(nl *Netlist, op gates.Op, xs []int32) int32 {
	acc := xs[0]
	for _, x := range xs[1:] {
		nl.Gates = append(nl.Gates, Gate{Op: op, A: acc, B: x})
		acc = int32(nl.NumValues() - 1)
	}
	return acc
}

func tree(nl *Netlist, op gates.Op, xs []int32) int32 {
	for len(xs) > 1 {
		var next []int32
		for i := 0; i+1 < len(xs); i += 2 {
			nl.Gates = append(nl.Gates, Gate{Op: op, A: xs[i], B: xs[i+1]})
			next = append(next, int32(nl.NumValues()-1))
		}
		if len(xs)%2 == 1 {
			next = append(next, xs[len(xs)-1])
		}
		xs = next
	}
	return xs[0]
}

// Gates over more than maxSupport inputs have no truth table, but
// MergeEquivalent still merges equal ones after proving them equal, and
// keeps apart ones that random simulation cannot tell apart but that
// differ.
func TestMergeEquivalentProvesWideGates(t *testing.T) {
	inputs := func(n int) []int32 {
		xs := make([]int32, n)
		for i := range xs {
			xs[i] = int32(i)
		}
		return xs
	}
	// The XOR of 16 inputs as a tree and as a chain, and its negation.
	nl := &Netlist{NumInputs: 16}
	a := tree(nl, gates.Xor, inputs(16))
	b := chain(nl, gates.Xor, inputs(16))
	nl.Gates = append(nl.Gates, Gate{Op: gates.Xnor, A: b - 1, B: 15})
	nl.Outputs = []int32{a, b, int32(nl.NumValues() - 1)}
	got := RemoveDead(MergeEquivalent(nl))
	mustEqual(t, "MergeEquivalent", nl, got)
	not := got.Gates[len(got.Gates)-1]
	if len(got.Gates) != 16 || got.Outputs[0] != got.Outputs[1] || not.Op != gates.NotA || not.A != got.Outputs[0] {
		t.Errorf("XOR tree, chain and XNOR chain: %d gates %v, outputs %v; want one 15-gate XOR and a NOT of it",
			len(got.Gates), got.Gates, got.Outputs)
	}
	// The AND of 16 inputs, and of 15 of them with the last one negated:
	// they differ on two input vectors of 65,536, which random simulation
	// almost surely misses.
	nl = &Netlist{NumInputs: 16}
	a = chain(nl, gates.And, inputs(16))
	c := chain(nl, gates.And, inputs(15))
	nl.Gates = append(nl.Gates, Gate{Op: gates.AAndNotB, A: c, B: 15})
	nl.Outputs = []int32{a, int32(nl.NumValues() - 1)}
	got = MergeEquivalent(nl)
	mustEqual(t, "MergeEquivalent", nl, got)
	if got.Outputs[0] == got.Outputs[1] {
		t.Error("merged two gates that differ")
	}
}
