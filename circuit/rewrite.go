package circuit

import (
	"slices"

	"github.com/dlca/dlca/circuit/internal/smallest"
)

// maxCuts is the most cuts Rewrite keeps per value (the smallest ones): real
// gates have far fewer distinct 4-input cuts that matter, and the cap keeps
// the enumeration linear in the netlist's size.
const maxCuts = 16

// A cut of value v is a set of at most four values (its leaves) such that
// every path from v to an input passes through one of them: v is then a
// function of the leaves alone.
type cut []int32

// Rewrite is cut rewriting. For every gate it enumerates the cuts of up to
// four leaves, computes the gate's function of each cut's leaves (a 4-input
// truth table) and looks up a smallest circuit for that function (package
// smallest: exact, by exhaustive search). When that circuit, counting only
// the gates that do not already exist, is smaller than the gates that only
// the cone between the leaves and the gate uses (which go with it), the
// cone is replaced. Rewrites chosen in one call never overlap, so each
// saving is counted exactly; Simplify's rounds repeat it.
//
// A replacement computes the same function of the same leaves, proven on
// all 16 rows of the cut's truth table: the cut rule makes that equality
// hold on every input of the netlist.
func Rewrite(nl *Netlist) *Netlist {
	r := newRewriter(nl)
	plans := map[int32]plan{} // root value -> its replacement; looked up only
	for k := range nl.Gates {
		v := int32(nl.NumInputs + k)
		if p, ok := r.best(v); ok {
			plans[v] = p
			r.commit(p)
		}
	}
	if len(plans) == 0 {
		return nl.Clone()
	}
	newOf := make([]int32, nl.NumValues())
	for i := range nl.NumInputs {
		newOf[i] = int32(i)
	}
	out := RemoveDead(rebuild(nl, func(b *builder, k int, g Gate, label string) int32 {
		v := int32(nl.NumInputs + k)
		if p, ok := plans[v]; ok {
			newOf[v] = p.build(b, newOf, label)
		} else {
			newOf[v] = b.add(g, label)
		}
		return newOf[v]
	}))
	if len(out.Gates) >= len(nl.Gates) {
		return nl.Clone() // never expected: each plan saves at least one gate
	}
	return out
}

// plan replaces root by the gates of steps.
type plan struct {
	root  int32
	steps []step
	cone  []int32 // the gates that go with the old cone (root included)
	reuse []int32 // existing gates the new circuit reads
}

// step is one gate of a replacement: an existing value (reuse >= 0) or a
// new gate whose operands are old values (>= 0) or earlier steps (-1-i).
type step struct {
	reuse int32
	gate  Gate
}

// build adds the plan's new gates and returns the value of its root.
func (p plan) build(b *builder, newOf []int32, label string) int32 {
	vals := make([]int32, len(p.steps))
	val := func(x int32) int32 {
		if x < 0 {
			return vals[-1-x]
		}
		return newOf[x]
	}
	for i, s := range p.steps {
		if s.reuse >= 0 {
			vals[i] = newOf[s.reuse]
			continue
		}
		vals[i] = b.add(Gate{Op: s.gate.Op, A: val(s.gate.A), B: val(s.gate.B)}, label)
	}
	return vals[len(vals)-1]
}

// rewriter holds what Rewrite knows of the netlist: reference counts, cuts,
// the existing gates by structure, and which values the plans chosen so
// far touch.
type rewriter struct {
	nl      *Netlist
	refs    []int
	cuts    [][]cut
	exists  map[Gate]int32 // canonical gate -> first value computing it; looked up only
	touched []bool         // in or read by a chosen plan's cone or new gates
	dead    []bool         // in a chosen plan's cone, below its root
}

func newRewriter(nl *Netlist) *rewriter {
	r := &rewriter{nl: nl, refs: make([]int, nl.NumValues()), cuts: make([][]cut, nl.NumValues()),
		exists: map[Gate]int32{}, touched: make([]bool, nl.NumValues()), dead: make([]bool, nl.NumValues())}
	for _, o := range nl.Outputs {
		r.refs[o]++
	}
	for i := range nl.NumInputs {
		r.cuts[i] = []cut{{int32(i)}}
	}
	for k, g := range nl.Gates {
		v := int32(nl.NumInputs + k)
		for _, x := range r.operands(v) {
			r.refs[x]++
		}
		if _, ok := r.exists[canonical(g)]; !ok {
			r.exists[canonical(g)] = v
		}
		r.cuts[v] = r.cutsOf(v)
	}
	return r
}

// operands returns the operands gate v's op reads (none for an input).
func (r *rewriter) operands(v int32) []int32 {
	if int(v) < r.nl.NumInputs {
		return nil
	}
	g := r.nl.Gates[int(v)-r.nl.NumInputs]
	var ops []int32
	if dependsOnA(g.Op) {
		ops = append(ops, g.A)
	}
	if dependsOnB(g.Op) {
		ops = append(ops, g.B)
	}
	return ops
}

// cutsOf merges the cuts of v's operands pairwise, keeping the distinct
// ones of at most four leaves, smallest first, and adds v's trivial cut.
func (r *rewriter) cutsOf(v int32) []cut {
	var cs []cut
	switch ops := r.operands(v); len(ops) {
	case 1:
		cs = slices.Clone(r.cuts[ops[0]])
	case 2:
		for _, a := range r.cuts[ops[0]] {
			for _, b := range r.cuts[ops[1]] {
				if c := union(a, b); c != nil && !slices.ContainsFunc(cs, func(d cut) bool { return slices.Equal(c, d) }) {
					cs = append(cs, c)
				}
			}
		}
	}
	slices.SortStableFunc(cs, func(a, b cut) int { return len(a) - len(b) })
	if len(cs) > maxCuts {
		cs = cs[:maxCuts]
	}
	return append(cs, cut{v})
}

// union returns the sorted union of two cuts, or nil if it has more than
// four leaves.
func union(a, b cut) cut {
	if c := union32(a, b); len(c) <= 4 {
		return c
	}
	return nil
}

// truthTable returns v's function of the cut's leaves: leaf i is input i.
func (r *rewriter) truthTable(v int32, c cut) smallest.TT {
	memo := map[int32]smallest.TT{}
	var eval func(x int32) smallest.TT
	eval = func(x int32) smallest.TT {
		if i := slices.Index(c, x); i >= 0 {
			return smallest.Vars[i]
		}
		if t, ok := memo[x]; ok {
			return t
		}
		g := r.nl.Gates[int(x)-r.nl.NumInputs]
		var a, b smallest.TT
		if dependsOnA(g.Op) {
			a = eval(g.A)
		}
		if dependsOnB(g.Op) {
			b = eval(g.B)
		}
		t := smallest.TT(g.Op.Word(uint64(a), uint64(b)))
		memo[x] = t
		return t
	}
	return eval(v)
}

// coneOnly returns the gates that would reach no output once v is
// replaced: v and, recursively below it down to the cut's leaves, the
// gates read only by gates that go.
func (r *rewriter) coneOnly(v int32, c cut) []int32 {
	gone := []int32{v}
	var deref func(x int32)
	deref = func(x int32) {
		for _, y := range r.operands(x) {
			r.refs[y]--
			if r.refs[y] == 0 && int(y) >= r.nl.NumInputs && !slices.Contains(c, y) {
				gone = append(gone, y)
				deref(y)
			}
		}
	}
	deref(v)
	for _, x := range gone { // restore the counts
		for _, y := range r.operands(x) {
			r.refs[y]++
		}
	}
	return gone
}

// best returns the plan for v that saves the most gates, if one saves any
// and touches no earlier plan.
func (r *rewriter) best(v int32) (plan, bool) {
	var bestPlan plan
	bestGain := 0
	for _, c := range r.cuts[v] {
		if len(c) < 2 || slices.Contains(c, v) || slices.ContainsFunc(c, func(x int32) bool { return r.dead[x] }) {
			continue
		}
		f := r.truthTable(v, c)
		if smallest.Size(f) >= r.maxSaving(v, c) {
			continue
		}
		gone := r.coneOnly(v, c)
		if slices.ContainsFunc(gone, func(x int32) bool { return r.touched[x] }) {
			continue
		}
		p, added, ok := r.replacement(v, c, smallest.For(f), gone)
		if gain := len(gone) - added; ok && gain > bestGain {
			p.cone = gone
			bestPlan, bestGain = p, gain
		}
	}
	return bestPlan, bestGain > 0
}

// maxSaving bounds what replacing v over cut c can save: the gates between
// the leaves and v.
func (r *rewriter) maxSaving(v int32, c cut) int {
	seen := map[int32]bool{}
	var walk func(x int32)
	walk = func(x int32) {
		if seen[x] || slices.Contains(c, x) {
			return
		}
		seen[x] = true
		for _, y := range r.operands(x) {
			walk(y)
		}
	}
	walk(v)
	return len(seen)
}

// replacement maps circuit sc over the cut's leaves to steps, reusing an
// existing gate (earlier than v, not going with the cone, not part of a
// chosen plan) wherever one computes a step, and counts the new gates. It
// fails if the circuit reads an input beyond the cut or is not a gate.
func (r *rewriter) replacement(v int32, c cut, sc smallest.Circuit, gone []int32) (plan, int, bool) {
	if sc.Out == smallest.Const || int(sc.Out) < 4 {
		return plan{}, 0, false // a constant or a leaf: MergeEquivalent's work
	}
	p := plan{root: v}
	added := 0
	operand := func(i uint8) (int32, bool) {
		if i < 4 {
			if int(i) >= len(c) {
				return 0, false
			}
			return c[i], true
		}
		if s := p.steps[i-4]; s.reuse >= 0 {
			return s.reuse, true
		}
		return -1 - int32(i-4), true
	}
	for _, sg := range sc.Gates {
		a, okA := operand(sg.A)
		b, okB := operand(sg.B)
		if !okA || !okB {
			return plan{}, 0, false
		}
		g := Gate{Op: sg.Op, A: a, B: b}
		if a >= 0 && b >= 0 {
			if x, ok := r.exists[canonical(g)]; ok && x < v && !r.touched[x] && !slices.Contains(gone, x) {
				p.steps = append(p.steps, step{reuse: x})
				p.reuse = append(p.reuse, x)
				continue
			}
		}
		p.steps = append(p.steps, step{reuse: -1, gate: g})
		added++
	}
	if last := p.steps[len(p.steps)-1]; last.reuse >= 0 {
		return plan{}, 0, false // v equals an existing gate: MergeEquivalent's work
	}
	return p, added, true
}

// commit marks what a chosen plan touches, so that later plans in the same
// call leave it alone and their savings stay exact.
func (r *rewriter) commit(p plan) {
	for _, x := range p.cone {
		r.touched[x] = true
		r.dead[x] = x != p.root
	}
	for _, x := range p.reuse {
		r.touched[x] = true
	}
}
