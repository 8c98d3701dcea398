package circuit

import (
	"slices"

	"github.com/dlca/dlca/circuit/internal/smallest"
	"github.com/dlca/dlca/gates"
)

// synthesize builds a circuit for a function of a few variables given
// only where it matters (the function after Symmetrize's counter): exact
// (a smallest circuit) up to four variables, Shannon's expansion beyond.

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
