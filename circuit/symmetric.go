package circuit

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/dlca/dlca/gates"
)

// Outer-totalistic cellular automata such as Game of Life compute, in each
// output, a function that depends on how many neighbours are set, not on
// which. Learned circuits compute it in some tangled way that local
// rewriting cannot untangle; Symmetrize recognises the symmetry from the
// output's truth table and builds the function anew as a counter (an adder
// tree) followed by a small function of the count's bits and the other
// inputs.

// minSymmetric is the fewest inputs a symmetric group must have for
// Symmetrize to count them with an adder tree.
const minSymmetric = 3

// maxResidual is the most inputs (count bits and others) the function after
// the counter may have for Symmetrize to synthesise it.
const maxResidual = 6

// Symmetrize rebuilds every output whose function depends on at most
// maxSupport inputs, and is symmetric in at least minSymmetric of them
// (unchanged by swapping any two), as an adder tree counting those inputs
// followed by a smallest known circuit of the count and the other inputs,
// when that has fewer gates than the output's logic had. The new circuit
// is checked equal to the old output on every assignment of its inputs.
func Symmetrize(nl *Netlist) *Netlist {
	cones := conesOf(nl)
	cur := RemoveDead(nl) // so that only the rebuilding counts in the comparisons below
	for j, o := range nl.Outputs {
		c := cones[o]
		if c.big || len(c.support) < minSymmetric {
			continue
		}
		group := symmetricGroup(c)
		if len(group) < minSymmetric {
			continue
		}
		cand := cur.Clone()
		label := "" // the section of the gate computing the output, if any
		if nl.Labels != nil && int(o) >= nl.NumInputs {
			label = nl.Labels[int(o)-nl.NumInputs]
		}
		out, ok := buildSymmetric(cand, c, group, label)
		if !ok {
			continue
		}
		cand.Outputs[j] = out
		cand = RemoveDead(cand)
		if len(cand.Gates) >= len(cur.Gates) {
			continue
		}
		if m, err := Equivalent(cur, cand, 1, 1); err != nil || m != nil {
			panic(fmt.Sprintf("circuit: Symmetrize changed output %d: %v %v", j, m, err))
		}
		cur = cand
	}
	return cur
}

// symmetricGroup returns the largest set of positions in c.support that
// the function is symmetric in. Symmetry in a pair is an equivalence
// relation, so the sets are its classes.
func symmetricGroup(c cone) []int {
	n := len(c.support)
	class := make([]int, n)
	for i := range class {
		class[i] = -1
	}
	var best []int
	for i := range n {
		if class[i] >= 0 {
			continue
		}
		group := []int{i}
		class[i] = i
		for j := i + 1; j < n; j++ {
			if class[j] < 0 && symmetricIn(c.table, i, j) {
				class[j] = i
				group = append(group, j)
			}
		}
		if len(group) > len(best) {
			best = group
		}
	}
	return best
}

// symmetricIn reports whether swapping variables i and j leaves table t
// unchanged.
func symmetricIn(t []bool, i, j int) bool {
	for r := range t {
		if r>>i&1 == 1 && r>>j&1 == 0 && t[r] != t[r^(1<<i|1<<j)] {
			return false
		}
	}
	return true
}

// buildSymmetric appends to nl a counter of the group's inputs and the
// function of its bits and the other inputs, and returns the output value.
func buildSymmetric(nl *Netlist, c cone, group []int, label string) (int32, bool) {
	inGroup := make([]bool, len(c.support))
	var counted []int32
	for _, i := range group {
		inGroup[i] = true
		counted = append(counted, c.support[i])
	}
	var rest []int // positions in c.support outside the group
	for i := range c.support {
		if !inGroup[i] {
			rest = append(rest, i)
		}
	}
	k := bits.Len(uint(len(group))) // bits of a count 0..len(group)
	m := k + len(rest)
	if m > maxResidual {
		return 0, false
	}
	// The residual function: variable b < k is bit b of the count,
	// variable k+i is input rest[i]. Counts above len(group) never occur.
	p := partial{val: make([]bool, 1<<m), care: make([]bool, 1<<m), n: m}
	for n := 0; n <= len(group); n++ {
		for a := range 1 << len(rest) {
			row := 0 // the row of c.table: the first n of the group set
			for _, i := range group[:n] {
				row |= 1 << i
			}
			for b, i := range rest {
				row |= (a >> b & 1) << i
			}
			r := n | a<<k
			p.val[r], p.care[r] = c.table[row], true
		}
	}
	rc := synthesize(p)
	add := func(op gates.Op, a, b int32) int32 {
		nl.Gates = append(nl.Gates, Gate{Op: op, A: a, B: b})
		if nl.Labels != nil {
			nl.Labels = append(nl.Labels, label)
		}
		return int32(nl.NumValues() - 1)
	}
	vars := append(countBits(counted, k, add), make([]int32, len(rest))...)
	for b, i := range rest {
		vars[k+b] = c.support[i]
	}
	return rc.build(vars, add), true
}

// countBits returns k values whose bits, low first, count how many of xs
// are set: an adder tree of full adders (5 gates) and half adders (2).
func countBits(xs []int32, k int, add func(gates.Op, int32, int32) int32) []int32 {
	cols := make([][]int32, k+1)
	cols[0] = slices.Clone(xs) // the columns are consumed in place
	out := make([]int32, k)
	for w := range k {
		col := cols[w]
		for len(col) > 1 {
			x, y := col[0], col[1]
			xy := add(gates.Xor, x, y)
			if len(col) == 2 {
				cols[w+1] = append(cols[w+1], add(gates.And, x, y))
				col = append(col[2:], xy)
				continue
			}
			z := col[2]
			cols[w+1] = append(cols[w+1], add(gates.Or, add(gates.And, x, y), add(gates.And, xy, z)))
			col = append(col[3:], add(gates.Xor, xy, z))
		}
		out[w] = col[0]
	}
	return out
}
