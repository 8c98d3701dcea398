package circuit

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/dlca/dlca/circuit/internal/smallest"
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
	cols[0] = xs
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

// partial is a function of n variables known only where care is set.
type partial struct {
	val, care []bool
	n         int
}

// recipe is how synthesize builds a function: a smallest circuit of at
// most four of its variables (small, over vars), or Shannon's expansion on
// variable v (lo where v is 0, hi where it is 1).
type recipe struct {
	cost   int
	small  smallest.Circuit
	vars   []int
	v      int
	lo, hi *recipe
}

// constant reports the value of a recipe that is a constant.
func (rc *recipe) constant() (bool, bool) {
	return rc.small.Not, rc.lo == nil && rc.small.Out == smallest.Const
}

// build adds the recipe's gates over the given variable values.
func (rc *recipe) build(vars []int32, add func(gates.Op, int32, int32) int32) int32 {
	if rc.lo == nil {
		if val, ok := rc.constant(); ok {
			return add(map[bool]gates.Op{false: gates.False, true: gates.True}[val], 0, 0)
		}
		vals := make([]int32, 4, 4+len(rc.small.Gates))
		for i, v := range rc.vars {
			vals[i] = vars[v]
		}
		for _, g := range rc.small.Gates {
			vals = append(vals, add(g.Op, vals[g.A], vals[g.B]))
		}
		out := vals[rc.small.Out]
		if rc.small.Not { // a negated input
			out = add(gates.NotA, out, out)
		}
		return out
	}
	v := vars[rc.v]
	if val, ok := rc.lo.constant(); ok {
		hi := rc.hi.build(vars, add)
		if val {
			return add(gates.NotAOrB, v, hi) // v ? hi : 1
		}
		return add(gates.And, v, hi) // v ? hi : 0
	}
	lo := rc.lo.build(vars, add)
	if val, ok := rc.hi.constant(); ok {
		if val {
			return add(gates.Or, v, lo) // v ? 1 : lo
		}
		return add(gates.NotAAndB, v, lo) // v ? 0 : lo
	}
	// v ? hi : lo = lo XOR (v AND (lo XOR hi))
	hi := rc.hi.build(vars, add)
	return add(gates.Xor, lo, add(gates.And, v, add(gates.Xor, lo, hi)))
}

// joinCost is the gates build adds to join lo and hi on a variable.
func joinCost(lo, hi *recipe) int {
	_, loConst := lo.constant()
	_, hiConst := hi.constant()
	if loConst || hiConst {
		return 1
	}
	return 3
}

// synthesize returns a recipe for some function that agrees with p where
// it cares: a smallest circuit when p needs at most four variables, else
// the cheapest Shannon expansion on one of them.
func synthesize(p partial) *recipe {
	p, vars := p.dropFree()
	if p.n <= 4 {
		return smallestFor(p, vars)
	}
	var best *recipe
	for v := range p.n {
		lo, hi := p.cofactors(v)
		rl, rh := synthesize(lo), synthesize(hi)
		if cost := rl.cost + rh.cost + joinCost(rl, rh); best == nil || cost < best.cost {
			best = &recipe{cost: cost, v: v, lo: rl, hi: rh}
		}
	}
	// The cofactors number p's variables but best.v one down; vars maps p's
	// to the caller's.
	re := func(x int) int {
		if x >= best.v {
			x++
		}
		return vars[x]
	}
	best.lo, best.hi, best.v = best.lo.renumber(re), best.hi.renumber(re), vars[best.v]
	return best
}

// renumber returns the recipe with variable x renamed to re(x).
func (rc *recipe) renumber(re func(int) int) *recipe {
	out := *rc
	if rc.lo == nil {
		out.vars = make([]int, len(rc.vars))
		for i, x := range rc.vars {
			out.vars[i] = re(x)
		}
		return &out
	}
	out.v = re(rc.v)
	out.lo, out.hi = rc.lo.renumber(re), rc.hi.renumber(re)
	return &out
}

// cofactors returns p with variable v fixed to 0 and to 1.
func (p partial) cofactors(v int) (lo, hi partial) {
	lo = partial{val: make([]bool, 1<<(p.n-1)), care: make([]bool, 1<<(p.n-1)), n: p.n - 1}
	hi = partial{val: make([]bool, 1<<(p.n-1)), care: make([]bool, 1<<(p.n-1)), n: p.n - 1}
	for r := range lo.val {
		r0 := r&(1<<v-1) | (r>>v)<<(v+1)
		r1 := r0 | 1<<v
		lo.val[r], lo.care[r] = p.val[r0], p.care[r0]
		hi.val[r], hi.care[r] = p.val[r1], p.care[r1]
	}
	return lo, hi
}

// dropFree removes, one after the other, the variables some completion of
// p does not depend on (its cofactors agree wherever both care), and
// returns the rest with their original numbers.
func (p partial) dropFree() (partial, []int) {
	vars := make([]int, p.n)
	for i := range vars {
		vars[i] = i
	}
	for v := 0; v < p.n; {
		lo, hi := p.cofactors(v)
		free := true
		for r := range lo.val {
			if lo.care[r] && hi.care[r] && lo.val[r] != hi.val[r] {
				free = false
				break
			}
		}
		if !free {
			v++
			continue
		}
		for r := range lo.val {
			if !lo.care[r] {
				lo.val[r], lo.care[r] = hi.val[r], hi.care[r]
			}
		}
		p = lo
		vars = append(vars[:v], vars[v+1:]...)
	}
	return p, vars
}

// smallestFor returns a smallest circuit of any completion of p, a function
// of at most four variables.
func smallestFor(p partial, vars []int) *recipe {
	rows := 1 << p.n
	var want, free uint16 // over p's rows
	for r := range rows {
		switch {
		case !p.care[r]:
			free |= 1 << r
		case p.val[r]:
			want |= 1 << r
		}
	}
	var best smallest.TT
	bestCost := -1
	// Every completion: want with each subset of the don't-care rows set.
	for s := free; ; s = (s - 1) & free {
		f := replicate(want|s, p.n)
		c := smallest.Size(f)
		if c == 0 && f != 0 && f != 0xffff && !slices.Contains(smallest.Vars[:], f) {
			c++ // a negated input: a NOT gate
		}
		if bestCost < 0 || c < bestCost {
			best, bestCost = f, c
		}
		if s == 0 {
			break
		}
	}
	return &recipe{cost: bestCost, small: smallest.For(best), vars: vars}
}

// replicate extends a truth table over n < 4 variables to the four of
// smallest.TT, independent of the others.
func replicate(t uint16, n int) smallest.TT {
	for w := 1 << n; w < 16; w *= 2 {
		t |= t << w
	}
	return smallest.TT(t)
}
